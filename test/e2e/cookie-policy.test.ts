// Cookies follow the origin policy: a handed-over tab's session answers for the person's whole
// cookie store, so without a filter one tab would show every site's cookies. With localhost
// blocked, its HttpOnly cookie (set in the person's browser beforehand) reaches no client through
// the relay — Playwright's context.cookies(), a raw client's Network.getAllCookies,
// Network.getCookies and Storage.getCookies, the agent's storage export — while 127.0.0.1's does;
// setting a cookie for localhost is refused. A managed profile's export leaves it out too.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { SHOP_HOSTS_FLAG } from '../helpers/chromium';
import { extensionDriver, managedDriver, useAgentDriver, type AgentDriver } from '../helpers/agent-drivers';
import { startPageServer, type PageServer } from '../helpers/pages';
import { quiet, until } from '../helpers/waits';

const SECRET = 'bank-session';
const OPEN = 'open-session';
/** The blocked host's cookie as a storage state holds it. */
const BLOCKED_HOSTS_COOKIE = {
  name: SECRET,
  value: 's3cret',
  domain: 'localhost',
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax',
};

/** A shop whose page sets a cookie for every host of shop.test (bank.shop.test too) and one of its own. */
async function startShop(): Promise<http.Server> {
  const site = http.createServer((_req, res) => {
    res
      .writeHead(200, {
        'content-type': 'text/html',
        'set-cookie': ['wide2=w2; Domain=shop.test; Path=/', 'own2=o2; Path=/'],
      })
      .end('<!doctype html><title>shop</title>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return site;
}

describe('cookies under the origin policy, through the relay', () => {
  let pages: PageServer;
  let d: AgentDriver;
  let wsUrl: string;
  let blockedUrl: string;
  beforeAll(async () => {
    pages = await startPageServer();
    d = await extensionDriver(pages);
    const port = new URL(pages.url('/')).port;
    blockedUrl = `http://localhost:${port}/`;
    // The person's own cookies, set in their browser before any policy: one for each origin.
    await d.browser!.cdp.send('Storage.setCookies', {
      cookies: [
        { name: SECRET, value: 's3cret', domain: 'localhost', path: '/', httpOnly: true },
        { name: OPEN, value: 'fine', domain: '127.0.0.1', path: '/', httpOnly: true },
      ],
    });
    // The person said not to be asked before an export (asked by default on their browser).
    const set = await d.loosen({ block: ['http://localhost:*'], ask: [] });
    expect(set.status).toBe(200);
    const version = await (
      await fetch(`${d.server.server.relay.url}/json/version`, {
        headers: { Authorization: `Bearer ${d.server.token}` },
      })
    ).json();
    wsUrl = version.webSocketDebuggerUrl;
  });
  afterAll(async () => {
    await d?.close();
    await pages?.close();
  });

  it('leaves the blocked host’s HttpOnly cookie out of Playwright’s context.cookies()', async () => {
    let browser: Browser | undefined;
    try {
      browser = await chromium.connectOverCDP(wsUrl);
      const names = (await browser.contexts()[0]!.cookies()).map((c) => c.name);
      expect(names).toContain(OPEN);
      expect(names).not.toContain(SECRET);
      const forBlocked = await browser.contexts()[0]!.cookies(blockedUrl);
      expect(forBlocked).toEqual([]);
    } finally {
      await browser?.close();
    }
  });

  it('leaves it out of Network.getAllCookies, Network.getCookies and Storage.getCookies on any session', async () => {
    const client = await CdpClient.connect(wsUrl);
    try {
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      const all = await client.send('Network.getAllCookies', {}, sessionId);
      expect(all.cookies.map((c: { name: string }) => c.name)).toContain(OPEN);
      expect(all.cookies.map((c: { name: string }) => c.name)).not.toContain(SECRET);
      const named = await client.send('Network.getCookies', { urls: [blockedUrl] }, sessionId);
      expect(named.cookies).toEqual([]);
      const onPage = await client.send('Storage.getCookies', {}, sessionId);
      expect(onPage.cookies.map((c: { name: string }) => c.name)).not.toContain(SECRET);
      const onBrowser = await client.send('Storage.getCookies', {});
      expect(onBrowser.cookies.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining([OPEN]));
      expect(onBrowser.cookies.map((c: { name: string }) => c.name)).not.toContain(SECRET);
    } finally {
      await client.close();
    }
    // The cookie is still the person's: their browser has it, untouched.
    const theirs = await d.browser!.cdp.send('Storage.getCookies', {});
    expect(theirs.cookies.map((c: { name: string }) => c.name)).toContain(SECRET);
  });

  it('refuses setting a cookie for the blocked host, naming the rule, and sets nothing', async () => {
    const client = await CdpClient.connect(wsUrl);
    try {
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      await expect(
        client.send('Network.setCookie', { name: 'planted', value: 'x', url: blockedUrl }, sessionId),
      ).rejects.toThrow(/block http:\/\/localhost:\*/);
      await expect(
        client.send('Storage.setCookies', {
          cookies: [{ name: 'planted', value: 'x', domain: 'localhost', path: '/' }],
        }),
      ).rejects.toThrow(/no cookie was set/);
    } finally {
      await client.close();
    }
    const theirs = await d.browser!.cdp.send('Storage.getCookies', {});
    expect(theirs.cookies.map((c: { name: string }) => c.name)).not.toContain('planted');
  });

  it('does nothing to the blocked site: no permission granted to it, its cookies and data not cleared', async () => {
    const client = await CdpClient.connect(wsUrl);
    const blockedOrigin = blockedUrl.slice(0, -1);
    try {
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      for (const [method, params, session] of [
        ['Browser.grantPermissions', { origin: blockedOrigin, permissions: ['geolocation'] }, undefined],
        [
          'Browser.setPermission',
          { origin: blockedOrigin, permission: { name: 'geolocation' }, setting: 'granted' },
          undefined,
        ],
        ['Storage.clearDataForOrigin', { origin: blockedOrigin, storageTypes: 'all' }, sessionId],
        ['Storage.clearDataForStorageKey', { storageKey: blockedUrl, storageTypes: 'cookies' }, sessionId],
        ['Network.deleteCookies', { name: SECRET, domain: 'localhost' }, sessionId],
        ['Network.deleteCookies', { name: SECRET, url: blockedUrl }, sessionId],
        ['Network.clearBrowserCookies', {}, sessionId],
        ['Storage.clearCookies', {}, undefined],
      ] as const)
        await expect(client.send(method, params, session), method).rejects.toThrow(/block http:\/\/localhost:\*/);
      // A site the rules leave alone: its permission is granted.
      await client.send('Browser.grantPermissions', {
        origin: pages.url('/').slice(0, -1),
        permissions: ['geolocation'],
      });
    } finally {
      await client.close();
    }
    const theirs = await d.browser!.cdp.send('Storage.getCookies', {});
    expect(theirs.cookies.map((c: { name: string }) => c.name)).toContain(SECRET);
  });

  it('leaves a cookie that travels to a blocked host out of a raw client’s network events, and every cookie while the person asks', async () => {
    // A site with subdomains (the test browser maps *.shop.test to loopback): www is allowed, bank
    // blocked, and a .shop.test cookie travels to both.
    const site = await startShop();
    const url = `http://www.shop.test:${(site.address() as AddressInfo).port}/`;
    await d.browser!.cdp.send('Storage.setCookies', {
      cookies: [
        { name: 'wide', value: 'w1', domain: '.shop.test', path: '/' },
        { name: 'own', value: 'o1', domain: 'www.shop.test', path: '/' },
      ],
    });
    expect((await d.api('POST', '/policy', { block: ['http://localhost:*', 'http://bank.shop.test:*'] })).status).toBe(
      200,
    );
    const heard = async () => {
      const client = await CdpClient.connect(wsUrl);
      const events = () => client.events.filter((e) => e.method!.startsWith('Network.'));
      try {
        const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
        await client.send('Network.enable', {}, sessionId);
        await client.send('Page.navigate', { url }, sessionId);
        await until('the page’s answer heard', () =>
          events().some((e) => e.method === 'Network.responseReceivedExtraInfo'),
        );
        await quiet(200);
        return JSON.stringify(events());
      } finally {
        await client.close();
      }
    };
    try {
      const events = await heard();
      expect(events).toContain('own=o1');
      expect(events).toContain('own2=o2');
      expect(events).not.toMatch(/wide=w1|wide2=w2/);
      // The agent's own view shows no credential's value at all.
      expect((await d.api('POST', '/navigate', { targetId: d.targetId, url })).status).toBe(200);
      const listed = await d.api('GET', `/network?targetId=${d.targetId}&filter=shop.test`);
      // The page's own document: a favicon request can come after it and carries no cookie.
      const id = listed.body.requests.findLast((r: { url: string }) => r.url === url).id;
      const request = JSON.stringify((await d.api('GET', `/network/${id}?targetId=${d.targetId}`)).body);
      expect(request).toMatch(/cookies?, hidden: storage-export reads cookies/);
      expect(request).not.toMatch(/own=o1|wide=w1/);
      // While the person asks before raw clients read cookies, the events carry none.
      expect((await d.api('POST', '/policy', { ask: ['raw-cookies'] })).status).toBe(200);
      const asked = await heard();
      expect(asked).toContain('www.shop.test');
      expect(asked).not.toMatch(/own=o1|own2=o2|wide/);
    } finally {
      expect((await d.loosen({ block: ['http://localhost:*'], ask: [] })).status).toBe(200);
      site.closeAllConnections();
      site.close();
    }
  });

  it('leaves it out of the agent’s storage export', async () => {
    const exported = await d.api('GET', '/storage-state');
    expect(exported.status).toBe(200);
    const names = exported.body.state.cookies.map((c: { name: string }) => c.name);
    expect(names).toContain(OPEN);
    expect(names).not.toContain(SECRET);
  });
});

describe('cookies under the origin policy, on a managed profile', () => {
  const ctx = useAgentDriver((pages) => managedDriver(pages, { extraArgs: [SHOP_HOSTS_FLAG] }));

  it('leaves a blocked host’s cookie out of the storage export and refuses importing one', async () => {
    const { d } = ctx;
    const imported = await d.api('POST', '/storage-state', {
      state: {
        cookies: [BLOCKED_HOSTS_COOKIE],
        origins: [],
      },
    });
    expect(imported.status).toBe(200);
    // In the browser, and exported, while nothing blocks it.
    expect((await d.api('GET', '/storage-state')).body.state.cookies.map((c: { name: string }) => c.name)).toContain(
      SECRET,
    );
    await d.api('POST', '/policy', { block: ['http://localhost:*'] });
    const exported = await d.api('GET', '/storage-state');
    expect(exported.body.state.cookies.map((c: { name: string }) => c.name)).not.toContain(SECRET);
    const again = await d.api('POST', '/storage-state', {
      state: {
        cookies: [
          {
            name: 'planted',
            value: 'x',
            domain: 'localhost',
            path: '/',
            expires: -1,
            httpOnly: false,
            secure: false,
            sameSite: 'Lax',
          },
        ],
        origins: [],
      },
    });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('origin_blocked');
  });

  it('does nothing to a blocked site through the profile’s port: no permission, no clearing', async () => {
    const { d } = ctx;
    await d.api('POST', '/storage-state', {
      state: {
        cookies: [BLOCKED_HOSTS_COOKIE],
        origins: [],
      },
    });
    await d.api('POST', '/policy', { block: ['http://localhost:*'] });
    const { cdpUrl } = (await d.api('GET', '/')).body as { cdpUrl: string };
    const version = await (await fetch(`${cdpUrl}/json/version?token=${d.server.token}`)).json();
    const client = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      for (const [method, params, session] of [
        ['Browser.grantPermissions', { origin: 'http://localhost:9', permissions: ['geolocation'] }, undefined],
        ['Browser.grantPermissions', { permissions: ['geolocation'] }, undefined], // every site
        ['Storage.clearDataForOrigin', { origin: 'http://localhost:9', storageTypes: 'all' }, sessionId],
        ['Network.deleteCookies', { name: SECRET, domain: 'localhost' }, sessionId],
        ['Storage.clearCookies', {}, undefined],
        ['Network.clearBrowserCookies', {}, sessionId],
      ] as const)
        await expect(client.send(method, params, session), method).rejects.toThrow(
          /origin_blocked|block http:\/\/localhost:\*|every site/,
        );
      await client.send('Browser.grantPermissions', { origin: 'http://127.0.0.1:9', permissions: ['geolocation'] });
    } finally {
      await client.close();
    }
    // The blocked site's cookie is still there once the rule is lifted.
    expect((await d.loosen({})).status).toBe(200);
    const state = (await d.api('GET', '/storage-state')).body.state as { cookies: Array<{ name: string }> };
    expect(state.cookies.map((c) => c.name)).toContain(SECRET);
  });

  it('leaves a cookie that travels to a blocked host out of a raw client’s network events on the profile’s port', async () => {
    const { d } = ctx;
    const site = await startShop();
    const url = `http://www.shop.test:${(site.address() as AddressInfo).port}/`;
    const cookie = (name: string, value: string, domain: string) => ({
      name,
      value,
      domain,
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    });
    const imported = await d.api('POST', '/storage-state', {
      state: { cookies: [cookie('wide', 'w1', '.shop.test'), cookie('own', 'o1', 'www.shop.test')], origins: [] },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect((await d.api('POST', '/policy', { block: ['http://bank.shop.test:*'] })).status).toBe(200);
    const { cdpUrl } = (await d.api('GET', '/')).body as { cdpUrl: string };
    const version = await (await fetch(`${cdpUrl}/json/version?token=${d.server.token}`)).json();
    const client = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      await client.send('Network.enable', {}, sessionId);
      await client.send('Page.navigate', { url }, sessionId);
      const network = () => client.events.filter((e) => e.method!.startsWith('Network.'));
      await until('the page’s answer heard', () =>
        network().some((e) => e.method === 'Network.responseReceivedExtraInfo'),
      );
      await quiet(200);
      const heard = JSON.stringify(network());
      expect(heard).toContain('own=o1');
      expect(heard).toContain('own2=o2');
      expect(heard).not.toMatch(/wide=w1|wide2=w2/);
    } finally {
      await client.close();
      await d.loosen({});
      site.closeAllConnections();
      site.close();
    }
  });
});
