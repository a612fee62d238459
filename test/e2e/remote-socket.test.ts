// A remote profile on a browser that gives only its CDP WebSocket (a Grid session's se:cdp, a
// hosted browser): nothing answers /json/* beside it, the token is in the URL's query. Tabs are
// listed, opened, focused and closed over CDP's Target domain; an agent navigates, snapshots and
// clicks as on any profile; a refused token is said as the endpoint answered it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBareCdpEndpoint, type BareCdpEndpoint } from '../helpers/bare-cdp-endpoint';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';

describe('a remote profile on a bare CDP WebSocket', () => {
  let t: TestServer;
  let pages: PageServer;
  let browser: TestBrowser;
  let endpoint: BareCdpEndpoint;
  beforeAll(async () => {
    [t, pages, browser] = await Promise.all([
      startTestServer(),
      startPageServer(),
      TestBrowser.launch({ extension: false }),
    ]);
    endpoint = await startBareCdpEndpoint(browser.wsEndpoint);
  });
  afterAll(async () => {
    await t?.close();
    await endpoint?.close();
    await browser?.close();
    await pages?.close();
  });
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    t.api<T>(method, route, { profile: 'far', ...(body !== undefined ? { body } : {}) });

  it('lists, opens, focuses and closes tabs, and an agent navigates, snapshots and clicks', async () => {
    expect((await fetch(endpoint.url.replace(/^ws/, 'http').replace(/\/session.*/, '/json/version'))).status).toBe(404);
    const created = await t.api('POST', '/profiles/create', { body: { name: 'far', cdpUrl: endpoint.url } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      driver: 'remote',
      running: true,
      browser: expect.stringMatching(/^Chrome\//),
    });
    expect(created.body.cdpUrl).not.toContain('tok3n9x'); // the token is not said back

    const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/form') });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const { targetId } = opened.body;
    expect(
      (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map((tab) => tab.targetId),
    ).toContain(targetId);
    expect((await api('POST', '/tabs/focus', { targetId })).status).toBe(200);

    const loaded = await api<{ snapshot: { snapshot: string; refs: Record<string, { name: string }> } }>(
      'POST',
      '/navigate',
      { url: pages.url('/form'), targetId, snapshot: 'full' },
    );
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const ref = Object.entries(loaded.body.snapshot.refs).find(([, r]) => r.name === 'Go')![0];
    const clicked = await api('POST', '/act', { kind: 'click', targetId, ref });
    expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
    const read = await api<{ snapshot: string }>('GET', `/snapshot?targetId=${targetId}`);
    expect(read.body.snapshot).toContain('clicked');
    // The page really changed in the browser (read back over its own CDP, not through clawd).
    const page = (await browser.targets()).find((target) => target.targetId === targetId);
    expect(page?.url).toBe(pages.url('/form'));

    expect((await t.api('DELETE', `/tabs/${targetId}`, { profile: 'far' })).status).toBe(200);
    expect(
      (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map((tab) => tab.targetId),
    ).not.toContain(targetId);
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
