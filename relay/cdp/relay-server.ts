// The relay's listener: one HTTP server on loopback carrying the `/json` routes (hono) and three
// WebSocket doors — `/extension` for our extension, `/cdp` for CDP clients, `/devtools/page/<id>`
// for clients of one tab. Every upgrade passes the same guards as HTTP before ws touches it.

import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { EXTENSION_ORIGIN, LIMITS, LOOPBACK_HOST, TIMEOUTS } from '../../shared/defaults';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { refusal, type GuardPolicy } from '../http/guards';
import { silentLogger, type Logger } from '../log';
import { VERSION } from '../version';
import { createRelayApp } from './json-routes';
import { Router, type RouterOptions } from './router';

export interface RelayServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  token: string;
  host?: string;
  extensionOrigin?: string;
  log?: Logger;
  timeouts?: Partial<RouterOptions['timeouts']>;
  maxClients?: number;
}

export interface RelayServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly router: Router;
  close(): Promise<void>;
}

/** Listens, resolving once bound; a port in use is a clear `port_in_use` error. */
export function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE') {
        reject(new ClawdError('port_in_use', `${what} port ${port} on ${host} is already in use (another clawd serve?); choose another port`, { cause: error }));
      } else {
        reject(new ClawdError('internal', `${what} could not listen on ${host}:${port}: ${error.message}`, { cause: error }));
      }
    };
    const onListening = () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Answers an upgrade we refuse with a plain HTTP response and closes the socket. */
function refuseUpgrade(socket: Duplex, error: ClawdError): void {
  const status = httpStatusOf(error);
  const body = JSON.stringify(httpErrorBody(error));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const host = options.host ?? LOOPBACK_HOST;
  const log = options.log ?? silentLogger;
  const extensionOrigin = options.extensionOrigin ?? EXTENSION_ORIGIN;
  const maxClients = options.maxClients ?? LIMITS.maxClients;
  let port = options.port;

  const router = new Router({
    relayVersion: VERSION,
    log,
    timeouts: {
      commandMs: TIMEOUTS.commandMs,
      reconnectWaitMs: TIMEOUTS.reconnectWaitMs,
      tabGraceMs: TIMEOUTS.tabGraceMs,
      eventFenceMs: TIMEOUTS.eventFenceMs,
      helloMs: TIMEOUTS.helloMs,
      extensionIdleMs: TIMEOUTS.extensionIdleMs,
      ...options.timeouts,
    },
    maxClientBufferedBytes: LIMITS.clientMaxBuffered,
  });
  const app = createRelayApp({ router, version: VERSION, token: options.token, extensionOrigin, port: () => port });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  const extensionWss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.extensionMaxPayload, perMessageDeflate: false });
  const clientWss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.clientMaxPayload, perMessageDeflate: false });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', (error) => log.debug(`upgrade socket error: ${error.message}`));
    const url = new URL(req.url ?? '/', 'http://relay');
    const path = url.pathname;
    const isExtension = path === '/extension';
    const pageMatch = path.match(/^\/devtools\/page\/([^/]+)$/);
    const isClient = path === '/cdp' || path.startsWith('/devtools/browser') || pageMatch !== null;
    if (!isExtension && !isClient) return refuseUpgrade(socket, new ClawdError('not_found', `No WebSocket endpoint at ${path}`));
    const policy: GuardPolicy = { token: options.token, port, extensionOrigin, origins: isExtension ? 'extension' : 'no-web' };
    const refused = refusal({ host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization, url }, policy);
    if (refused) {
      log.warn(`refused ${path} upgrade: ${refused.message}`);
      return refuseUpgrade(socket, refused);
    }
    if (isExtension) {
      extensionWss.handleUpgrade(req, socket, head, (ws) => router.attachExtension(ws));
      return;
    }
    if (router.clients.size >= maxClients) {
      return refuseUpgrade(socket, new ClawdError('too_many_clients', `The relay already serves ${maxClients} CDP clients`));
    }
    const page = pageMatch ? router.findTab(decodeURIComponent(pageMatch[1]!)) : undefined;
    if (pageMatch && !page) return refuseUpgrade(socket, new ClawdError('target_not_found', `No such target id: ${pageMatch[1]}`));
    clientWss.handleUpgrade(req, socket, head, (ws) => router.addClient(ws, page));
  };
  server.on('upgrade', onUpgrade);

  port = await listen(server, port, host, 'relay');
  const url = `http://${host}:${port}`;
  log.debug(`relay listening on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    router,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade);
        router.close();
        extensionWss.close();
        clientWss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
