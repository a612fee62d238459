// clawd's own doors are never a page to agents, tried as an agent would, in real Chromium with the
// built extension. The person's browser holds the live view's answering session (they opened
// `clawd view`); an agent with the token alone tries to get there: its API's navigate, a raw
// client's script and Page.navigate on the person's tab, the hand-over's link opened in its own
// managed browser (by navigate and by a page's script), a link to the relay, and the cookie itself.
// Nothing reaches the view: the question it asked stays pending, and the person's tab with the
// view is never handed over. Nor does a raw client load clawd's home (its secrets) or any file of
// this machine, on either door.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extensionDriver, type AgentDriver } from '../helpers/agent-drivers';
import { CdpClient } from '../helpers/cdp-client';
import { startPageServer, type PageServer } from '../helpers/pages';
import { quiet, until } from '../helpers/waits';

describe("clawd's own doors, tried by an agent", () => {
  let pages: PageServer;
  let d: AgentDriver;
  let viewTab: { tabTargetId: string; pageTargetId: string };
  let controlPort: number;
  const api = <T = any>(method: string, route: string, body?: unknown, profile = 'chrome') =>
    d.server.api<T>(method, route, { profile, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    pages = await startPageServer();
    d = await extensionDriver(pages);
    controlPort = Number(new URL(d.server.controlUrl).port);
    // Not asked before an export here (the person's browser asks by default): the cookie is the point.
    expect((await d.loosen({ ask: [] })).status).toBe(200);
    // The person opens their own live view in their browser: it signs in (the answering cookie).
    const link = (await d.server.cli(['view'])).stdout.trim();
    viewTab = await d.browser!.openTab(link);
    await until('the person signed in to the view', async () =>
      ((await d.browser!.cdp.send<{ cookies: Array<{ name: string }> }>('Storage.getCookies')).cookies ?? []).some(
        (c) => c.name === `clawd_view_${controlPort}`,
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await pages?.close();
  });

  it("keeps the person's tab and a managed tab off clawd's own addresses, by every way an agent has", async () => {
    const view = `http://127.0.0.1:${controlPort}/view`;
    // The agent API: refused before anything loads, on both profiles, in any spelling.
    for (const [profile, url] of [
      ['chrome', view],
      ['chrome', `http://localhost:${controlPort}/view`],
      ['clawd', `http://2130706433:${controlPort}/view`],
      ['clawd', `${d.server.server.relay.url}/json/version`],
    ] as const) {
      const refused = await api(
        'POST',
        '/navigate',
        { url, ...(profile === 'chrome' ? { targetId: d.targetId } : {}) },
        profile,
      );
      expect(refused.status, `${profile} ${url}`).toBe(403);
      expect(refused.body.error.message).toMatch(/clawd's own address/);
    }
    // A raw client on the person's tab: Page.navigate refused, and a script's navigation blocked by Chrome.
    const version = await (await fetch(`${d.server.server.relay.url}/json/version?token=${d.server.token}`)).json();
    const raw = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      const { sessionId } = await raw.send('Target.attachToTarget', { targetId: d.targetId, flatten: true });
      await expect(raw.send('Page.navigate', { url: view }, sessionId)).rejects.toThrow(/clawd's own address/);
      await raw.send('Runtime.evaluate', { expression: `location.href = ${JSON.stringify(view)}` }, sessionId);
      // Chrome refused the load (declarativeNetRequest); the extension shows the relay's page saying why.
      const urlOf = async () =>
        (
          await d.browser!.cdp.send<{ targetInfos: Array<{ targetId: string; url: string }> }>('Target.getTargets')
        ).targetInfos.find((t) => t.targetId === d.targetId)?.url ?? '';
      const shown = await until('the blocked page in the person’s tab', async () => {
        const url = await urlOf();
        return url.startsWith(`${d.server.server.relay.url}/blocked?`) ? url : undefined;
      });
      expect(new URL(shown).searchParams.get('reason')).toMatch(/clawd's own address/);
      // The cookie the person's browser holds for the view is shown to no client.
      const { cookies } = await raw.send('Network.getAllCookies', {}, sessionId);
      expect(cookies.map((c: { name: string }) => c.name)).not.toContain(`clawd_view_${controlPort}`);
      const exported = await api('GET', `/storage-state?targetId=${d.targetId}`);
      expect(JSON.stringify(exported.body)).not.toContain(`clawd_view_${controlPort}`);
    } finally {
      await raw.close();
    }
  });

  it("keeps clawd's home and the machine's files from every raw client, on the person's tab and on a profile's port", async () => {
    const secrets = `file://${d.server.home}/secrets.json`;
    const refusedTo = async (wsUrl: string, targetId: string) => {
      const raw = await CdpClient.connect(wsUrl);
      try {
        const { sessionId } = await raw.send('Target.attachToTarget', { targetId, flatten: true });
        for (const url of [secrets, 'view-source:file:///etc/hostname', 'chrome://settings'])
          await expect(raw.send('Page.navigate', { url }, sessionId), url).rejects.toThrow(/not pages for CDP clients/);
        await expect(raw.send('Target.createTarget', { url: secrets })).rejects.toThrow(/not pages for CDP clients/);
        const { targetInfo } = await raw.send('Target.getTargetInfo', {}, sessionId);
        expect(targetInfo.url).toMatch(/^http/);
      } finally {
        await raw.close();
      }
    };
    const relayVersion = await (
      await fetch(`${d.server.server.relay.url}/json/version?token=${d.server.token}`)
    ).json();
    await refusedTo(relayVersion.webSocketDebuggerUrl, d.targetId);
    // The agent's own managed profile, on its port.
    const { cdpUrl } = (await api<{ cdpUrl: string }>('POST', '/start', undefined, 'clawd')).body;
    const { targetId } = (await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/') }, 'clawd')).body;
    const portVersion = await (await fetch(`${cdpUrl}/json/version?token=${d.server.token}`)).json();
    await refusedTo(portVersion.webSocketDebuggerUrl, targetId);
    const opened = await fetch(`${cdpUrl}/json/new?${secrets}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${d.server.token}` },
    });
    expect(opened.status).toBe(403);
  });

  it("gives the hand-over's link nothing in the agent's own managed browser", async () => {
    const handed = await api('POST', '/handoff', { targetId: d.targetId, reason: 'pay for me' });
    expect(handed.status).toBe(200);
    const link = handed.body.viewUrl as string;
    try {
      const opened = await api('POST', '/tabs/open', { url: pages.url('/form') }, 'clawd');
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      const managed = opened.body.targetId as string;
      // Opened as the agent would: its API, then a script of the page it drives.
      const navigated = await api('POST', '/navigate', { url: link, targetId: managed }, 'clawd');
      expect(navigated.status).toBe(403);
      expect(navigated.body.error.code).toBe('origin_blocked');
      await api(
        'POST',
        '/act',
        { kind: 'evaluate', targetId: managed, fn: `() => { location.href = ${JSON.stringify(link)}; }` },
        'clawd',
      );
      await until('the managed tab shows the blocked page', async () => {
        const seen = await api<{ snapshot?: string }>('GET', `/snapshot?targetId=${managed}`, undefined, 'clawd');
        return /clawd's own address/.test(seen.body.snapshot ?? '');
      });
      // The guard said what it kept the browser from loading.
      const log = await api<{ entries: Array<{ kind: string; url?: string; detail?: string }> }>(
        'GET',
        '/log?limit=50',
        undefined,
        'clawd',
      );
      expect(log.body.entries.some((e) => e.kind === 'blocked' && /clawd's own address/.test(e.detail ?? ''))).toBe(
        true,
      );
      // The person's tab is still theirs, as the agent handed it: nobody took it over or gave it back.
      const tabs = await api<{ tabs: Array<{ targetId: string; holder?: { kind: string } }> }>('GET', '/tabs');
      expect(tabs.body.tabs.find((t) => t.targetId === d.targetId)?.holder?.kind).toBe('person');
    } finally {
      await api('DELETE', `/handoff?targetId=${d.targetId}`);
    }
  });

  it("never hands over the person's tab that shows clawd's own page", async () => {
    const attachedBefore = d.server.server.relay.switchboard.tabs().length;
    await d.browser!.clickToolbar(viewTab);
    const tabId = await d.browser!.tabIdOf(viewTab.pageTargetId);
    const badge = await until('the refusal on the badge', async () => {
      const b = await d.browser!.badge(tabId);
      return b.text === '!' ? b : undefined;
    });
    expect(badge.title).toMatch(/clawd's own pages \(the live view\) are never handed to agents/);
    await quiet(500);
    expect(d.server.server.relay.switchboard.tabs()).toHaveLength(attachedBefore);
  });
});
