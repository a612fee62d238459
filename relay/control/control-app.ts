// The control API (hono) for agents and the `clawd` CLI: the guards, then every operation of the
// table (operation-routes.ts), the profile admin routes (create, delete, reset), pairing codes,
// `/events`, the live view's routes and `/mcp`. Errors map in one place (relay/errors.ts). Every
// route takes `?profile=` (default: browser.defaultProfile) and the token; `GET|HEAD /` without a
// token is a bare health check, with the token it is the profile's status. The person's routes
// (profiles, pairing, rotation, the live view's answering link, loosening the policy) also need
// the person's key, which only their terminal's commands send (`X-Clawd-Person`). A mutating request
// from a web page (a web Origin, or Sec-Fetch-Site: cross-site) is refused, except the live
// view's own page on its own routes (relay/view/view-routes.ts).

import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { accessGuard, hostGuard, requestToken, requirePerson, PERSON_HEADER, type GuardPolicy } from '../http/guards';
import type { ServerToken } from '../http/server-token';
import type { ServerKeys } from '../http/server-keys';
import { keyProofSync } from '../http/key-proofs';
import { isNonce } from '../../shared/key-proof';
import { asCaller } from '../caller-authority';
import { generateToken } from '../home/config-store';
import type { AgentService } from '../agent/agent-service';
import type { EventBus } from '../events/event-bus';
import type { ProfileService } from '../profiles/profile-service';
import { McpHttpSessions } from '../mcp/mcp-http';
import type { Invoker } from '../operations/control-client';
import { jsonBody } from '../http/request-body';
import { registerOperationRoutes } from './operation-routes';
import type { ViewAuth } from '../view/view-auth';
import type { Pairing } from '../pairing/pairing';
import type { ActionLog } from '../agent/action-log';
import { isViewPath, registerViewRoutes, viewGrant, viewGuard } from '../view/view-routes';
import type { ClientActivity } from './client-activity';

export interface ControlAppOptions {
  service: ProfileService;
  agent: AgentService;
  events: EventBus;
  token: ServerToken;
  /** The person's key (their terminal's person commands) and the extension's. */
  keys: ServerKeys;
  version: string;
  extensionOrigins: readonly string[];
  port: () => number;
  viewAuth: ViewAuth;
  pairing: Pairing;
  /** Carries out the operations of the table in this process (operation-handlers.ts). */
  invoker: Invoker;
  actions: ActionLog;
  /** Who uses the server now (requests, /events streams): a server `clawd mcp` started stays while anyone does. */
  activity: ClientActivity;
  /** The home this server serves: said by the health check, so a client of another home knows it is not its server. */
  home: string;
}

/** Events a subscriber of /events may fall behind by before its stream is ended. */
const EVENTS_QUEUE = 1_000;

/** Mutating requests a browser marks as coming from another site are refused (CSRF). */
function crossSiteGuard(): MiddlewareHandler {
  return async function crossSiteGuard(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.header('sec-fetch-site') === 'cross-site') {
      const error = new ClawdError('origin_not_allowed', 'Cross-site requests are refused');
      return c.json(httpErrorBody(error), 403);
    }
    await next();
  };
}

export function createControlApp(options: ControlAppOptions): { app: Hono; mcp: McpHttpSessions } {
  const app = new Hono();
  registerFront(app, options);
  registerGuards(app, options);
  registerEvents(app, options);
  registerPersonRoutes(app, options);
  registerOperationRoutes(app, options.invoker);
  registerViewRoutes(app, {
    token: options.token,
    port: options.port,
    auth: options.viewAuth,
    service: options.service,
    agent: options.agent,
    actions: options.actions,
  });
  // MCP's tools call the same operations in this process, so they answer exactly as HTTP and the CLI do.
  const mcp = new McpHttpSessions(options.invoker);
  app.all('/mcp', async (c) => mcp.handle(c.req.raw, c.req.query('profile')));

  return { app, mcp };
}

/** What comes before the guards: errors, counting who uses the server, the Host check, the health check and the proof. */
function registerFront(app: Hono, options: ControlAppOptions): void {
  const { token } = options;
  app.onError((error, c) => c.json(httpErrorBody(error), httpStatusOf(error) as 500));
  app.use('*', async function countRequest(c, next) {
    // Asking who answers (the health check, the proof, with no credential) is not using the
    // server: a program that polls it must not keep a `clawd mcp`'s server from stopping.
    const url = new URL(c.req.url);
    if ((url.pathname === '/' || url.pathname === '/proof') && !requestToken(c.req.header('authorization'), url))
      return next();
    const end = options.activity.begin();
    try {
      await next();
    } finally {
      end();
    }
  });
  app.notFound((c) =>
    c.json(
      httpErrorBody(new ClawdError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`)),
      404,
    ),
  );
  app.use('*', hostGuard(options.port));

  app.on(['GET', 'HEAD'], '/', async (c, next) => {
    const authorized = token.matches(requestToken(c.req.header('authorization'), new URL(c.req.url)));
    // The home too: a client of another home (the default port taken by another home's server)
    // must not take this server for its own (its token would be "wrong"). Loopback only, and no
    // web page can read it (no CORS).
    if (!authorized) return c.json({ ok: true, name: PRODUCT_NAME, version: options.version, home: options.home });
    await next();
  });
  // The server proves it knows the token and the person's key before clawd's own clients send
  // them (operations/control-client.ts): a program that took the port while clawd was down
  // cannot answer, and learns nothing. For the nonce the client chose, on this server's own port.
  app.get('/proof', (c) => {
    const nonce = c.req.query('nonce');
    if (!isNonce(nonce)) throw new ClawdError('bad_request', 'give ?nonce= (16 to 64 base64url characters)');
    const port = options.port();
    return c.json({
      port,
      agent: keyProofSync(token.value, 'agent', port, nonce),
      person: keyProofSync(options.keys.person, 'person', port, nonce),
    });
  });
}

/** The guards every later route is behind: the token (or the live view's cookie), no cross-site, whose call, the body's size. */
function registerGuards(app: Hono, options: ControlAppOptions): void {
  const policy = (): GuardPolicy => ({
    token: options.token.value,
    port: options.port(),
    extensionOrigins: options.extensionOrigins,
    origins: 'no-web',
  });
  // The live view's routes take its session cookie and its own origin; every other route refuses web origins.
  const guardAgents = accessGuard(policy);
  const guardView = viewGuard({ token: options.token, port: options.port, auth: options.viewAuth });
  app.use(
    '*',
    (c, next) => (isViewPath(new URL(c.req.url).pathname) ? guardView(c, next) : guardAgents(c, next)),
    crossSiteGuard(),
    // Whose call: the person's terminal adds its key to the token; everything else is an agent's.
    (c, next) => asCaller(options.keys.personMatches(c.req.header(PERSON_HEADER)) ? 'person' : 'agent', () => next()),
    bodyLimit({
      maxSize: 1024 * 1024,
      onError: (c) => c.json(httpErrorBody(new ClawdError('bad_request', 'request body over 1 MiB')), 400),
    }),
  );
}

// What happened, as server-sent events, so a UI needs no polling. A subscriber that falls more
// than EVENTS_QUEUE behind is dropped (its stream ends) rather than queued for without bound.
// The live view reads it at /view/events, under the path its session cookie is limited to.
function registerEvents(app: Hono, options: ControlAppOptions): void {
  const { token } = options;
  app.on('GET', ['/events', '/view/events'], (c) => {
    // A live view bound to one tab (a hand-over's link) hears only of that tab.
    const bound =
      new URL(c.req.url).pathname === '/view/events'
        ? viewGrant(
            { token, port: options.port, auth: options.viewAuth },
            { cookie: c.req.header('cookie'), authorization: c.req.header('authorization') },
            new URL(c.req.url),
          )?.tab
        : undefined;
    const heard = (event: { profile?: string; targetId?: string }) =>
      !bound || (event.profile === bound.profile && event.targetId === bound.targetId);
    return streamSSE(c, (stream) => streamEvents(stream, options, heard));
  });
}

/** One subscriber's stream: every event it hears, in order, until it aborts or falls too far behind. */
async function streamEvents(
  stream: SSEStreamingApi,
  options: ControlAppOptions,
  heard: (event: { profile?: string; targetId?: string }) => boolean,
): Promise<void> {
  const queue: Array<{ event: string; data: string }> = [];
  let wake: (() => void) | undefined;
  const end = options.activity.begin(); // an open stream is someone using the server (a `clawd mcp`)
  stream.onAbort(end);
  const unsubscribe = options.events.subscribe((event) => {
    if (!heard(event as { profile?: string; targetId?: string })) return;
    queue.push({ event: event.type, data: JSON.stringify(event) });
    wake?.();
  });
  stream.onAbort(() => wake?.());
  try {
    await stream.writeSSE({ event: 'ready', data: '{}' });
    while (!stream.aborted && queue.length <= EVENTS_QUEUE) {
      const next = queue.shift();
      if (next !== undefined) {
        await stream.writeSSE(next);
        continue;
      }
      // Idle: a comment now and then keeps proxies and clients from timing out.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 15_000);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
      if (queue.length === 0 && !stream.aborted) await stream.write(': idle\n\n');
    }
  } finally {
    unsubscribe();
    end();
  }
}

// The person's own routes (their terminal's key): the profiles themselves, pairing a browser,
// a new token. No operation, no MCP tool, and an agent's token alone is refused (person_only).
function registerPersonRoutes(app: Hono, options: ControlAppOptions): void {
  const { service, token } = options;
  const profile = (c: Context) => service.resolve(c.req.query('profile'));
  app.post('/profiles/create', async (c) => {
    requirePerson('creating a profile');
    service.resolve(undefined);
    return c.json(await service.create(await jsonBody(c)), 201);
  });
  app.delete('/profiles/:name', async (c) => {
    requirePerson('deleting a profile');
    return c.json(await service.remove(service.resolve(c.req.param('name'))));
  });
  // For `clawd pair`: links to the extension's pair page with a fresh one-time code.
  app.post('/pair/codes', (c) => {
    requirePerson('pairing a browser');
    return c.json(options.pairing.links());
  });
  app.post('/reset-profile', async (c) => {
    requirePerson('resetting a profile');
    return c.json(await service.reset(profile(c)));
  });
  // `clawd token --rotate`. Saved first; the old token is refused from the answer on, raw CDP
  // clients that used it are cut; the extension key is replaced too, and the extension goes until
  // the native host or a new pairing brings it the new one.
  app.post('/token/rotate', async (c) => {
    requirePerson('rotating the token');
    const next = generateToken();
    await token.rotate(next);
    await options.keys.rotateExtension();
    return c.json({ token: next });
  });
}
