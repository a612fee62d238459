// Chrome's tab groups as the person's consent, seen the way they see it: a tab handed over with
// the toolbar joins the orange `clawd` group and leaves it when released; tabs agents open land
// in their session's own group (`clawd · alpha`, a raw CDP client's `clawd · cdp-N` or the name
// it gave), behind the tab the person is in (even when a client asks for the front); dragging a tab into a clawd group hands it over (to that group's session), dragging
// it out releases it — the test plays the drag with chrome.tabs.group/ungroup from the worker,
// the same change a drag makes; leftover groups are emptied at the worker's start; and with
// "Agents may open tabs in my browser" off (set on the options page) opening one is refused.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

interface GroupOf {
  groupId: number;
  title?: string;
  color?: string;
}

describe("tab groups in the person's browser", () => {
  let server: TestServer;
  let browser: TestBrowser;
  let pages: PageServer;
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
  const attached = (targetId: string) => server.server.relay.switchboard.tabs().some((t) => t.targetId === targetId);
  /** The tab's group as Chrome has it: its id (-1 for none), title and colour. */
  const groupOf = (tabId: number) =>
    browser.swEval<GroupOf>(
      `chrome.tabs.get(${tabId}).then(async (t) => t.groupId === -1 ? { groupId: -1 } : chrome.tabGroups.get(t.groupId).then((g) => ({ groupId: g.id, title: g.title, color: g.color })))`,
    );
  const groupTitles = () => browser.swEval<string[]>('chrome.tabGroups.query({}).then((gs) => gs.map((g) => g.title))');

  beforeAll(async () => {
    [server, browser, pages] = await Promise.all([startTestServer(), TestBrowser.launch(), startPageServer()]);
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), pages?.close()]);
  });

  it('puts a tab handed over with the toolbar in the orange clawd group, and takes it out when released', async () => {
    const tab = await browser.openTab(pages.url('/'));
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    await browser.clickToolbar(tab);
    await until('the tab attached', () => attached(tab.pageTargetId));
    const group = await until('the tab in a group', async () => {
      const g = await groupOf(tabId);
      return g.title ? g : undefined;
    });
    expect(group).toMatchObject({ title: 'clawd', color: 'orange' });
    await browser.clickToolbar(tab);
    await until('the tab released', () => !attached(tab.pageTargetId));
    await until('the tab out of its group', async () => (await groupOf(tabId)).groupId === -1);
    expect(await groupTitles()).not.toContain('clawd'); // an empty group goes
  });

  it("opens agents' tabs in their sessions' own groups, each its own colour, behind the person's tab", async () => {
    // The person is in a tab of their own: every agent's tab opens behind it, whatever it asks.
    const mine = await browser.openTab(pages.url('/'));
    const myTabId = await browser.tabIdOf(mine.pageTargetId);
    await browser.cdp.send('Target.activateTarget', { targetId: mine.pageTargetId });
    const front = () =>
      browser.swEval<number | undefined>(
        'chrome.tabs.query({ active: true, lastFocusedWindow: true }).then(([t]) => t?.id)',
      );
    await until('the person’s tab in front', async () => (await front()) === myTabId);
    const alpha = await api('POST', '/tabs/open', { url: pages.url('/'), session: 'alpha' });
    const beta = await api('POST', '/tabs/open', { url: pages.url('/'), session: 'beta' });
    expect(alpha.status).toBe(200);
    expect(beta.status).toBe(200);
    const [alphaGroup, betaGroup] = await Promise.all(
      [alpha, beta].map(async (opened) => {
        const tabId = await browser.tabIdOf(opened.body.targetId);
        return until('the tab in its group', async () => {
          const g = await groupOf(tabId);
          return g.title ? g : undefined;
        });
      }),
    );
    expect(alphaGroup!.title).toBe('clawd · alpha');
    expect(betaGroup!.title).toBe('clawd · beta');
    expect(alphaGroup!.color).not.toBe(betaGroup!.color);
    expect(alphaGroup!.color).not.toBe('orange');

    // A raw CDP client is an agent session of its own: named after itself, or cdp-N.
    const version = await (
      await fetch(`${server.server.relay.url}/json/version`, { headers: { Authorization: `Bearer ${server.token}` } })
    ).json();
    const named = await CdpClient.connect(`${version.webSocketDebuggerUrl}&session=gamma`);
    const unnamed = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      const a = await named.send('Target.createTarget', { url: pages.url('/') });
      const b = await unnamed.send('Target.createTarget', { url: pages.url('/'), background: false });
      const titleOf = async (targetId: string) => {
        const tabId = await browser.tabIdOf(targetId);
        return until('the tab in its group', async () => (await groupOf(tabId)).title);
      };
      expect(await titleOf(a.targetId)).toBe('clawd · gamma');
      expect(await titleOf(b.targetId)).toMatch(/^clawd · cdp-\d+$/);
      // Four agents' tabs later, the person's is still the one in front, and an agent works in its own.
      expect(await front()).toBe(myTabId);
      const read = await api('GET', `/snapshot?targetId=${alpha.body.targetId}`);
      expect(read.status).toBe(200);
      expect(await front()).toBe(myTabId);
    } finally {
      await Promise.all([named.close(), unnamed.close()]);
    }
  });

  it("hands a tab over when the person drags it into a clawd group (to that group's session), and releases it when dragged out", async () => {
    const opened = await api('POST', '/tabs/open', { url: pages.url('/'), session: 'alpha' });
    const alphaGroup = (await groupOf(await browser.tabIdOf(opened.body.targetId))).groupId;
    const tab = await browser.openTab(pages.url('/form'));
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    expect(attached(tab.pageTargetId)).toBe(false);

    await browser.swEval(`chrome.tabs.group({ tabIds: [${tabId}], groupId: ${alphaGroup} })`);
    await until('the dragged tab attached', () => attached(tab.pageTargetId));
    const listed = await until('the tab held by alpha', async () => {
      const tabs = (await api<{ tabs: Array<{ targetId: string; holder?: { session?: string } }> }>('GET', '/tabs'))
        .body.tabs;
      return tabs.find((t) => t.targetId === tab.pageTargetId && t.holder?.session === 'alpha');
    });
    expect(listed.holder).toEqual({ kind: 'agent', session: 'alpha' });
    // Another session may not change the tab the person gave to alpha.
    const other = await api('POST', '/navigate', { targetId: tab.pageTargetId, url: pages.url('/'), session: 'beta' });
    expect(other.status).toBe(423);
    expect(other.body.error.code).toBe('tab_held');
    // Dragged on into beta's group: now beta's.
    const betaTab = await api('POST', '/tabs/open', { url: pages.url('/'), session: 'beta' });
    const betaGroup = await until('beta’s group', async () => {
      const g = await groupOf(await browser.tabIdOf(betaTab.body.targetId));
      return g.title === 'clawd · beta' ? g.groupId : undefined;
    });
    await browser.swEval(`chrome.tabs.group({ tabIds: [${tabId}], groupId: ${betaGroup} })`);
    await until('the tab held by beta', async () =>
      (await api<{ tabs: Array<{ targetId: string; holder?: { session?: string } }> }>('GET', '/tabs')).body.tabs.some(
        (t) => t.targetId === tab.pageTargetId && t.holder?.session === 'beta',
      ),
    );
    await browser.swEval(`chrome.tabs.group({ tabIds: [${tabId}], groupId: ${alphaGroup} })`);
    await until('the tab held by alpha again', async () =>
      (await api<{ tabs: Array<{ targetId: string; holder?: { session?: string } }> }>('GET', '/tabs')).body.tabs.some(
        (t) => t.targetId === tab.pageTargetId && t.holder?.session === 'alpha',
      ),
    );

    // A tab its page opens joins the same group, as the person's own tab.
    const popupBefore = new Set(server.server.relay.switchboard.tabs().map((t) => t.targetId));
    const session = await browser.pageSession(tab.pageTargetId);
    await browser.cdp.send(
      'Runtime.evaluate',
      { expression: `window.open(${JSON.stringify(pages.url('/'))}); 1`, userGesture: true },
      session,
    );
    await browser.cdp.send('Target.detachFromTarget', { sessionId: session });
    const popup = await until('the popup attached', () =>
      server.server.relay.switchboard.tabs().find((t) => !popupBefore.has(t.targetId)),
    );
    await until('the popup in its opener’s group', async () => (await groupOf(popup.tabId)).groupId === alphaGroup);

    await browser.swEval(`chrome.tabs.ungroup(${tabId})`);
    await until('the dragged-out tab released', () => !attached(tab.pageTargetId));
    await until('its popup released with it', () => !attached(popup.targetId));
    // The badge is repainted after the debugger lets go, which the relay may hear of first.
    await until('its badge cleared', async () => (await browser.badge(tabId)).text === '', 5_000);
  });

  it('empties clawd groups of tabs that were not attached when the worker stopped', async () => {
    const kept = await browser.openTab(pages.url('/'));
    const stray = await browser.openTab(pages.url('/'));
    await browser.clickToolbar(kept);
    await until('the kept tab attached', () => attached(kept.pageTargetId));
    const keptId = await browser.tabIdOf(kept.pageTargetId);
    const strayId = await browser.tabIdOf(stray.pageTargetId);
    const clawd = await until('the clawd group', async () =>
      (await groupOf(keptId)).title === 'clawd' ? (await groupOf(keptId)).groupId : undefined,
    );
    await browser.swEval(`chrome.tabs.group({ tabIds: [${strayId}], groupId: ${clawd} })`);
    await until('the stray tab attached', () => attached(stray.pageTargetId));
    // As if the browser went down before the stray tab's record was written: it is not among the
    // tabs the extension remembers. After a reload (an update), its group keeps only the others.
    const stored = () =>
      browser.swEval<Array<{ tabId: number; sessionId?: string }>>(
        `chrome.storage.local.get('attachedTabs').then((s) => s.attachedTabs)`,
      );
    await until('the stray tab remembered with its session', async () =>
      (await stored()).some((t) => t.tabId === strayId && t.sessionId),
    );
    const oldWorker = (await browser.workerTarget())!.targetId;
    await browser
      .swEval(
        `chrome.storage.local.get('attachedTabs').then(({ attachedTabs }) => chrome.storage.local.set({ attachedTabs: attachedTabs.filter((t) => t.tabId !== ${strayId}) })).then(() => chrome.runtime.reload())`,
      )
      .catch(() => {}); // the worker goes as it answers
    await until(
      'the new worker',
      async () => ((await browser.workerTarget())?.targetId ?? oldWorker) !== oldWorker,
      20_000,
    );
    await until('the stray tab out of the group', async () => (await groupOf(strayId)).groupId === -1, 20_000);
    // The new worker's hello names the tabs it attached again: the kept one, not the stray.
    await until('the stray tab no longer attached', () => !attached(stray.pageTargetId), 20_000);
    expect(attached(kept.pageTargetId)).toBe(true);
    expect((await groupOf(keptId)).title).toBe('clawd');
  });

  it('refuses to open a tab when the person turned "Agents may open tabs in my browser" off on the options page', async () => {
    await browser.withOptionsPage(async (inOptions) => {
      await until(
        'the option shown on',
        async () => (await inOptions(`document.getElementById('may-open').checked`)) === true,
      );
      await inOptions(`document.getElementById('may-open').click()`);
      await until(
        'the option saved',
        async () =>
          (await browser.swEval(`chrome.storage.local.get('agentsMayOpenTabs').then((s) => s.agentsMayOpenTabs)`)) ===
          false,
      );
      const refused = await api('POST', '/tabs/open', { url: pages.url('/') });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'tab_open_refused',
        message: expect.stringContaining('Agents may open tabs in my browser'),
      });
      await inOptions(`document.getElementById('may-open').click()`);
      await until(
        'the option saved',
        async () =>
          (await browser.swEval(`chrome.storage.local.get('agentsMayOpenTabs').then((s) => s.agentsMayOpenTabs)`)) ===
          true,
      );
      expect((await api('POST', '/tabs/open', { url: pages.url('/') })).status).toBe(200);
    });
  });
});
