// The origin policy on a managed profile and on a person's attached tab: with only 127.0.0.1
// allowed, nothing of `localhost` (another origin of the same test server) is loaded, however it
// is asked for — the agent API, a click, a redirect, window.open, fetch(), a raw Playwright
// goto — and the server is the judge: it records every request that reaches it for localhost.
// Lifting the rule (POST /policy) lets it load, without a restart. The action log of the run
// names every call, its element and outcome, filters by agent session, and keeps no password.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../relay/log';
import { extensionDriver, managedDriver, type AgentDriver } from '../helpers/agent-drivers';
import { CdpClient } from '../helpers/cdp-client';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startE2e } from '../helpers/session';
import { quiet, until, within } from '../helpers/waits';

interface SiteServer {
  allowed(path: string): string;
  blocked(path: string): string;
  /** A third site the rules leave alone (127.0.0.2), whose pages an allowed page frames. */
  framed(path: string): string;
  /** Paths requested on the blocked origin (localhost). */
  blockedHits: string[];
  /** WebSockets that reached the allowed origin (127.0.0.1). */
  allowedSockets: string[];
  close(): Promise<void>;
}

/**
 * One server, two origins: 127.0.0.1 (allowed) and localhost (blocked); it logs what localhost was
 * asked. It also listens on 127.0.0.2 (another site, on a port of its own) for the pages framed
 * across sites.
 */
async function startSites(): Promise<SiteServer> {
  const blockedHits: string[] = [];
  const allowedSockets: string[] = [];
  let port = 0;
  let framedPort = 0;
  const handler: http.RequestListener = (req, res) => {
    // (WebSocket upgrades are logged below: anything that reaches localhost counts.)
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.host?.startsWith('localhost')) blockedHits.push(url.pathname);
    const blockedOrigin = `http://localhost:${port}`;
    if (url.pathname === '/start') {
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>start</title>
        <a id="away" href="${blockedOrigin}/clicked">away</a>
        <button id="popup" onclick="window.open('${blockedOrigin}/popup')">popup</button>
        <p id="fetched">not yet</p>
        <button id="fetch" onclick="fetch('${blockedOrigin}/api').then(() => 'loaded', () => 'failed').then(t => document.getElementById('fetched').textContent = t)">fetch</button>
        <script>
          // A WebSocket from the page and one from a worker, to the blocked origin.
          try { new WebSocket('ws://localhost:${port}/page-socket'); } catch {}
          // The constructor the page's own WebSocket has (not the one clawd's page guard put there).
          try { new WebSocket.prototype.constructor('ws://localhost:${port}/ctor-socket'); } catch {}
          // An allowed one still opens (the browser's own rules let it through).
          new WebSocket('ws://127.0.0.1:${port}/allowed-socket');
          new Worker(URL.createObjectURL(new Blob(["try { new WebSocket('ws://localhost:${port}/worker-socket') } catch {}"], { type: 'text/javascript' })));
        </script>`);
    }
    if (url.pathname === '/redirect') return void res.writeHead(302, { location: `${blockedOrigin}/redirected` }).end();
    // A service worker and a shared worker of the allowed site that fetch what they are told to,
    // or open a WebSocket to it ('open', or 'failed' when it errs or closes first, or is refused).
    if (url.pathname === '/sw.js' || url.pathname === '/shared.js') {
      const reach = `const reach = (url) => url.startsWith('ws') ? new Promise((resolve) => {
          const socket = new WebSocket(url);
          socket.onopen = () => { resolve('open'); socket.close(); };
          socket.onerror = socket.onclose = () => resolve('failed');
        }).catch(() => 'failed') : fetch(url, { mode: 'no-cors' }).then(() => 'loaded', () => 'failed');`;
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(
        url.pathname === '/sw.js'
          ? `${reach}
             self.addEventListener('install', () => self.skipWaiting());
             self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
             self.addEventListener('message', (e) => typeof e.data === 'string' && e.waitUntil(reach(e.data).then((t) => e.source.postMessage(t))));
             // Told { later, ms }: reaches it that much later, its page gone or not (kept alive meanwhile).
             self.addEventListener('message', (e) => e.data.later && e.waitUntil(new Promise((done) => setTimeout(() => done(), e.data.ms)).then(() => reach(e.data.later))));`
          : `${reach}
             onconnect = (e) => { const port = e.ports[0]; port.onmessage = (m) => reach(m.data).then((t) => port.postMessage(t)); };`,
      );
    }
    // Workers whose script opens a WebSocket to the blocked origin the moment it runs: nothing
    // that finds a worker after it started is in time for these.
    if (url.pathname === '/sw-eager.js' || url.pathname === '/shared-eager.js') {
      const kind = url.pathname === '/sw-eager.js' ? 'sw' : 'shared';
      return void res.writeHead(200, { 'content-type': 'text/javascript' })
        .end(`try { new WebSocket('ws://localhost:${port}/${kind}-eager'); } catch {}
          ${kind === 'sw' ? "self.addEventListener('install', () => self.skipWaiting());" : 'onconnect = (e) => e.ports[0].postMessage("up");'}`);
    }
    // The page's helpers that start its site's workers (on /workers, and on /frame of another site).
    const workerHelpers = `
          const service = async () => {
            const registration = await navigator.serviceWorker.register('/sw.js');
            return registration.active ?? await new Promise((resolve) => {
              const w = registration.installing ?? registration.waiting;
              w.addEventListener('statechange', () => w.state === 'activated' && resolve(w));
            });
          };
          window.laterViaService = async (target) => {
            (await service()).postMessage({ later: target, ms: 500 });
            return 'asked';
          };
          window.viaService = async (target) => {
            const worker = await service();
            return new Promise((resolve) => {
              navigator.serviceWorker.addEventListener('message', (e) => resolve(e.data), { once: true });
              worker.postMessage(target);
            });
          };
          // name: a script and scope of its own, so each call starts a brand-new worker.
          window.eagerService = async (name = 'eager') => {
            const registration = await navigator.serviceWorker.register('/sw-eager.js?' + name, { scope: '/' + name + '/' });
            const w = registration.installing ?? registration.waiting ?? registration.active;
            if (w.state !== 'activated')
              await new Promise((resolve) => w.addEventListener('statechange', () => w.state === 'activated' && resolve()));
            return 'up';
          };
          window.eagerShared = (name = 'eager') => new Promise((resolve) => {
            new SharedWorker('/shared-eager.js?' + name).port.onmessage = (e) => resolve(e.data);
          });
          window.viaShared = (target) => new Promise((resolve) => {
            const shared = new SharedWorker('/shared.js');
            shared.port.onmessage = (e) => resolve(e.data);
            shared.port.postMessage(target);
          });
          window.forgetServices = () =>
            navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((r) => r.unregister()))).then(() => 'gone');`;
    if (url.pathname === '/workers')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>workers</title><script>${workerHelpers}</script>`);
    // An allowed page framing another site's page, which has the workers of its own site
    // (/workers' helpers) and runs the one its parent names (viaFrame('viaService', target)).
    if (url.pathname === '/framed')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>framed</title>
        <iframe id="frame" src="http://127.0.0.2:${framedPort}/frame"></iframe>
        <script>
          window.viaFrame = (name, arg) => new Promise((resolve) => {
            const frame = document.getElementById('frame').contentWindow;
            addEventListener('message', function answer(e) {
              if (e.source !== frame) return;
              removeEventListener('message', answer);
              resolve(e.data);
            });
            frame.postMessage({ name, arg }, '*');
          });
        </script>`);
    if (url.pathname === '/frame')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>frame</title>
        <script>
          ${workerHelpers}
          addEventListener('message', async (e) => {
            const answer = await window[e.data.name](e.data.arg).catch((error) => 'threw ' + error);
            parent.postMessage(answer, '*');
          });
        </script>`);
    if (url.pathname === '/login')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>login</title><label>Password <input type="password" id="pw"></label>');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>reached ${url.pathname}</title><p>reached</p>`);
  };
  const server = http.createServer(handler);
  const framedServer = http.createServer(handler);
  // Every WebSocket that reaches the server opens (its handshake is answered), a blocked one too:
  // one that fails did not get here.
  const sockets = new Set<Duplex>();
  const upgrade = (req: http.IncomingMessage, socket: Duplex) => {
    if (req.headers.host?.startsWith('localhost')) blockedHits.push(`upgrade ${req.url}`);
    else allowedSockets.push(req.url ?? '');
    sockets.add(socket);
    socket.on('error', () => {}).on('close', () => sockets.delete(socket));
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  };
  server.on('upgrade', upgrade);
  framedServer.on('upgrade', upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => framedServer.listen(0, '127.0.0.2', resolve));
  port = (server.address() as AddressInfo).port;
  framedPort = (framedServer.address() as AddressInfo).port;
  return {
    allowed: (path) => `http://127.0.0.1:${port}${path}`,
    blocked: (path) => `http://localhost:${port}${path}`,
    framed: (path) => `http://127.0.0.2:${framedPort}${path}`,
    blockedHits,
    allowedSockets,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        framedServer.closeAllConnections();
        framedServer.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The managed profile's guard lines, shown when a worker was not held (what it met, and when). */
const guardLines: string[] = [];
const guardLog: Logger = {
  debug: (line) => void (line.startsWith('policy guard') && guardLines.push(line) > 400 && guardLines.shift()),
  info: () => {},
  warn: (line) => void guardLines.push(line),
  error: (line) => void guardLines.push(line),
};

describe.each([
  ['managed', (pages: PageServer) => managedDriver(pages, { log: guardLog })],
  ['extension', extensionDriver],
] as const)('the origin policy on a %s profile', (kind, makeDriver) => {
  let pages: PageServer;
  let d: AgentDriver;
  let sites: SiteServer;
  beforeAll(async () => {
    [pages, sites] = await Promise.all([startPageServer(), startSites()]);
    d = await makeDriver(pages);
  });
  afterAll(async () => {
    await d?.close();
    await Promise.all([pages?.close(), sites?.close()]);
  });

  const act = (body: Record<string, unknown>) => d.api('POST', '/act', { targetId: d.targetId, ...body });
  const refOf = async (name: string) => {
    const snap = (await d.api('GET', `/snapshot?targetId=${d.targetId}`)).body as {
      refs: Record<string, { name: string }>;
    };
    return Object.entries(snap.refs).find(([, r]) => r.name === name)![0];
  };
  const title = () => d.inPage<string>('document.title');
  /** An agent's raw client at its door: the relay for the person's tab, the profile's port for a managed one. */
  const rawClient = async () => {
    const door =
      kind === 'extension'
        ? d.server.server.relay.url
        : (await d.api<{ cdpUrl: string }>('POST', '/start')).body.cdpUrl;
    const version = await (await fetch(`${door}/json/version?token=${d.server.token}`)).json();
    return CdpClient.connect(version.webSocketDebuggerUrl);
  };
  /** What a workers case leaves behind goes: the tab's service workers, and the policy's rules. */
  const forgetWorkers = async () => {
    await d
      .inPage('navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((r) => r.unregister())))')
      .catch(() => {});
    await d.loosen({});
  };

  it(
    'keeps every way in off a blocked origin, and lets it in once the rule is lifted',
    { timeout: 90_000 },
    async () => {
      const set = await d.api('POST', '/policy', { allow: ['http://127.0.0.1:*'] });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(set.body).toMatchObject({ profile: d.profile, source: 'profile', allow: ['http://127.0.0.1:*'] });
      expect((await d.api('GET', '/policy')).body).toMatchObject({ source: 'profile', allow: ['http://127.0.0.1:*'] });
      expect((await d.server.cli(['doctor'])).stdout).toMatch(
        new RegExp(`^✓ policy ${d.profile}: its own: allow http://127\\.0\\.0\\.1:\\*$`, 'm'),
      );

      // The agent API refuses before anything loads, naming the rule.
      const refused = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.blocked('/navigated') });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'origin_blocked',
        message: expect.stringContaining(
          `http://localhost:${new URL(sites.blocked('/')).port} is not in the allowed origins (http://127.0.0.1:*)`,
        ),
      });
      expect((await d.api('POST', '/tabs/open', { url: sites.blocked('/opened') })).status).toBe(403);

      // In the browser: a link click, a redirect, window.open and fetch() all stay off it.
      expect((await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/start') })).status).toBe(
        200,
      );
      expect((await act({ kind: 'click', ref: await refOf('fetch') })).status).toBe(200);
      await until(
        'the fetch to fail',
        async () => (await d.inPage<string>('document.getElementById("fetched").textContent')) === 'failed',
      );
      expect((await act({ kind: 'click', ref: await refOf('popup') })).status).toBe(200);
      expect((await act({ kind: 'click', ref: await refOf('away') })).status).toBe(200);
      await until('the blocked page to name the rule', async () => (await title()) === 'Blocked by clawd');
      expect(await d.inPage<string>('document.body.innerText')).toContain(
        'is not in the allowed origins (http://127.0.0.1:*)',
      );
      const redirected = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/redirect') });
      expect([200, 502, 422]).toContain(redirected.status); // the load itself may be reported as failed
      await until('the redirect to be stopped', async () => (await title()) === 'Blocked by clawd');

      // A raw CDP client gets the same refusal.
      if (kind === 'extension') {
        const browser = await chromium.connectOverCDP(d.server.server.relay.url + `/?token=${d.server.token}`);
        try {
          const page = await until('an attached page in Playwright', () => browser.contexts()[0]?.pages()[0]);
          await expect(page.goto(sites.blocked('/raw'))).rejects.toThrow(/origin_blocked|not in the allowed origins/);
        } finally {
          await browser.close();
        }
      } else {
        // The profile's CDP port, which clawd serves: the token, then the same refusal as the
        // relay's; and a load a script starts in the page is the guard's (the blocked page).
        const status = (await d.api('GET', '/')).body as { cdpUrl: string };
        const browser = await chromium.connectOverCDP(`${status.cdpUrl}/?token=${d.server.token}`);
        try {
          const page = browser.contexts()[0]!.pages()[0]!;
          await expect(page.goto(sites.blocked('/raw'))).rejects.toThrow(/origin_blocked|not in the allowed origins/);
          await page.evaluate((url) => void (location.href = url), sites.blocked('/raw'));
          await until('the blocked page', async () => (await page.title().catch(() => '')) === 'Blocked by clawd');
        } finally {
          await browser.close();
        }
      }
      await quiet(300); // anything that slipped through would have reached the server by now
      expect(sites.blockedHits).toEqual([]);
      expect(sites.allowedSockets).toContain('/allowed-socket');

      if (kind === 'extension') {
        // The person's own tabs stay theirs: a tab they open on the blocked origin loads, and so
        // does a popup of a tab they did not hand over (the rules hold only the agent's tabs).
        const browser = d.browser!;
        const own = await browser.openTab(sites.blocked('/persons-tab'));
        await until("the person's tab to load", async () =>
          (await browser.targets('page')).some(
            (t) => t.targetId === own.pageTargetId && t.title === 'reached /persons-tab',
          ),
        );
        const theirs = await browser.openTab(sites.allowed('/start'));
        const session = await browser.pageSession(theirs.pageTargetId);
        await browser.cdp.send(
          'Runtime.evaluate',
          { expression: "document.getElementById('popup').click()", userGesture: true },
          session,
        );
        await until("the person's popup to load", () => sites.blockedHits.includes('/popup'));
        const popup = await until("the person's popup tab", async () =>
          (await browser.targets('page')).find((t) => t.url === sites.blocked('/popup')),
        );
        for (const tab of [own.pageTargetId, theirs.pageTargetId, popup.targetId])
          await browser.cdp.send('Target.closeTarget', { targetId: tab });
        await quiet(300);
        // (Their page's own WebSockets and favicons reached it too: theirs, not held.)
        expect(
          new Set(sites.blockedHits.filter((hit) => !hit.startsWith('upgrade') && hit !== '/favicon.ico')),
        ).toEqual(new Set(['/persons-tab', '/popup']));
        sites.blockedHits.length = 0;
      }

      // Lifted: the same navigation loads.
      const lifted = await d.loosen({});
      expect(lifted.body).toMatchObject({ source: 'none' });
      const loaded = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.blocked('/navigated') });
      expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
      expect(sites.blockedHits.filter((p) => p !== '/favicon.ico')).toEqual(['/navigated']);

      // A password typed by a named agent session: in the log by its length only.
      const secret = `hunter-${kind}-4242`;
      await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/login'), session: 'alpha' });
      expect((await act({ kind: 'type', ref: await refOf('Password'), text: secret, session: 'alpha' })).status).toBe(
        200,
      );
      await d.api('DELETE', `/tabs/${d.targetId}/hold?session=alpha`);

      const log = (await d.api('GET', '/log?limit=100')).body as { entries: Array<Record<string, any>> };
      const kinds = log.entries.map((e) => `${e.kind} ${e.outcome}`);
      expect(kinds).toEqual(
        expect.arrayContaining([
          'policySet ok',
          'navigate origin_blocked',
          'tabOpen origin_blocked',
          'navigate ok',
          'click ok',
          'type ok',
        ]),
      );
      const refusedEntry = log.entries.find((e) => e.kind === 'navigate' && e.outcome === 'origin_blocked')!;
      expect(refusedEntry).toMatchObject({
        profile: d.profile,
        url: sites.blocked('/navigated'),
        detail: expect.stringContaining('not in the allowed origins'),
      });
      expect(log.entries.find((e) => e.kind === 'click')).toMatchObject({
        targetId: d.targetId,
        element: { ref: expect.stringMatching(/^e\d+$/), role: 'button', name: 'fetch' },
        outcome: 'ok',
        durationMs: expect.any(Number),
      });
      if (kind === 'managed') expect(kinds).toContain('blocked origin_blocked'); // what the browser itself was kept from loading
      const typed = log.entries.find((e) => e.kind === 'type')!;
      expect(typed).toMatchObject({
        session: 'alpha',
        element: { role: 'textbox', name: 'Password' },
        text: { length: secret.length },
      });
      expect(typed.text.value).toBeUndefined();
      const alpha = (await d.api('GET', '/log?session=alpha')).body.entries as Array<{
        session?: string;
        kind: string;
      }>;
      expect(alpha.map((e) => e.kind)).toEqual(['navigate', 'type']);
      const files = readdirSync(path.join(d.server.home, 'log'));
      expect(files).toEqual([expect.stringMatching(/^actions-\d{4}-\d{2}-\d{2}\.jsonl$/)]);
      const file = path.join(d.server.home, 'log', files[0]!);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).not.toContain(secret);
      const printed = await d.server.cli(['log', '--profile', d.profile, '--session', 'alpha']);
      expect(printed.stdout).toMatch(/ alpha type e\d+ textbox "Password" \(\d+ characters\) .*→ ok \d+ ms$/m);
    },
  );

  it('keeps a blocked host off in every spelling of it', { timeout: 60_000 }, async () => {
    // Two servers on 127.0.0.1: one the rules block (its port, on 127.0.0.1 and localhost),
    // one they leave alone. What reaches the second shows a spelling leads somewhere.
    const hits = { blocked: [] as string[], open: [] as string[] };
    const listen = async (into: string[]) => {
      const server = http.createServer((req, res) => {
        into.push(`${req.headers.host} ${req.url}`);
        res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end('<p>here</p>');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    };
    const [blocked, open] = await Promise.all([listen(hits.blocked), listen(hits.open)]);
    const port = (server: http.Server) => (server.address() as AddressInfo).port;
    const spellings = [
      '127.0.0.1.',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '0.0.0.0',
      '[::ffff:127.0.0.1]',
      'x@127.0.0.1',
      'x:y@127.0.0.1.',
      'localhost.',
      'a.localhost',
      'LOCALHOST',
    ];
    try {
      const rules = [`http://127.0.0.1:${port(blocked)}`, `http://localhost:${port(blocked)}`];
      expect((await d.api('POST', '/policy', { block: rules })).status).toBe(200);
      for (const host of spellings) {
        const refused = await d.api('POST', '/navigate', {
          targetId: d.targetId,
          url: `http://${host}:${port(blocked)}/navigate`,
        });
        expect(refused.body.error?.code, `${host}: ${JSON.stringify(refused.body)}`).toBe('origin_blocked');
      }
      expect((await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/start') })).status).toBe(
        200,
      );
      // From the page: a fetch, a frame and an image to each spelling of both servers.
      await d.inPage(`(() => {
        for (const host of ${JSON.stringify(spellings)})
          for (const port of [${port(blocked)}, ${port(open)}]) {
            const url = 'http://' + host + ':' + port;
            fetch(url + '/fetch', { mode: 'no-cors' }).catch(() => {});
            const frame = document.createElement('iframe');
            frame.src = url + '/frame';
            document.body.append(frame);
            new Image().src = url + '/image';
          }
      })()`);
      await until('the open server to hear from most spellings', () => hits.open.length >= 3 * 6);
      await quiet(500);
      expect(hits.blocked).toEqual([]);
      // A script's own navigation of the tab, in two spellings.
      for (const host of ['127.0.0.1.', 'x@0.0.0.0']) {
        await d.inPage(`void (location.href = 'http://${host}:${port(blocked)}/location')`);
        await until(
          `the blocked page for ${host}`,
          async () => (await d.inPage<string>('document.title')) === 'Blocked by clawd',
        );
        await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/start') });
      }
      await quiet(300);
      expect(hits.blocked).toEqual([]);
    } finally {
      await d.loosen({});
      for (const server of [blocked, open]) {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  it(
    'keeps the workers of an agent’s tab’s site off a blocked origin: service and shared',
    { timeout: 60_000 },
    async () => {
      expect((await d.api('POST', '/policy', { block: ['http://localhost:*'] })).status).toBe(200);
      try {
        const opened = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/workers') });
        expect(opened.status, JSON.stringify(opened.body)).toBe(200);
        sites.blockedHits.length = 0;
        // A site the rules leave alone: the workers reach it (they work, and they fetch).
        expect(await d.inPage<string>(`viaService(${JSON.stringify(sites.allowed('/sw-open'))})`)).toBe('loaded');
        expect(await d.inPage<string>(`viaShared(${JSON.stringify(sites.allowed('/shared-open'))})`)).toBe('loaded');
        expect(await d.inPage<string>(`viaService(${JSON.stringify(sites.blocked('/sw-fetch'))})`)).toBe('failed');
        expect(await d.inPage<string>(`viaShared(${JSON.stringify(sites.blocked('/shared-fetch'))})`)).toBe('failed');

        // Their WebSockets, which Chrome's rules let through: the extension holds the workers
        // themselves once it has found them (a managed profile's guard, from their start).
        const browser = d.browser;
        if (browser)
          await until('the extension to hold both workers', async () => {
            const workers = (await browser.targets()).filter(
              (t) =>
                (t.type === 'service_worker' || t.type === 'shared_worker') && t.url.startsWith(sites.allowed('/')),
            );
            return workers.length === 2 && workers.every((t) => t.attached);
          });
        const socket = (url: string) => JSON.stringify(url.replace(/^http/, 'ws'));
        if (browser) {
          // The extension attaches a worker a moment before it sends the rules (worker-sockets.ts;
          // once, under a whole run's load, a shared worker's socket opened in between): until a
          // blocked socket of each worker fails; those probes' own hits are forgotten, nothing else.
          await until(
            'the rules in both workers',
            async () =>
              (await d.inPage<string>(`viaService(${socket(sites.blocked('/sw-probe'))})`)) === 'failed' &&
              (await d.inPage<string>(`viaShared(${socket(sites.blocked('/shared-probe'))})`)) === 'failed',
          );
          const kept = sites.blockedHits.filter((hit) => !hit.endsWith('-probe'));
          sites.blockedHits.splice(0, sites.blockedHits.length, ...kept);
        }
        expect(await d.inPage<string>(`viaService(${socket(sites.allowed('/sw-socket'))})`)).toBe('open');
        expect(await d.inPage<string>(`viaShared(${socket(sites.allowed('/shared-socket'))})`)).toBe('open');
        expect(await d.inPage<string>(`viaService(${socket(sites.blocked('/sw-socket'))})`)).toBe('failed');
        expect(await d.inPage<string>(`viaShared(${socket(sites.blocked('/shared-socket'))})`)).toBe('failed');
        expect(sites.allowedSockets).toEqual(expect.arrayContaining(['/sw-socket', '/shared-socket']));

        // A worker that stops and starts again is held before it runs: the shared worker when its
        // only page goes and comes back, the service worker when Chrome stops it.
        const workerOf = async (type: string) =>
          (await browser?.targets(type))?.find((t) => t.url.startsWith(sites.allowed('/')));
        await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/elsewhere') });
        if (browser) await until('the shared worker to stop', async () => !(await workerOf('shared_worker')));
        await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/workers') });
        expect(await d.inPage<string>(`viaShared(${socket(sites.blocked('/shared-again'))})`)).toBe('failed');
        if (browser) {
          const worker = (await workerOf('service_worker'))!;
          await browser.cdp.send('Target.closeTarget', { targetId: worker.targetId });
          await until('the service worker to stop', async () => !(await workerOf('service_worker')));
          expect(await d.inPage<string>(`viaService(${socket(sites.blocked('/sw-again'))})`)).toBe('failed');
        }
        await quiet(300);
        expect(sites.blockedHits).toEqual([]);

        // A brand-new service worker whose first line opens a blocked WebSocket: held before it
        // runs (on the person's tab, attached paused through the tab's own session).
        expect(await d.inPage<string>('eagerService()')).toBe('up');
        await quiet(300);
        expect(sites.blockedHits, kind === 'managed' ? guardLines.slice(-20).join('\n') : '').toEqual([]);
        // A brand-new shared worker still starts and works while the extension tries to catch it
        // before its first line. Whether it is caught is a race on the person's tab (Chrome starts
        // a new shared worker unpaused whoever is attached; measured: caught in 7 of 12 runs), so
        // its first WebSocket is not asserted there; a managed profile's guard holds it always.
        expect(await d.inPage<string>('eagerShared()')).toBe('up');
        await quiet(300);
        if (kind === 'managed') expect(sites.blockedHits, guardLines.slice(-20).join('\n')).toEqual([]);
      } finally {
        await forgetWorkers();
      }
    },
  );

  it(
    'keeps the service worker of another site framed in an agent’s tab off a blocked origin',
    { timeout: 60_000 },
    async () => {
      expect((await d.api('POST', '/policy', { block: ['http://localhost:*'] })).status).toBe(200);
      const viaFrame = (name: string, arg = '') =>
        d.inPage<string>(`viaFrame(${JSON.stringify(name)}, ${JSON.stringify(arg)})`);
      const socket = (url: string) => url.replace(/^http/, 'ws');
      let framedAgain = false;
      try {
        const opened = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/framed') });
        expect(opened.status, JSON.stringify(opened.body)).toBe(200);
        sites.blockedHits.length = 0;
        // The framed site's worker (its requests are of no tab, started by the frame's site):
        // it works, reaches what the rules leave alone, and not the blocked origin.
        expect(await viaFrame('viaService', sites.framed('/frame-sw-open'))).toBe('loaded');
        expect(await viaFrame('viaService', sites.blocked('/frame-sw-fetch'))).toBe('failed');
        // Its WebSockets, which Chrome's rules let through: held once the extension holds the worker.
        const browser = d.browser;
        if (browser)
          await until('the extension to hold the framed site’s worker', async () =>
            (await browser.targets('service_worker')).some((t) => t.url.startsWith(sites.framed('/')) && t.attached),
          );
        expect(await viaFrame('viaService', socket(sites.framed('/frame-sw-socket')))).toBe('open');
        expect(await viaFrame('viaService', socket(sites.blocked('/frame-sw-socket')))).toBe('failed');
        // A brand-new worker of the framed site whose first line opens a blocked WebSocket.
        expect(await viaFrame('eagerService', 'framed-eager')).toBe('up');
        // An agent's raw client takes the worker (shown at the root, as a browser shows it) and lets
        // it go: the worker is still held.
        const raw = await rawClient();
        try {
          await raw.send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: false });
          const attached = await raw.waitForEvent(
            'Target.attachedToTarget',
            (e) =>
              e.params?.targetInfo?.type === 'service_worker' && e.params.targetInfo.url.startsWith(sites.framed('/')),
            10_000,
          );
          await raw.send('Target.detachFromTarget', { sessionId: attached.params.sessionId });
        } finally {
          await raw.close();
        }
        expect(await viaFrame('viaService', socket(sites.blocked('/frame-sw-let-go')))).toBe('failed');
        expect(await viaFrame('viaService', sites.blocked('/frame-sw-let-go-fetch'))).toBe('failed');
        // The frame goes while its worker has tasks (0.5 s later: a blocked WebSocket and fetch, and
        // last an allowed WebSocket that says the worker did them): it is held all the same. (From
        // the first task asked to the frame gone takes some 30 ms.)
        for (const later of [socket(sites.blocked('/frame-gone-socket')), sites.blocked('/frame-gone-fetch')])
          expect(await viaFrame('laterViaService', later)).toBe('asked');
        expect(await viaFrame('laterViaService', socket(sites.framed('/frame-gone-done')))).toBe('asked');
        await d.inPage("document.getElementById('frame').remove()");
        await until('the worker to do its tasks', () => sites.allowedSockets.includes('/frame-gone-done'));
        await quiet(300);
        // On a managed profile, what its guard met for each worker (held or already running) says why.
        expect(sites.blockedHits, kind === 'managed' ? guardLines.slice(-20).join('\n') : '').toEqual([]);
        // The framed site loads again after its worker had a request refused (on a managed profile
        // it did not while the guard held a service worker twice: the interception on its page's
        // session went with the page's navigation, and the frame's request with it).
        const again = await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/framed') });
        expect(again.status, JSON.stringify(again.body)).toBe(200);
        framedAgain = true;
      } finally {
        // The framed site's registration goes too, from a frame of it (the page just loaded, unless the case failed).
        if (!framedAgain)
          await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/framed') }).catch(() => {});
        await viaFrame('forgetServices').catch(() => {});
        await forgetWorkers();
      }
    },
  );

  it(
    'holds a brand-new worker to the rules when a raw client lets it run the moment it is paused',
    { timeout: 60_000 },
    async () => {
      expect((await d.api('POST', '/policy', { block: ['http://localhost:*'] })).status).toBe(200);
      const raw = await rawClient();
      // An agent's client that asks for every new target paused and lets it run at once, to get
      // ahead of whatever holds the worker to the policy (any session's word runs a paused worker:
      // measured on 156 for shared workers).
      const resumed: string[] = [];
      const unlisten = raw.onMessage((m) => {
        if (m.method !== 'Target.attachedToTarget' || !m.params?.waitingForDebugger) return;
        resumed.push(m.params.targetInfo.type);
        raw.send('Runtime.runIfWaitingForDebugger', {}, m.params.sessionId).catch(() => {});
      });
      try {
        await raw.send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
        await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/workers') });
        sites.blockedHits.length = 0;
        expect(await d.inPage<string>("eagerService('raw-service')")).toBe('up');
        await quiet(300);
        expect(sites.blockedHits, kind === 'managed' ? guardLines.slice(-20).join('\n') : '').toEqual([]);
        // A new shared worker on the person's tab is caught only as the race allows (see above).
        expect(await d.inPage<string>("eagerShared('raw-shared')")).toBe('up');
        await quiet(300);
        if (kind === 'managed') {
          expect(sites.blockedHits, guardLines.slice(-20).join('\n')).toEqual([]);
          // The client was shown both, paused, and let them run: it was not kept out, only after the rules.
          expect(resumed).toEqual(expect.arrayContaining(['service_worker', 'shared_worker']));
        }
      } finally {
        unlisten();
        await raw.close();
        await forgetWorkers();
      }
    },
  );

  it(
    'keeps a service worker’s rules when a raw client sets network conditions of its own there, or lets go of it',
    { timeout: 90_000 },
    async () => {
      expect((await d.api('POST', '/policy', { block: ['http://localhost:*'] })).status).toBe(200);
      const raw = await rawClient();
      const socket = (url: string) => JSON.stringify(url.replace(/^http/, 'ws'));
      try {
        await d.api('POST', '/navigate', { targetId: d.targetId, url: sites.allowed('/workers') });
        // The worker runs (registered and woken) before the client looks for it.
        expect(await d.inPage<string>(`viaService(${JSON.stringify(sites.allowed('/sw-up'))})`)).toBe('loaded');
        sites.blockedHits.length = 0;
        // The client looks as a browser's own client does (Playwright too): a root auto-attach,
        // where a browser shows its service workers.
        await raw.send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: false });
        const attached = await raw.waitForEvent(
          'Target.attachedToTarget',
          (e) =>
            e.params?.targetInfo?.type === 'service_worker' && e.params.targetInfo.url.startsWith(sites.allowed('/')),
          10_000,
        );
        const worker = attached.params.sessionId as string;
        // Conditions of the client's own on the worker's session: the old command (Playwright's
        // setOffline), and an empty rule list — each would replace rules set on that session.
        await raw.send(
          'Network.emulateNetworkConditions',
          { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
          worker,
        );
        expect(await d.inPage<string>(`viaService(${socket(sites.blocked('/raw-conditions'))})`)).toBe('failed');
        await raw.send('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [] }, worker);
        expect(await d.inPage<string>(`viaService(${socket(sites.blocked('/raw-no-rules'))})`)).toBe('failed');
        expect(await d.inPage<string>(`viaService(${socket(sites.allowed('/raw-allowed'))})`)).toBe('open');
        // The client lets go of the worker: it is not left without the rules.
        await raw.send('Target.detachFromTarget', { sessionId: worker });
        expect(await d.inPage<string>(`viaService(${socket(sites.blocked('/raw-detached'))})`)).toBe('failed');
        await quiet(300);
        expect(sites.blockedHits).toEqual([]);
      } finally {
        await raw.close();
        await forgetWorkers();
      }
    },
  );
});

describe('the origin policy on the person’s tab, when the extension’s worker starts again while the relay is away', () => {
  it('holds a new service worker of the tab’s site: the worker knew the policy before the relay could say it', async () => {
    const [e2e, sites] = await Promise.all([startE2e(), startSites()]);
    try {
      const tab = await e2e.browser.openTab(sites.allowed('/workers'));
      await e2e.attach(tab);
      const harness = await e2e.browser.pageSession(tab.pageTargetId);
      const inPage = async (expression: string) =>
        (
          await e2e.browser.cdp.send(
            'Runtime.evaluate',
            { expression, awaitPromise: true, returnByValue: true },
            harness,
          )
        ).result.value;
      await e2e.relay.relay.switchboard.policy.set({ block: ['http://localhost:*'] });
      await until(
        'Chrome to have the rules',
        async () =>
          (await e2e.browser.swEval<number>('chrome.declarativeNetRequest.getSessionRules().then((r) => r.length)')) >
          0,
      );
      await e2e.relay.relay.close();
      await e2e.browser.terminateWorker();
      // No client holds the tab, so no debugger event wakes a new worker: the options page does.
      await e2e.browser.optionsStatus();
      await until('a new worker', () => e2e.browser.workerTarget());
      await quiet(500); // it reads its state
      // A brand-new service worker whose first line opens a blocked WebSocket.
      expect(await inPage('eagerService()')).toBe('up');
      await quiet(300);
      expect(sites.blockedHits).toEqual([]);
    } finally {
      await Promise.all([e2e.close(), sites.close()]);
    }
  });
});

describe('the origin policy on the person’s tab, when the extension’s worker stops while it holds a new worker', () => {
  // The extension holds a new worker of a held site for a moment (its WebSocket rules first), and a
  // new shared worker's script while it catches the worker. Chrome keeps such a pause when the
  // extension's worker stops, and a new service worker paused at its start when the extension is
  // reloaded (measured): the next worker lets it go. The test makes the moment last — the old
  // worker's word to go on never reaches Chrome — and ends the worker in it.
  let e2e: Awaited<ReturnType<typeof startE2e>>;
  let sites: SiteServer;
  let inPage: (expression: string) => Promise<unknown>;
  beforeAll(async () => {
    [e2e, sites] = await Promise.all([startE2e(), startSites()]);
    const tab = await e2e.browser.openTab(sites.allowed('/workers'));
    await e2e.attach(tab);
    const harness = await e2e.browser.pageSession(tab.pageTargetId);
    inPage = async (expression) => {
      const { result, exceptionDetails } = await e2e.browser.cdp.send(
        'Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true },
        harness,
      );
      if (exceptionDetails)
        throw new Error(`in page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value;
    };
    await e2e.relay.relay.switchboard.policy.set({ block: ['http://localhost:*'] });
    await until(
      'Chrome to have the rules',
      async () =>
        (await e2e.browser.swEval<number>('chrome.declarativeNetRequest.getSessionRules().then((r) => r.length)')) > 0,
    );
  });
  afterAll(async () => {
    await Promise.all([e2e?.close(), sites?.close()]);
  });

  /** The extension's worker keeps this word to Chrome to itself from now on (until it ends). */
  const withhold = (method: string) =>
    e2e.browser.swEval(`(() => {
      globalThis.withheld = 0;
      const send = chrome.debugger.sendCommand.bind(chrome.debugger);
      chrome.debugger.sendCommand = (target, method, ...rest) => {
        if (method !== ${JSON.stringify(method)}) return send(target, method, ...rest);
        withheld++;
        return new Promise(() => {});
      };
    })()`);
  const withheld = () => e2e.browser.swEval<number>('withheld').then((n) => n > 0);

  it('lets a new service worker run, with its rules, once a new worker of the extension starts', async () => {
    await withhold('Runtime.runIfWaitingForDebugger');
    sites.blockedHits.length = 0;
    const up = inPage("eagerService('stopped-holding')");
    await until('the extension to hold the new worker', withheld);
    await e2e.browser.terminateWorker();
    await e2e.browser.optionsStatus(); // a new worker (any event of the extension's would start one)
    expect(await within(10_000, up, 'the new service worker to run')).toBe('up');
    await quiet(300);
    expect(sites.blockedHits).toEqual([]);
  });

  it('lets a new shared worker’s script go on once a new worker of the extension starts', async () => {
    await withhold('Fetch.continueRequest');
    const up = inPage("eagerShared('stopped-holding')");
    await until('the extension to hold the script', withheld);
    await e2e.browser.terminateWorker();
    await e2e.browser.optionsStatus();
    expect(await within(10_000, up, 'the new shared worker to run')).toBe('up');
  });

  it('leaves no new service worker waiting after the extension is reloaded while it held it', async () => {
    await withhold('Runtime.runIfWaitingForDebugger');
    // (The shared worker above may have opened its first WebSocket late: whether a new shared
    // worker is caught is a race, said above; it is not this case's.)
    await quiet(300);
    sites.blockedHits.length = 0;
    // Its failure is an outcome, taken at once (not left a rejection nobody handles meanwhile).
    const up = inPage("eagerService('reloaded-holding')").catch((error: Error) => error.message);
    await until('the extension to hold the new worker', withheld);
    const worker = (await e2e.browser.workerTarget())?.targetId;
    await e2e.browser.swEval('setTimeout(() => chrome.runtime.reload(), 50), true');
    await until(
      'a new extension worker',
      async () => ((await e2e.browser.workerTarget())?.targetId ?? worker) !== worker,
      20_000,
    );
    // It runs; or Chrome ends it with the reload, which leaves nothing waiting either: its
    // registration fails, said as the worker that cannot be started or (150, once in CI) as its
    // script's fetch that the reload cut.
    const outcome = await within(15_000, up, 'the new service worker to run, or its registration to fail');
    expect(outcome).toMatch(/^up$|ServiceWorker cannot be started|error occurred when fetching the script/);
    await quiet(300);
    expect(sites.blockedHits).toEqual([]);
  });
});
