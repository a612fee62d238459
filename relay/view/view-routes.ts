// The live view's part of the control API: the page and its script, the code-for-cookie
// exchange, the tab list the page shows, and the `/view/ws` socket. These routes (and /events)
// accept the view session as well as the token, and the control API's own origin as the only
// web origin; every other route keeps refusing web origins (control-app.ts).

import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { WebSocketServer } from 'ws';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { refuseUpgrade, requestToken, requirePerson, viewRefusal } from '../http/guards';
import type { ServerToken } from '../http/server-token';
import type { ActionLog } from '../agent/action-log';
import type { AgentService } from '../agent/agent-service';
import { tabKey } from '../agent/tabs/tab-key';
import type { ProfileService } from '../profiles/profile-service';
import type { LiveViews } from './live-views';
import { distAsset } from '../dist-assets';
import { PERSONS_VIEW, WATCH_ONLY, grantShows, sessionCookie, type ViewAuth, type ViewGrant } from './view-auth';
import { jsonBody } from '../http/request-body';

/** Routes the page loads before it has a session. */
const OPEN_PATHS = new Set(['/view', '/view/app.js', '/view/login']);
/** Routes the view session opens besides those (the token opens them too). */
const SESSION_PATHS = new Set([
  '/view/api/tabs',
  '/view/api/actions',
  '/view/api/questions',
  '/view/api/answer',
  '/view/ws',
  '/view/events',
]);

export function isViewPath(path: string): boolean {
  return OPEN_PATHS.has(path) || SESSION_PATHS.has(path);
}

export interface ViewRouteOptions {
  token: ServerToken;
  port: () => number;
  auth: ViewAuth;
}

/** The guard for the live view's routes (host, own origin, token or view session). */
export function viewGuard(options: ViewRouteOptions): MiddlewareHandler {
  return async function viewGuard(c, next) {
    const url = new URL(c.req.url);
    const refused = viewRefusal(
      {
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        authorization: c.req.header('authorization'),
        url,
        viewSession: options.auth.hasSession(c.req.header('cookie'), options.port()),
      },
      { token: options.token.value, port: options.port(), open: OPEN_PATHS.has(url.pathname) },
    );
    if (refused) return c.json(httpErrorBody(refused), httpStatusOf(refused) as 401);
    await next();
  };
}

/**
 * What the request's view may do: its session's grant, or watching only for the token (an
 * agent's credential: it may look, never act or answer as the person).
 */
export function viewGrant(
  options: ViewRouteOptions,
  headers: { cookie: string | undefined; authorization: string | undefined },
  url: URL,
): ViewGrant | undefined {
  const session = options.auth.grantOf(headers.cookie, options.port());
  if (session) return session;
  return options.token.matches(requestToken(headers.authorization, url)) ? WATCH_ONLY : undefined;
}

/** Headers for the page: nothing from elsewhere, no Referer, never framed. */
function pageHeaders(port: number): Record<string, string> {
  const self = `127.0.0.1:${port} localhost:${port}`;
  const ws = self
    .split(' ')
    .map((h) => `ws://${h}`)
    .join(' ');
  return {
    'Content-Security-Policy': `default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'; connect-src 'self' ${ws}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
}

/**
 * A signed-in link to the live view with `grant`: its one-time code in the #fragment, and the tab
 * it is bound to. The person's own link (`clawd view`) answers and acts everywhere; a hand-over's
 * link, which an agent holds, only watches its one tab.
 */
export function viewLink(
  options: ViewRouteOptions,
  grant: ViewGrant,
  ttlMs?: number,
): { url: string; code: string; expiresInMs: number } {
  const { code, expiresInMs } = options.auth.code(grant, ttlMs);
  const { tab } = grant;
  const where = tab ? `&${new URLSearchParams({ profile: tab.profile, target: tab.targetId })}` : '';
  return { url: `http://127.0.0.1:${options.port()}/view#code=${code}${where}`, code, expiresInMs };
}

type ViewRoutesOptions = ViewRouteOptions & { service: ProfileService; agent: AgentService; actions: ActionLog };

export function registerViewRoutes(app: Hono, options: ViewRoutesOptions): void {
  registerViewPage(app, options);
  registerViewApi(app, options);
}

/** The page, its script, signing in with a link's code, and the person's new links. */
function registerViewPage(app: Hono, options: ViewRoutesOptions): void {
  const { auth } = options;
  app.get('/view', (c) => c.html(distAsset('view/index.html'), 200, pageHeaders(options.port())));
  app.get('/view/app.js', (c) =>
    c.body(distAsset('view/app.js'), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      ...pageHeaders(options.port()),
    }),
  );
  // The code from the link's fragment, once, for a cookie scripts cannot read.
  app.post('/view/login', async (c) => {
    const { code } = await jsonBody(c);
    const session = typeof code === 'string' ? auth.redeem(code) : undefined;
    if (!session)
      throw new ClawdError(
        'unauthorized',
        'This link was used already or is older than a minute: run `clawd view` for a new one',
      );
    return c.json({ ok: true }, 200, {
      'Set-Cookie': sessionCookie(session.session, session.maxAgeSeconds, options.port()),
      'Cache-Control': 'no-store',
    });
  });
  // For `clawd view`: the person's (their terminal's key; an agent's token is refused), so a view
  // that may answer questions and act is never minted by an agent. Not a view route.
  app.post('/view/codes', async (c) => {
    requirePerson('opening a live view that answers questions and acts');
    return c.json(viewLink(options, PERSONS_VIEW));
  });
}

/** What the page reads and says: the tabs, the questions and their answers, a tab's actions. */
function registerViewApi(app: Hono, options: ViewRoutesOptions): void {
  const { auth, service, agent } = options;
  const grantOf = (c: Context) =>
    viewGrant(
      options,
      { cookie: c.req.header('cookie'), authorization: c.req.header('authorization') },
      new URL(c.req.url),
    ) ?? WATCH_ONLY;
  // Every running profile's tabs and who holds each: what the page lists (a view bound to one tab, that tab).
  app.get('/view/api/tabs', async (c) => {
    const grant = grantOf(c);
    return c.json({ profiles: await listedTabs(options, grant), acts: grant.acts, answers: grant.answers });
  });
  // The questions waiting for the person (ask-before), and whether this view may answer them.
  app.get('/view/api/questions', (c) => {
    const grant = grantOf(c);
    const profile = grant.tab?.profile ?? service.resolve(c.req.query('profile'));
    return c.json({
      questions: agent.view
        .questions(profile)
        .filter((q) => !grant.tab || q.targetId === undefined || q.targetId === grant.tab.targetId),
      mayAnswer: grant.answers,
    });
  });
  // The person's Allow or Deny: only from a view signed in with the person's own link (`clawd
  // view`), never with the token or a hand-over's link — an agent must not answer its own question.
  app.post('/view/api/answer', async (c) => {
    if (!auth.grantOf(c.req.header('cookie'), options.port())?.answers)
      throw new ClawdError(
        'unauthorized',
        "questions are answered by the person: in the side panel, or in the live view opened from the link `clawd view` prints (a hand-over's link only watches)",
      );
    const { id, allow } = await jsonBody(c);
    if (typeof id !== 'string' || typeof allow !== 'boolean')
      throw new ClawdError('bad_request', 'give {id, allow}: the question and true or false');
    return c.json({ answered: agent.view.answer(id, allow) });
  });
  // The tab's recent actions, shown beside the picture (new ones come as `action` events).
  app.get('/view/api/actions', async (c) => {
    const grant = grantOf(c);
    const profile = grant.tab?.profile ?? service.resolve(c.req.query('profile'));
    const targetId = grant.tab?.targetId ?? c.req.query('targetId');
    return c.json({ entries: await options.actions.query({ profile, ...(targetId ? { targetId } : {}), limit: 20 }) });
  });
}

/** Each profile the grant shows, its tabs (those the grant shows) and who holds each. */
async function listedTabs(options: ViewRoutesOptions, grant: ViewGrant) {
  const { service, agent } = options;
  const profiles = (await service.list()).filter((p) => !grant.tab || grant.tab.profile === p.profile);
  return await Promise.all(
    profiles.map(async (p) => {
      const tabs = p.running ? await service.tabs(p.profile).catch(() => []) : [];
      return {
        profile: p.profile,
        driver: p.driver,
        running: p.running,
        default: p.default,
        tabs: tabs
          .filter((t) => grantShows(grant, p.profile, t.targetId))
          .map((t) => ({ ...t, holder: agent.view.holder(tabKey(p.profile, t.targetId)) })),
      };
    }),
  );
}

/** Serves `/view/ws` upgrades on the control API's server, after the same guard. */
export function attachViewSocket(
  server: Server,
  options: ViewRouteOptions & { views: LiveViews; service: ProfileService; activity?: { begin(): () => void } },
): () => void {
  const viewOptions: ViewRouteOptions = { token: options.token, port: options.port, auth: options.auth };
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const onUpgrade = (req: import('node:http').IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/view/ws')
      return refuseUpgrade(socket, new ClawdError('not_found', `No WebSocket endpoint at ${url.pathname}`));
    const refused = viewRefusal(
      {
        host: req.headers.host,
        origin: req.headers.origin,
        authorization: req.headers.authorization,
        url,
        viewSession: options.auth.hasSession(req.headers.cookie, options.port()),
      },
      { token: options.token.value, port: options.port(), open: false },
    );
    if (refused) return refuseUpgrade(socket, refused);
    const grant =
      viewGrant(viewOptions, { cookie: req.headers.cookie, authorization: req.headers.authorization }, url) ??
      WATCH_ONLY;
    let profile: string;
    try {
      profile = grant.tab?.profile ?? options.service.resolve(url.searchParams.get('profile') ?? undefined);
    } catch (error) {
      return refuseUpgrade(socket, error instanceof ClawdError ? error : new ClawdError('bad_request', String(error)));
    }
    // A view bound to one tab (a hand-over's link) sees that tab and no other.
    const asked = url.searchParams.get('targetId') ?? undefined;
    if (grant.tab && asked !== undefined && !grantShows(grant, profile, asked))
      return refuseUpgrade(
        socket,
        new ClawdError(
          'origin_not_allowed',
          'this live view link shows one tab only: open `clawd view` for the others',
        ),
      );
    wss.handleUpgrade(req, socket, head, (ws) => {
      const end = options.activity?.begin(); // a person watching uses the server too
      ws.once('close', () => end?.());
      void options.views.serve(ws, profile, grant.tab?.targetId ?? asked, grant);
    });
  };
  server.on('upgrade', onUpgrade);
  return () => {
    server.off('upgrade', onUpgrade);
    wss.close();
  };
}
