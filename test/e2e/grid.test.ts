// Browsers from a real Selenium Grid 4 on loopback (a hub and two nodes of three slots; one Grid
// for the file). A remote profile on a Grid session's bare se:cdp URL works as on any CDP
// endpoint. A grid profile gives each agent session a browser of its own, asked for on first use
// over W3C WebDriver and driven over its se:cdp: four agent sessions at once each navigate,
// snapshot and click in their own, spread over both nodes; status names each; stop gives every
// one back.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pages';
import { drivesThroughRemote } from '../helpers/remote-drive';
import { chromiumCapabilities, startSeleniumGrid, type SeleniumGrid } from '../helpers/selenium-grid';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

describe('browsers from a Selenium Grid', () => {
  let t: TestServer;
  let pages: PageServer;
  let grid: SeleniumGrid;
  beforeAll(async () => {
    [t, pages, grid] = await Promise.all([
      startTestServer(),
      startPageServer(),
      startSeleniumGrid({ nodes: 2, slots: 3 }),
    ]);
  }, 90_000);
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
        body: { name: 'pool', gridUrl: grid.url, capabilities: chromiumCapabilities() },
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

      // The origin policy holds in each Grid browser: a page on an allowed origin loads a picture
      // from a blocked one, and the blocked server sees no request.
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
      try {
        expect((await api('POST', '/policy', { allow: ['http://127.0.0.1:*'] })).status).toBe(200);
        const port = (site.address() as AddressInfo).port;
        expect((await api('POST', '/navigate', { url: `http://localhost:${port}/`, session: 'ada' })).status).toBe(403);
        const shop = await api('POST', '/navigate', { url: `http://127.0.0.1:${port}/`, session: 'ada' });
        expect(shop.status, JSON.stringify(shop.body)).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(hits).toEqual([]);
      } finally {
        site.closeAllConnections(); // the browser keeps its connection alive
        await new Promise((resolve) => site.close(resolve));
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
