// The relay's HTTP face, shaped like Chrome's DevTools HTTP endpoints so CDP tools find their
// way: `/json/version` (with a WebSocket URL that already carries the token), `/json/list`,
// `/json/new`, `/json/activate/:id`, `/json/close/:id`, plus our `/extension/status`, the
// token-free health check `GET|HEAD /` and the pairing claim. Guards run first; errors share one
// JSON shape.

import { Hono, type Context } from 'hono';
import { PRODUCT_NAME } from '../../shared/defaults';
import { blockedPageHtml } from '../../shared/blocked-page';
import { PROTOCOL_VERSION } from '../../shared/protocol';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { accessGuard, classifyOrigin, hostGuard, type GuardPolicy } from '../http/guards';
import type { ServerToken } from '../http/server-token';
import type { Switchboard } from './switchboard';
import { openPersonsTab } from './client-opens';
import type { TabRecord } from './target-registry';

export interface RelayAppOptions {
  switchboard: Switchboard;
  version: string;
  token: ServerToken;
  extensionOrigins: readonly string[];
  /** The listening port, known once the server is bound (tests bind port 0). */
  port: () => number;
  /** One-time pairing codes (pairing.ts); without it, pairing is off. */
  pairing?: { claim(code: unknown): string | undefined };
}

export function createRelayApp(options: RelayAppOptions): Hono {
  const app = new Hono();
  registerOpenRoutes(app, options);
  const policy = (): GuardPolicy => ({
    token: options.token.value,
    port: options.port(),
    extensionOrigins: options.extensionOrigins,
    origins: 'no-web',
  });
  app.use('*', accessGuard(policy));
  registerJsonRoutes(app, options);
  return app;
}

/** Errors, the Host check, and the routes before the token: the health check, the pairing claim, the blocked page. */
function registerOpenRoutes(app: Hono, options: RelayAppOptions): void {
  app.onError((error, c) => c.json(httpErrorBody(error), httpStatusOf(error) as 500));
  app.notFound((c) =>
    c.json(
      httpErrorBody(new ClawdError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`)),
      404,
    ),
  );
  app.use('*', hostGuard(options.port));

  // Health: no token, no secrets. The extension's options page uses it to tell "relay not
  // running" from "wrong token" from "version mismatch".
  app.on(['GET', 'HEAD'], '/', (c) =>
    c.json({
      ok: true,
      name: PRODUCT_NAME,
      version: options.version,
      protocol: PROTOCOL_VERSION,
      extensionConnected: options.switchboard.extensionConnected,
    }),
  );

  // The extension's pair page trades a one-time code for the extension key: our extension's origin
  // only (no token, by design; the code is the credential, minted with the person's key); a web
  // page, or anything without that origin, is refused.
  app.post('/pair/claim', async (c) => {
    if (classifyOrigin(c.req.header('origin'), options.extensionOrigins) !== 'extension') {
      throw new ClawdError('origin_not_allowed', 'only the clawd extension can pair with the relay');
    }
    const body = (await c.req.json().catch(() => ({}))) as { code?: unknown };
    const key = options.pairing?.claim(body.code);
    if (!key)
      throw new ClawdError(
        'unauthorized',
        'this pairing link was used already, is older than 10 minutes, or was never issued: run `clawd pair` for a new one',
      );
    return c.json({ key, relayPort: options.port() });
  });

  // The page a person's tab shows when the origin policy blocked its load (the extension sends it
  // here: Chrome will not let an extension navigate a tab to a data: page). No token: it shows
  // only what its own query says, escaped, and runs nothing. A form the extension's hold sent here
  // (a redirect keeps its method) is shown the page too; its body is not read.
  app.on(['GET', 'POST'], '/blocked', (c) => {
    const html = blockedPageHtml(c.req.query('url') ?? '', c.req.query('reason') ?? 'blocked by the origin policy');
    return c.html(html, 200, {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'cache-control': 'no-store',
    });
  });
}

/** Where WebSocket URLs point: the Host asked at (else loopback on the relay's port). */
function wsBase(options: RelayAppOptions, c: Context): string {
  return `ws://${c.req.header('host') ?? `127.0.0.1:${options.port()}`}`;
}

function tokenQuery(options: RelayAppOptions): string {
  return `token=${encodeURIComponent(options.token.value)}`;
}

function describe(options: RelayAppOptions, c: Context, tab: TabRecord) {
  return {
    description: '',
    devtoolsFrontendUrl: '',
    id: tab.targetId,
    title: tab.info.title,
    type: tab.info.type,
    url: tab.info.url,
    webSocketDebuggerUrl: `${wsBase(options, c)}/devtools/page/${tab.targetId}?${tokenQuery(options)}`,
  };
}

/** Chrome's `/json/*` (behind the token) and our `/extension/status`. */
function registerJsonRoutes(app: Hono, options: RelayAppOptions): void {
  const { switchboard } = options;
  const version = (c: Context) => {
    const info = switchboard.browserInfo();
    return c.json({
      Browser: info?.product ?? 'Chrome (no browser has connected to the clawd relay yet)',
      'Protocol-Version': info?.protocolVersion ?? '1.3',
      'User-Agent': info?.userAgent ?? '',
      'V8-Version': '',
      'WebKit-Version': '',
      webSocketDebuggerUrl: `${wsBase(options, c)}/cdp?${tokenQuery(options)}`,
    });
  };
  app.get('/json/version', version);
  app.get('/json/version/', version);

  const list = (c: Context) => c.json(switchboard.tabs().map((tab) => describe(options, c, tab)));
  for (const path of ['/json', '/json/', '/json/list', '/json/list/']) app.get(path, list);

  registerTabRoutes(app, options);

  app.get('/extension/status', (c) =>
    c.json({
      connected: switchboard.extensionConnected,
      extensionVersion: switchboard.extensionVersion ?? null,
      connectedAt: switchboard.extensionConnectedAt ? new Date(switchboard.extensionConnectedAt).toISOString() : null,
      browser: switchboard.browserInfo()?.product ?? null,
      attachedTabs: switchboard.tabs().length,
      clients: switchboard.clientCount,
    }),
  );
}

/** `/json/activate/:id`, `/json/close/:id` and `/json/new`: a tab acted on, or opened. */
function registerTabRoutes(app: Hono, options: RelayAppOptions): void {
  const { switchboard } = options;
  const tabParam = (c: Context): TabRecord => {
    const id = c.req.param('id') ?? '';
    const tab = switchboard.findTab(id);
    if (!tab) throw new ClawdError('target_not_found', `No such target id: ${id}`);
    return tab;
  };
  app.on(['GET', 'PUT'], '/json/activate/:id', async (c) => {
    await switchboard.activateTab(tabParam(c));
    return c.text('Target activated');
  });
  app.on(['GET', 'PUT'], '/json/close/:id', async (c) => {
    await switchboard.closeTab(tabParam(c));
    return c.text('Target is closing');
  });

  let oneRequestClients = 0;
  app.put('/json/new', async (c) => {
    const url = newTabUrl(new URL(c.req.url));
    // A client of one request: asked what a socket's Target.createTarget is (a new site, when the
    // person asks before one), its tab watched as a socket client's (client-opens.ts), and then
    // gone — its watch stays on the tab, as a gone socket client's does. Its id is none of theirs.
    const client = { id: -++oneRequestClients, name: 'json-new', internal: false };
    try {
      await switchboard.gate?.before(client, undefined, 'Target.createTarget', { url });
      const tab = await openPersonsTab(switchboard, client, url, '');
      return c.json(describe(options, c, tab));
    } finally {
      switchboard.gate?.forget(client);
    }
  });
  app.get('/json/new', () => {
    throw new ClawdError(
      'method_not_allowed',
      'Using unsafe HTTP verb GET to invoke /json/new. This action supports only PUT verb.',
    );
  });
}

/**
 * The URL to open: `?url=<encoded>`, or Chrome's own form `/json/new?<url>` (the whole query).
 * A token passed in the query is not part of the URL.
 */
export function newTabUrl(requestUrl: URL): string {
  const explicit = requestUrl.searchParams.get('url');
  const raw =
    explicit ??
    decodeURIComponent(
      requestUrl.search
        .slice(1)
        .split('&')
        .filter((part) => !part.startsWith('token='))
        .join('&'),
    );
  if (raw === '') return 'about:blank';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ClawdError('bad_request', `Not a URL: ${JSON.stringify(raw)} (use /json/new?url=<encoded absolute URL>)`);
  }
  if (url.protocol === 'javascript:') throw new ClawdError('bad_request', 'javascript: URLs cannot be opened as tabs');
  return url.href;
}
