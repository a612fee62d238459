// Browsers from a real Selenium Grid 4 on loopback (two nodes of three slots of the file's own, on
// the run's hub: shared-grid.ts; sessions ask for this file's pool, so killing a node kills only
// this file's browsers). A remote profile on a Grid session's bare se:cdp URL works as on any CDP
// endpoint. A grid profile gives each agent session a browser of its own, asked for on first use
// over W3C WebDriver and driven over its se:cdp: four agent sessions at once each navigate,
// snapshot and click in their own, spread over both nodes (a session's browser traces and exports
// its storage state too); the origin policy holds in each; status names each; stop gives every
// one back. A Grid behind basic auth: its browsers and the policy guard carry the credentials
// given in its URL, and wrong ones are said. A node killed under its agents: browser_gone, then a
// new browser.

import { statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startBasicAuthProxy } from '../helpers/basic-auth-proxy';
import { drivesThroughRemote } from '../helpers/remote-drive';
import { startSeleniumGrid, type SeleniumGrid } from '../helpers/selenium-grid';
import { sharedGrid } from '../helpers/shared-grid';
import { startTestServer, type TestServer } from '../helpers/server';
import { quiet, until } from '../helpers/waits';

/** A site on 127.0.0.1 whose page loads a picture from localhost; `hits` are the requests localhost got. */
async function startShop(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const site = http.createServer((req, res) => {
    if (req.headers.host?.startsWith('localhost')) hits.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><title>shop</title><img src="http://localhost:${(site.address() as AddressInfo).port}/pixel.png" alt="pixel">`,
      );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    port: (site.address() as AddressInfo).port,
    hits,
    async close() {
      site.closeAllConnections(); // the browser keeps its connection alive
      await new Promise((resolve) => site.close(resolve));
    },
  };
}

/**
 * The origin policy (127.0.0.1 only) holds in the session's Grid browser: localhost is refused
 * by name, and a page on 127.0.0.1 loads while the picture it asks of localhost never reaches it.
 */
async function expectPolicyHolds(
  api: <T = any>(method: string, route: string, body?: unknown) => Promise<{ status: number; body: T }>,
  shop: { port: number; hits: string[] },
  session: string,
): Promise<void> {
  const refused = await api('POST', '/navigate', { url: `http://localhost:${shop.port}/`, session });
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  const loaded = await api('POST', '/navigate', { url: `http://127.0.0.1:${shop.port}/`, session, timeoutMs: 60_000 });
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  await quiet(500);
  expect(shop.hits).toEqual([]);
}

describe('browsers from a Selenium Grid', () => {
  let t: TestServer;
  let pages: PageServer;
  let grid: SeleniumGrid;
  beforeAll(async () => {
    [t, pages, grid] = await Promise.all([
      startTestServer(),
      startPageServer(),
      sharedGrid().then(({ hub }) => startSeleniumGrid({ nodes: 2, slots: 3, hub })),
    ]);
  }, 150_000);
  afterAll(async () => {
    await t?.close();
    await grid?.close();
    await pages?.close();
  });
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    t.api<T>(method, route, { profile: 'pool', ...(body !== undefined ? { body } : {}) });

  it(
    'a remote profile on a Grid session’s bare se:cdp: tabs, navigate, snapshot, click',
    { timeout: 60_000 },
    async () => {
      const session = await grid.newSession();
      try {
        expect(session.cdp).toMatch(new RegExp(`^${grid.url.replace('http', 'ws')}/session/${session.id}/se/cdp$`));
        await drivesThroughRemote(t, pages, 'grid-session', session.cdp);
      } finally {
        await grid.endSession(session.id);
      }
      await until(
        'the Grid to free the slot',
        async () => (await grid.status()).nodes.every((node) => node.sessions === 0),
        10_000,
      );
    },
  );

  it(
    'gives four agent sessions a browser each, over both nodes, and stop gives them back',
    { timeout: 120_000 },
    async () => {
      const created = await t.api('POST', '/profiles/create', {
        person: true,
        body: { name: 'pool', gridUrl: grid.url, capabilities: grid.capabilities },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ driver: 'grid', running: true, browsers: [] });

      const agents = ['ada', 'grace', 'alan', 'edsger'];
      const tabs = await Promise.all(
        agents.map(async (session) => {
          const loaded = await api<{ targetId: string; snapshot: { refs: Record<string, { name: string }> } }>(
            'POST',
            '/navigate',
            { url: pages.url(`/form?${session}`), session, snapshot: 'full', timeoutMs: 60_000 },
          );
          expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
          const { targetId } = loaded.body;
          const ref = Object.entries(loaded.body.snapshot.refs).find(([, r]) => r.name === 'Name')![0];
          expect((await api('POST', '/act', { kind: 'type', targetId, session, ref, text: session })).status).toBe(200);
          const go = Object.entries(loaded.body.snapshot.refs).find(([, r]) => r.name === 'Go')![0];
          expect((await api('POST', '/act', { kind: 'click', targetId, session, ref: go })).status).toBe(200);
          const seen = await api<{ snapshot: string }>('GET', `/snapshot?targetId=${targetId}&session=${session}`);
          expect(seen.body.snapshot).toContain(`clicked ${session}`);
          return targetId;
        }),
      );
      expect(new Set(tabs).size).toBe(4);

      // Four Grid sessions, on both nodes; status says whose each is and where.
      const onGrid = await grid.status();
      expect(onGrid.nodes.reduce((sum, node) => sum + node.sessions, 0)).toBe(4);
      expect(onGrid.nodes.every((node) => node.sessions >= 1)).toBe(true);
      const status = await api<{ browsers: Array<{ session: string; gridSession: string; node: string | null }> }>(
        'GET',
        '/',
      );
      expect(status.body.browsers.map((b) => b.session).sort()).toEqual([...agents].sort());
      expect(new Set(status.body.browsers.map((b) => b.node)).size).toBe(2);
      // Every agent's tab is listed under the profile, each in its own browser.
      const listed = (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map(
        (tab) => tab.targetId,
      );
      for (const id of tabs) expect(listed).toContain(id);
      // A session's browser has what any profile's has: a trace of its tab, its storage state.
      const [, graceTab] = tabs;
      const traced = { targetId: graceTab, session: 'grace' };
      expect((await api('POST', '/trace/start', traced)).status).toBe(200);
      expect((await api('POST', '/navigate', { ...traced, url: pages.url('/form?traced') })).status).toBe(200);
      const trace = await api('POST', '/trace/stop', traced);
      expect(trace.status, JSON.stringify(trace.body)).toBe(200);
      expect(statSync(trace.body.path).size).toBeGreaterThan(1_000);
      const storage = await api('GET', `/storage-state?targetId=${graceTab}&session=grace`);
      expect(storage.status, JSON.stringify(storage.body)).toBe(200);
      expect(storage.body.path).toMatch(/\.json$/);

      // The origin policy holds in each Grid browser: a page on an allowed origin loads a picture
      // from a blocked one, and the blocked server sees no request.
      const shop = await startShop();
      try {
        expect((await api('POST', '/policy', { allow: ['http://127.0.0.1:*'] })).status).toBe(200);
        await expectPolicyHolds(api, shop, 'ada');
      } finally {
        await shop.close();
      }

      const stopped = await api('POST', '/stop');
      expect(stopped.status).toBe(200);
      await until(
        'the Grid to have no session',
        async () => (await grid.status()).nodes.every((n) => n.sessions === 0),
        15_000,
      );
    },
  );

  it(
    'works through a Grid behind basic auth — its browsers and the policy guard with the credentials — and says so when they are wrong',
    { timeout: 90_000 },
    async () => {
      const proxy = await startBasicAuthProxy(grid.url, 'clawd', 's3cret:pass');
      const shop = await startShop();
      const on =
        (profile: string) =>
        <T = any>(method: string, route: string, body?: unknown) =>
          t.api<T>(method, route, { profile, ...(body !== undefined ? { body } : {}) });
      try {
        // Wrong credentials: the Grid's 401 said, nothing made.
        const wrong = await t.api('POST', '/profiles/create', {
          person: true,
          body: { name: 'locked', gridUrl: proxy.urlWith('clawd', 'guess'), capabilities: grid.capabilities },
        });
        expect(wrong.status, JSON.stringify(wrong.body)).toBe(201);
        expect(wrong.body).toMatchObject({ running: false, hint: expect.stringContaining('401') });
        const refused = await on('locked')('POST', '/navigate', {
          url: `http://127.0.0.1:${shop.port}/`,
          session: 'x',
        });
        expect(refused.status).not.toBe(200);
        expect(refused.body.error.message).toContain('401');
        expect(JSON.stringify(refused.body)).not.toContain('guess'); // the password is never said back
        const refusedBefore = proxy.refused.length;
        expect(refusedBefore).toBeGreaterThan(0);

        // The right ones: WebDriver, the browser's se:cdp and the policy guard's socket all carry them.
        const created = await t.api('POST', '/profiles/create', {
          person: true,
          body: { name: 'vault', gridUrl: proxy.urlWith('clawd', 's3cret:pass'), capabilities: grid.capabilities },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body).toMatchObject({ driver: 'grid', running: true });
        expect(created.body.cdpUrl).not.toContain('s3cret');
        expect((await on('vault')('POST', '/policy', { allow: ['http://127.0.0.1:*'] })).status).toBe(200);
        await expectPolicyHolds(on('vault'), shop, 'ada');
        expect(proxy.refused.slice(refusedBefore)).toEqual([]);
        expect((await on('vault')('POST', '/stop')).status).toBe(200);
      } finally {
        // Its browser given back even when a check failed: the next test counts the Grid's slots.
        await on('vault')('POST', '/stop').catch(() => {});
        await shop.close();
        await proxy.close();
      }
    },
  );

  it(
    'answers within 10 s naming the Grid session when a node dies under its agents, and their next call gets a new browser',
    { timeout: 120_000 },
    async () => {
      // Three agents on six slots: whichever node holds two or more dies, the other has room for them.
      const agents = ['kay', 'barbara', 'donald'];
      const tabs = await Promise.all(
        agents.map(async (session) => {
          const loaded = await api<{ targetId: string }>('POST', '/navigate', {
            url: pages.url('/form'),
            session,
            timeoutMs: 60_000,
          });
          expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
          return loaded.body.targetId;
        }),
      );
      const { browsers } = (
        await api<{ browsers: Array<{ session: string; gridSession: string; node: string | null }> }>('GET', '/')
      ).body;
      const nodes = [...new Set(browsers.map((b) => b.node!))];
      const victimNode = nodes.find((node) => browsers.filter((b) => b.node === node).length >= 2)!;
      const victims = browsers.filter((b) => b.node === victimNode);
      expect(victims.length).toBeGreaterThanOrEqual(2);
      grid.nodes.find((node) => node.url === victimNode)!.kill();
      await Promise.all(
        victims.map(async (victim) => {
          const targetId = tabs[agents.indexOf(victim.session)]!;
          const began = Date.now();
          const answer = await api('GET', `/snapshot?targetId=${targetId}&session=${victim.session}`);
          expect(answer.status, JSON.stringify(answer.body)).toBe(410);
          expect(Date.now() - began).toBeLessThan(10_000);
          expect(answer.body.error.code).toBe('browser_gone');
          expect(answer.body.error.message).toContain(victim.gridSession);
          const next = await api('POST', '/navigate', {
            url: pages.url('/form'),
            session: victim.session,
            timeoutMs: 60_000,
          });
          expect(next.status, JSON.stringify(next.body)).toBe(200);
        }),
      );
      const after = (
        await api<{ browsers: Array<{ session: string; gridSession: string; node: string | null }> }>('GET', '/')
      ).body.browsers;
      expect(after).toHaveLength(3);
      for (const victim of victims) {
        const now = after.find((b) => b.session === victim.session)!;
        expect(now.gridSession).not.toBe(victim.gridSession);
        expect(now.node).not.toBe(victimNode);
      }
      expect((await api('POST', '/stop')).status).toBe(200);
    },
  );
});
