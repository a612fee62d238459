// A managed profile's CDP port, served by clawd: the browser itself listens on no port (it is
// driven over its pipe, cdp-pipe.ts), so this is the only way in, and it is held as the relay
// is — loopback Host only, no web page's Origin, the token (or clawd's own per-process key) on
// every request and upgrade, raw clients held to the profile's origin policy and asks (mux rules), and cut
// when the token is rotated. It speaks what Chrome's own port speaks, so Playwright, Puppeteer and
// clawd's own /json client need nothing else: `/json/version` (a WebSocket URL that carries the
// token it was asked with), `/json/list`, `/json/new`, `/json/activate/<id>`, `/json/close/<id>`,
// and the WebSockets `/devtools/browser/<id>` (or `/cdp`) and `/devtools/page/<id>`.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { LIMITS, LOOPBACK_HOST, SESSION_NAME } from '../../shared/defaults';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { refusal, refuseUpgrade } from '../http/guards';
import { closerOf, listen } from '../http/listen';
import type { ServerToken } from '../http/server-token';
import type { Logger } from '../log';
import type { CdpMux, MuxRules } from './cdp-mux';
import { managedOpener, openForClient, ownCalls } from './client-new-tabs';
import { closeTab } from './tab-close';

export interface CdpEndpointOptions {
  port: number;
  mux: CdpMux;
  /** The agents' token: what raw clients present. */
  token: ServerToken;
  /** clawd's own connections (its Playwright, the policy guard, its /json client) say it in X-Clawd-Agent. */
  agentKey: string;
  /** What a raw client is held to (the profile's origin policy and asks), by the name it gave itself. */
  rules: (client: { name?: string }) => MuxRules;
  /**
   * What clawd's own agent connection is held to: a new target's run behind the policy guard's
   * walls (its Playwright lets a new shared worker run the moment it is shown, and any holder's
   * word starts one). Not the guard's own connection (it says `?clawd=guard`): it sets them up.
   */
  ownRules?: () => MuxRules;
  log: Logger;
}

export interface CdpEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/** The header clawd's own connections carry its per-process key in. */
export const AGENT_KEY_HEADER = 'x-clawd-agent';

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
}

/** The agent session a client says it is (`?session=` or X-Clawd-Session), as the relay reads it. */
function nameOf(req: IncomingMessage, url: URL): string | undefined {
  const said = url.searchParams.get('session') ?? req.headers['x-clawd-session'];
  return typeof said === 'string' && SESSION_NAME.test(said) ? said : undefined;
}

/** Targets Chrome's own /json/list leaves out. */
const UNLISTED = new Set(['browser', 'tab', 'browser_ui']);

/** What one endpoint judges and answers every request with. */
interface Endpoint {
  options: CdpEndpointOptions;
  browserId: string;
  /** The port it listens on, read per request: the one asked for is 0 until listen() says which. */
  port(): number;
}

export async function serveCdpEndpoint(options: CdpEndpointOptions): Promise<CdpEndpoint> {
  const { token } = options;
  let port = options.port;
  const endpoint: Endpoint = { options, browserId: randomBytes(16).toString('hex'), port: () => port };
  const raws = new Set<WebSocket>();
  const server = http.createServer((req, res) => answerRequest(endpoint, req, res));
  const wss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.clientMaxPayload, perMessageDeflate: false });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    upgrade(endpoint, { wss, raws }, req, socket, head);
  server.on('upgrade', onUpgrade);
  // A rotated token: raw clients that came in with the old one are cut, as at the relay.
  const unfollow = token.onRotated(() => {
    for (const ws of raws) ws.close(1008, 'the token was rotated: connect with the new one (clawd token)');
  });
  port = await listen(server, port, LOOPBACK_HOST, 'CDP port');
  const close = closerOf(server, () => {
    unfollow();
    server.off('upgrade', onUpgrade);
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  });
  return { port, close };
}

/** clawd's own connections carry its per-process key instead of the token. */
function isInternal(endpoint: Endpoint, req: IncomingMessage): boolean {
  return req.headers[AGENT_KEY_HEADER] === endpoint.options.agentKey;
}

function refused(endpoint: Endpoint, req: IncomingMessage, url: URL): ClawdError | undefined {
  return refusal(
    {
      host: req.headers.host,
      origin: req.headers.origin,
      authorization: req.headers.authorization,
      url,
    },
    {
      token: endpoint.options.token.value,
      port: endpoint.port(),
      extensionOrigins: [],
      origins: 'no-web',
      ...(isInternal(endpoint, req) ? { provenInBand: true as const } : {}),
    },
  );
}

/** Where WebSocket URLs point: the Host asked at, and the token it was asked with (if any). */
function wsBase(req: IncomingMessage, url: URL): { base: string; query: string } {
  const given = url.searchParams.get('token');
  return { base: `ws://${req.headers.host}`, query: given ? `?token=${encodeURIComponent(given)}` : '' };
}

function describe(req: IncomingMessage, url: URL, target: TargetInfo) {
  const { base, query } = wsBase(req, url);
  return {
    description: '',
    devtoolsFrontendUrl: '',
    id: target.targetId,
    title: target.title,
    type: target.type,
    url: target.url,
    webSocketDebuggerUrl: `${base}/devtools/page/${target.targetId}${query}`,
  };
}

function answerRequest(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://endpoint');
  const error = refused(endpoint, req, url);
  const fail = (e: unknown) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(httpStatusOf(e), { 'Content-Type': 'application/json' }).end(JSON.stringify(httpErrorBody(e)));
  };
  if (error) return fail(error);
  routes(endpoint, req, url, res).catch((e: unknown) => {
    if (!(e instanceof ClawdError)) endpoint.options.log.debug(`cdp endpoint: ${req.url}: ${(e as Error).message}`);
    fail(e);
  });
}

async function routes(endpoint: Endpoint, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const json = (body: unknown) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
  };
  const { mux } = endpoint.options;
  const path = url.pathname.replace(/\/$/, '');
  if (path === '/json/version') return json(await versionOf(endpoint, req, url));
  if (path === '/json' || path === '/json/list') {
    const { targetInfos } = await mux.call<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    return json(targetInfos.filter((t) => !UNLISTED.has(t.type)).map((t) => describe(req, url, t)));
  }
  if (path === '/json/new') return json(await newTarget(endpoint, req, url));
  const acting = path.match(/^\/json\/(activate|close)\/([^/]+)$/);
  if (acting) {
    const targetId = decodeURIComponent(acting[2]!);
    try {
      if (acting[1] === 'activate') await mux.call('Target.activateTarget', { targetId });
      else await closeTab(ownCalls(mux), targetId);
    } catch {
      throw new ClawdError('target_not_found', `No such target id: ${targetId}`);
    }
    res
      .writeHead(200, { 'Content-Type': 'text/plain' })
      .end(acting[1] === 'activate' ? 'Target activated' : 'Target is closing');
    return;
  }
  throw new ClawdError('not_found', `No route for ${req.method} ${url.pathname}`);
}

/** `/json/version`: the browser's, with this endpoint's browser WebSocket. */
async function versionOf(endpoint: Endpoint, req: IncomingMessage, url: URL) {
  const version = await endpoint.options.mux.call<{
    protocolVersion: string;
    product: string;
    userAgent: string;
    jsVersion: string;
  }>('Browser.getVersion');
  const { base, query } = wsBase(req, url);
  return {
    Browser: version.product,
    'Protocol-Version': version.protocolVersion,
    'User-Agent': version.userAgent,
    'V8-Version': version.jsVersion,
    'WebKit-Version': '',
    webSocketDebuggerUrl: `${base}/devtools/browser/${endpoint.browserId}${query}`,
  };
}

/** `PUT /json/new?<url>`: a raw client's new tab, held to its rules first. */
async function newTarget(endpoint: Endpoint, req: IncomingMessage, url: URL) {
  const { mux } = endpoint.options;
  if (req.method !== 'PUT')
    throw new ClawdError(
      'method_not_allowed',
      `Using unsafe HTTP verb ${req.method} to invoke /json/new. This action supports only PUT verb.`,
    );
  const raw = decodeURIComponent(
    url.search
      .slice(1)
      .split('&')
      .filter((part) => !part.startsWith('token='))
      .join('&'),
  );
  const target = raw === '' ? 'about:blank' : raw;
  const params = { url: target };
  // A client of one request: its rules as a socket's first command's (a new site is asked), its
  // tab loaded once its watch is on it (client-new-tabs.ts); the watch outlives it, as a gone
  // socket client's does.
  const rules = isInternal(endpoint, req) ? undefined : endpoint.options.rules({ name: nameOf(req, url) });
  let targetId: string;
  try {
    const refusedLoad = rules?.refuse?.('Target.createTarget', params);
    if (refusedLoad) throw refusedLoad;
    await rules?.before?.('Target.createTarget', params, undefined);
    const watched = rules?.opens?.(params);
    ({ targetId } = watched
      ? await openForClient(managedOpener(ownCalls(mux), params), target, watched)
      : await mux.call<{ targetId: string }>('Target.createTarget', params));
  } finally {
    rules?.closed?.();
  }
  const { targetInfo } = await mux.call<{ targetInfo: TargetInfo }>('Target.getTargetInfo', { targetId });
  return describe(req, url, targetInfo);
}

/** The sockets one endpoint keeps: its WebSocket server, and the raw clients a rotation cuts. */
interface EndpointSockets {
  wss: WebSocketServer;
  raws: Set<WebSocket>;
}

function upgrade(endpoint: Endpoint, sockets: EndpointSockets, req: IncomingMessage, socket: Duplex, head: Buffer) {
  socket.on('error', () => {});
  const url = new URL(req.url ?? '/', 'http://endpoint');
  const page = url.pathname.match(/^\/devtools\/page\/([^/]+)$/)?.[1];
  if (!page && url.pathname !== '/cdp' && !url.pathname.startsWith('/devtools/browser'))
    return refuseUpgrade(socket, new ClawdError('not_found', `No WebSocket endpoint at ${url.pathname}`));
  const error = refused(endpoint, req, url);
  if (error) return refuseUpgrade(socket, error);
  const ours = isInternal(endpoint, req);
  sockets.wss.handleUpgrade(req, socket, head, (ws) => {
    if (!ours) sockets.raws.add(ws);
    const guard = ours && url.searchParams.get('clawd') === 'guard';
    const own = ours && !guard ? endpoint.options.ownRules?.() : undefined;
    const rules = ours ? (own ? { rules: own } : {}) : { rules: endpoint.options.rules({ name: nameOf(req, url) }) };
    const connection = endpoint.options.mux.connect(
      {
        send: (text) => {
          if (ws.readyState !== ws.OPEN) return;
          // A client that stops reading is closed, not queued for without bound (as at the relay).
          if (ws.bufferedAmount > LIMITS.clientMaxBuffered)
            return void ws.close(1013, 'client is not reading: too much output queued');
          ws.send(text);
        },
        close: (code, reason) => ws.close(code, reason),
      },
      { ...rules, ...(page ? { page: decodeURIComponent(page) } : {}) },
    );
    ws.on('message', (data) => connection.receive(data.toString()));
    ws.once('close', () => {
      sockets.raws.delete(ws);
      connection.close();
    });
    ws.on('error', (e) => endpoint.options.log.debug(`cdp endpoint socket: ${e.message}`));
  });
}
