// Cookies follow the origin policy: a handed-over tab's session answers for the person's whole
// cookie store, so without a filter one tab would show every site's cookies. With localhost
// blocked, its HttpOnly cookie (set in the person's browser beforehand) reaches no client through
// the relay — Playwright's context.cookies(), a raw client's Network.getAllCookies,
// Network.getCookies and Storage.getCookies, the agent's storage export — while 127.0.0.1's does;
// setting a cookie for localhost is refused. A managed profile's export leaves it out too.

import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { extensionDriver, managedDriver, useAgentDriver, type AgentDriver } from '../helpers/agent-drivers';
import { startPageServer, type PageServer } from '../helpers/pages';

const SECRET = 'bank-session';
const OPEN = 'open-session';

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

  it('leaves it out of the agent’s storage export', async () => {
    const exported = await d.api('GET', '/storage-state');
    expect(exported.status).toBe(200);
    const names = exported.body.state.cookies.map((c: { name: string }) => c.name);
    expect(names).toContain(OPEN);
    expect(names).not.toContain(SECRET);
  });
});

describe('cookies under the origin policy, on a managed profile', () => {
  const ctx = useAgentDriver(managedDriver);

  it('leaves a blocked host’s cookie out of the storage export and refuses importing one', async () => {
    const { d } = ctx;
    const imported = await d.api('POST', '/storage-state', {
      state: {
        cookies: [
          {
            name: SECRET,
            value: 's3cret',
            domain: 'localhost',
            path: '/',
            expires: -1,
            httpOnly: true,
            secure: false,
            sameSite: 'Lax',
          },
        ],
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
});
