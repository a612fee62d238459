// A remote profile on a browser that gives only its CDP WebSocket: nothing answers /json/* beside
// it, a token may be in the URL's query. Once through a proxy of the test's own (a tokened socket,
// 404 elsewhere), once on a real Selenium Grid 4 on loopback (a hub and two nodes) through a Grid
// session's `se:cdp`: tabs are listed, opened, focused and closed over CDP's Target domain; an
// agent navigates, snapshots and clicks as on any profile; a refused token is said as the
// endpoint answered it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBareCdpEndpoint, type BareCdpEndpoint } from '../helpers/bare-cdp-endpoint';
import { CdpClient } from '../helpers/cdp-client';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startSeleniumGrid, type SeleniumGrid } from '../helpers/selenium-grid';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

let t: TestServer;
let pages: PageServer;
beforeAll(async () => {
  [t, pages] = await Promise.all([startTestServer(), startPageServer()]);
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

/** Creates a remote profile on `cdpUrl`; then tabs, navigate, snapshot, click and close through it. */
async function drivesThrough(profile: string, cdpUrl: string): Promise<void> {
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    t.api<T>(method, route, { profile, ...(body !== undefined ? { body } : {}) });
  const created = await t.api('POST', '/profiles/create', { body: { name: profile, cdpUrl } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ driver: 'remote', running: true, browser: expect.stringMatching(/^Chrome\//) });

  const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/form') });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const { targetId } = opened.body;
  const listed = async () =>
    (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map((tab) => tab.targetId);
  expect(await listed()).toContain(targetId);
  expect((await api('POST', '/tabs/focus', { targetId })).status).toBe(200);

  const loaded = await api<{ snapshot: { refs: Record<string, { name: string }> } }>('POST', '/navigate', {
    url: pages.url('/form'),
    targetId,
    snapshot: 'full',
  });
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  const ref = Object.entries(loaded.body.snapshot.refs).find(([, r]) => r.name === 'Go')![0];
  const clicked = await api('POST', '/act', { kind: 'click', targetId, ref });
  expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
  // The page really changed in the browser: read back over a CDP connection of the test's own.
  const reader = await CdpClient.connect(cdpUrl);
  try {
    const { sessionId } = await reader.send('Target.attachToTarget', { targetId, flatten: true });
    const { result } = await reader.send(
      'Runtime.evaluate',
      { expression: 'document.getElementById("out").textContent', returnByValue: true },
      sessionId,
    );
    expect(result.value).toBe('clicked ');
  } finally {
    await reader.close();
  }

  expect((await t.api('DELETE', `/tabs/${targetId}`, { profile })).status).toBe(200);
  expect(await listed()).not.toContain(targetId);
}

describe('a remote profile on a bare CDP WebSocket', () => {
  let browser: TestBrowser;
  let endpoint: BareCdpEndpoint;
  beforeAll(async () => {
    browser = await TestBrowser.launch({ extension: false });
    endpoint = await startBareCdpEndpoint(browser.wsEndpoint);
  });
  afterAll(async () => {
    await endpoint?.close();
    await browser?.close();
  });

  it('lists, opens, focuses and closes tabs, and an agent navigates, snapshots and clicks', async () => {
    expect((await fetch(endpoint.url.replace(/^ws/, 'http').replace(/\/session.*/, '/json/version'))).status).toBe(404);
    await drivesThrough('far', endpoint.url);
    const profiles = await t.api<{ profiles: Array<{ profile: string; cdpUrl: string }> }>('GET', '/profiles');
    const far = profiles.body.profiles.find((p) => p.profile === 'far')!;
    expect(far.cdpUrl).toMatch(/\?token=…$/); // the token is not said back
  });

  it('says what the endpoint answered when it refuses the token', async () => {
    const created = await t.api('POST', '/profiles/create', {
      body: { name: 'refused', cdpUrl: endpoint.urlWithToken('wrong') },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ running: false });
    expect(created.body.hint).toMatch(/answered HTTP 401: bad or missing token/);
    const tabs = await t.api('GET', '/tabs', { profile: 'refused' });
    expect(tabs.status).toBe(409);
    expect(tabs.body.error.message).toMatch(/remote profile refused: .*answered HTTP 401: bad or missing token/);
    expect(tabs.body.error.message).not.toContain('wrong');
  });
});

describe('a remote profile on a Selenium Grid session’s se:cdp', () => {
  let grid: SeleniumGrid;
  beforeAll(async () => {
    grid = await startSeleniumGrid({ nodes: 2 });
  }, 90_000);
  afterAll(async () => {
    await grid?.close();
  });

  it(
    'lists, opens, focuses and closes tabs, and an agent navigates, snapshots and clicks',
    { timeout: 60_000 },
    async () => {
      const session = await grid.newSession();
      try {
        expect(session.cdp).toMatch(new RegExp(`^${grid.url.replace('http', 'ws')}/session/${session.id}/se/cdp$`));
        await drivesThrough('grid', session.cdp);
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
});
