// The relay's listener: one HTTP server on loopback carrying the `/json` routes (hono) and three
// WebSocket doors — `/extension` for our extension, `/cdp` for CDP clients, `/devtools/page/<id>`
// for clients of one tab. Every upgrade passes the same guards as HTTP before ws touches it; the
// CDP doors take the agent's token, `/extension` the extension key, proven in its handshake.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { EXTENSION_ORIGIN, LIMITS, LOOPBACK_HOST, TIMEOUTS } from '../../shared/defaults';
import { ClawdError } from '../errors';
import { refusal, refuseUpgrade, type GuardPolicy } from '../http/guards';
import { closerOf, listen } from '../http/listen';
import { silentLogger, type Logger } from '../log';
import { VERSION } from '../version';
import type { ServerToken } from '../http/server-token';
import type { ServerKeys } from '../http/server-keys';
import { isNonce } from '../../shared/key-proof';
import { createRelayApp, type RelayAppOptions } from './json-routes';
import { Switchboard, type SwitchboardOptions } from './switchboard';
import { CLIENT_NAME } from './client-session';

export interface RelayServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** The server's token: every upgrade is checked against its current value; a rotation is followed. */
  token: ServerToken;
  /** The extension key: `/extension` proves it in its handshake; a rotation drops the extension. */
  keys: ServerKeys;
  host?: string;
  extensionOrigins?: readonly string[];
  log?: Logger;
  timeouts?: Partial<SwitchboardOptions['timeouts']>;
  maxClients?: number;
  /** Output queued for a client that stops reading before it is closed (default LIMITS.clientMaxBuffered). */
  maxClientBufferedBytes?: number;
  /** A handed-over tab unused this long rests: the debugger lets go of it until the next command (0: never). */
  idleDetachMs?: number;
  onTabChange?: SwitchboardOptions['onTabChange'];
  onHandBack?: SwitchboardOptions['onHandBack'];
  onClientNavigate?: SwitchboardOptions['onClientNavigate'];
  onPolicyRefusal?: SwitchboardOptions['onPolicyRefusal'];
  consent?: SwitchboardOptions['consent'];
  pairing?: RelayAppOptions['pairing'];
}

export interface RelayServer {
  readonly port: number;
  /**
   * What clawd's own agent layer says in its upgrade (X-Clawd-Agent), minted per process: its calls
   * passed the agent layer's gate and are logged as operations, so the relay neither logs nor holds
   * them again. A constant anyone could send would let any raw client skip the relay's gate.
   */
  readonly agentKey: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly switchboard: Switchboard;
  readonly token: ServerToken;
  close(): Promise<void>;
}

export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const host = options.host ?? LOOPBACK_HOST;
  const log = options.log ?? silentLogger;
  const extensionOrigins = options.extensionOrigins ?? [EXTENSION_ORIGIN];
  let port = options.port;
  const agentKey = randomBytes(18).toString('base64url');

  const switchboard = createSwitchboard(options, log);
  const app = createRelayApp({
    switchboard,
    version: VERSION,
    token: options.token,
    extensionOrigins,
    port: () => port,
    ...(options.pairing ? { pairing: options.pairing } : {}),
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  const doors: Doors = {
    options,
    log,
    switchboard,
    extensionOrigins,
    maxClients: options.maxClients ?? LIMITS.maxClients,
    agentKey,
    port: () => port,
    extensionWss: new WebSocketServer({
      noServer: true,
      maxPayload: LIMITS.extensionMaxPayload,
      perMessageDeflate: false,
    }),
    clientWss: new WebSocketServer({
      noServer: true,
      maxPayload: LIMITS.clientMaxPayload,
      perMessageDeflate: false,
    }),
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => upgrade(doors, req, socket, head);
  server.on('upgrade', onUpgrade);
  // A new token: raw clients that came in with the old one are cut — a rotation is for a token
  // that leaked. A new extension key: the extension goes, and comes back only with the new key.
  const unfollowToken = options.token.onRotated(() => switchboard.tokenRotated());
  const unfollowKey = options.keys.onExtensionRotated(() => switchboard.extensionKeyRotated());

  port = await listen(server, port, host, 'relay');
  const url = `http://${host}:${port}`;
  log.debug(`relay listening on ${url}`);

  return {
    port,
    url,
    agentKey,
    switchboard,
    token: options.token,
    close: closerOf(server, () => {
      unfollowToken();
      unfollowKey();
      server.off('upgrade', onUpgrade);
      switchboard.close();
      doors.extensionWss.close();
      doors.clientWss.close();
    }),
  };
}

function createSwitchboard(options: RelayServerOptions, log: Logger): Switchboard {
  return new Switchboard({
    relayVersion: VERSION,
    log,
    timeouts: {
      commandMs: TIMEOUTS.commandMs,
      reconnectWaitMs: TIMEOUTS.reconnectWaitMs,
      tabGraceMs: TIMEOUTS.tabGraceMs,
      eventFenceMs: TIMEOUTS.eventFenceMs,
      notReadingCutMs: TIMEOUTS.notReadingCutMs,
      helloMs: TIMEOUTS.helloMs,
      extensionIdleMs: TIMEOUTS.extensionIdleMs,
      ...options.timeouts,
    },
    maxClientBufferedBytes: options.maxClientBufferedBytes ?? LIMITS.clientMaxBuffered,
    idleDetachMs: options.idleDetachMs ?? TIMEOUTS.idleDetachMs,
    ...(options.onTabChange ? { onTabChange: options.onTabChange } : {}),
    ...(options.onHandBack ? { onHandBack: options.onHandBack } : {}),
    ...(options.onClientNavigate ? { onClientNavigate: options.onClientNavigate } : {}),
    ...(options.onPolicyRefusal ? { onPolicyRefusal: options.onPolicyRefusal } : {}),
    ...(options.consent ? { consent: options.consent } : {}),
  });
}

/** The WebSocket doors and what an upgrade is judged by. */
interface Doors {
  options: RelayServerOptions;
  log: Logger;
  switchboard: Switchboard;
  extensionOrigins: readonly string[];
  maxClients: number;
  agentKey: string;
  /** The port it listens on, read per upgrade: the one asked for is 0 until listen() says which. */
  port(): number;
  extensionWss: WebSocketServer;
  clientWss: WebSocketServer;
}

function upgrade(doors: Doors, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', (error) => doors.log.debug(`upgrade socket error: ${error.message}`));
  const url = new URL(req.url ?? '/', 'http://relay');
  const path = url.pathname;
  const isExtension = path === '/extension';
  const pageMatch = path.match(/^\/devtools\/page\/([^/]+)$/);
  const isClient = path === '/cdp' || path.startsWith('/devtools/browser') || pageMatch !== null;
  if (!isExtension && !isClient)
    return refuseUpgrade(socket, new ClawdError('not_found', `No WebSocket endpoint at ${path}`));
  const policy: GuardPolicy = {
    token: doors.options.token.value,
    port: doors.port(),
    extensionOrigins: doors.extensionOrigins,
    origins: isExtension ? 'extension' : 'no-web',
    ...(isExtension ? { provenInBand: true as const } : {}),
  };
  const refused = refusal(
    { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization, url },
    policy,
  );
  if (refused) {
    doors.log.warn(`refused ${path} upgrade: ${refused.message}`);
    return refuseUpgrade(socket, refused);
  }
  if (isExtension) return upgradeExtension(doors, req, socket, head, url);
  upgradeClient(doors, req, socket, head, { url, page: pageMatch?.[1] });
}

function upgradeExtension(doors: Doors, req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
  // The extension's nonce: the relay's first frame proves the key for it (extension-link.ts).
  const clientNonce = url.searchParams.get('nonce');
  if (!isNonce(clientNonce))
    return refuseUpgrade(
      socket,
      new ClawdError('bad_request', '/extension needs ?nonce= (16 to 64 base64url characters): update the extension'),
    );
  doors.extensionWss.handleUpgrade(req, socket, head, (ws) =>
    doors.switchboard.attachExtension(ws, { key: () => doors.options.keys.extension, port: doors.port(), clientNonce }),
  );
}

/** A CDP client at `/cdp`, `/devtools/browser/…` or one tab's `/devtools/page/<id>` (`page`). */
function upgradeClient(
  doors: Doors,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  { url, page: pageId }: { url: URL; page: string | undefined },
): void {
  const { switchboard, maxClients } = doors;
  if (switchboard.clientCount >= maxClients) {
    return refuseUpgrade(
      socket,
      new ClawdError('too_many_clients', `The relay already serves ${maxClients} CDP clients`),
    );
  }
  const page = pageId !== undefined ? switchboard.findTab(decodeURIComponent(pageId)) : undefined;
  if (pageId !== undefined && !page)
    return refuseUpgrade(socket, new ClawdError('target_not_found', `No such target id: ${pageId}`));
  // clawd's own agent layer says who it is: its doings are logged as operations, not as a raw client's.
  // A client may name the agent session it is (its tabs' group in the person's browser, its questions).
  const said = url.searchParams.get('session') ?? req.headers['x-clawd-session'];
  const name = typeof said === 'string' && CLIENT_NAME.test(said) ? said : undefined;
  const internal = req.headers['x-clawd-agent'] === doors.agentKey;
  const holdsPopups = internal && url.searchParams.get('clawd') === 'popups';
  doors.clientWss.handleUpgrade(req, socket, head, (ws) =>
    switchboard.addClient(ws, page, internal, name, holdsPopups),
  );
}
