// A remote profile on a browser that gives only its CDP WebSocket: nothing answers /json/* beside
// it, a token is in the URL's query — here a proxy of the test's own (a tokened socket, 404
// elsewhere; grid.test.ts does the same through a real Grid session's se:cdp). Tabs are listed,
// opened, focused and closed over CDP's Target domain; an agent navigates, snapshots and clicks as
// on any profile; a refused token is said as the endpoint answered it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBareCdpEndpoint, type BareCdpEndpoint } from '../helpers/bare-cdp-endpoint';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { drivesThroughRemote } from '../helpers/remote-drive';
import { startTestServer, type TestServer } from '../helpers/server';

let t: TestServer;
let pages: PageServer;
beforeAll(async () => {
  [t, pages] = await Promise.all([startTestServer(), startPageServer()]);
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

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
    await drivesThroughRemote(t, pages, 'far', endpoint.url);
    const profiles = await t.api<{ profiles: Array<{ profile: string; cdpUrl: string }> }>('GET', '/profiles');
    const far = profiles.body.profiles.find((p) => p.profile === 'far')!;
    expect(far.cdpUrl).toMatch(/\?token=…$/); // the token is not said back
  });

  it('says what the endpoint answered when it refuses the token', async () => {
    const created = await t.api('POST', '/profiles/create', {
      person: true,
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
