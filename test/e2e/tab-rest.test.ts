// A handed-over tab nobody uses rests: past `extension.idleDetachMs` the debugger lets go of it
// (chrome.debugger.getTargets says nothing is attached, so Chrome's "started debugging" bar is
// gone) while it stays handed over, in its clawd group. The next agent call attaches it again and
// runs — with the refs of the snapshot taken before the rest, and the page's console said once.
// A raw Playwright client connected through the relay keeps the tab attached while it holds a
// session of it, and one that connects to a resting tab wakes it and works. A tab the person took
// elsewhere while it rested is read where it is now. In a headed browser the bar, come back with
// the wake, has taken its height off the page before a screenshot is taken: the image is the
// viewport the page has; and an agent works in its tab behind the person's (reads, acts, captures)
// while no door brings it forward unless the person lets agents.

import { readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { pngSize } from '../helpers/png';
import { quiet, until } from '../helpers/waits';
import { headedTestsRun, startXvfb, type Display } from '../helpers/xvfb';

/** Short, so a test waits for a rest in about a second; the product's default is 30 s. */
const IDLE_MS = 400;

interface Snapshot {
  snapshot: string;
  refs: Record<string, { role: string; name: string }>;
}

describe('a handed-over tab at rest', () => {
  let server: TestServer;
  let browser: TestBrowser;
  let pages: PageServer;
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
  /** Whether anything holds a debugger session of the tab (the extension's, when nothing else does). */
  const attached = (tabId: number) =>
    browser.swEval<boolean>(
      `chrome.debugger.getTargets().then((ts) => ts.some((t) => t.tabId === ${tabId} && t.attached))`,
    );
  /**
   * What holds a debugger session besides the test's own reading of the extension's worker (its
   * swEval attaches there): the bar shows while the extension holds any.
   */
  const othersAttached = () =>
    browser.swEval<string[]>(
      'chrome.debugger.getTargets().then((ts) => ts.filter((t) => t.attached && !t.url.startsWith(`chrome-extension://${chrome.runtime.id}/`)).map((t) => t.type + " " + t.url))',
    );
  const groupTitle = (tabId: number) =>
    browser.swEval<string | null>(
      `chrome.tabs.get(${tabId}).then((t) => t.groupId === -1 ? null : chrome.tabGroups.get(t.groupId).then((g) => g.title))`,
    );
  const snapshot = async (targetId: string): Promise<Snapshot> => {
    const res = await api<Snapshot>('GET', `/snapshot?targetId=${targetId}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const refOf = (snap: Snapshot, name: string) => Object.entries(snap.refs).find(([, r]) => r.name === name)![0];
  const handOver = async (path: string) => {
    const tab = await browser.openTab(pages.url(path));
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    await browser.clickToolbar(tab);
    await until('the tab handed over', () =>
      server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
    );
    return { targetId: tab.pageTargetId, tabId };
  };
  const rested = (tabId: number) => until('the tab to rest', async () => !(await attached(tabId)), 10_000);

  beforeAll(async () => {
    [server, browser, pages] = await Promise.all([
      startTestServer({ idleDetachMs: IDLE_MS }),
      TestBrowser.launch(),
      startPageServer(),
    ]);
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), pages?.close()]);
  });

  it('lets go of an unused tab, keeps it handed over, and attaches it again for the next call with its refs', async () => {
    const { targetId, tabId } = await handOver('/form');
    const before = await snapshot(targetId);
    const [name, go] = [refOf(before, 'Name'), refOf(before, 'Go')];

    await rested(tabId);
    expect(await othersAttached()).toEqual([]); // nothing attached: Chrome shows no debugging bar
    expect(await groupTitle(tabId)).toBe('clawd'); // still the agent's, as the person left it
    expect((await api('GET', '/tabs')).body.tabs.map((t: { targetId: string }) => t.targetId)).toContain(targetId);

    // The refs of the snapshot before the rest still name the same elements.
    expect((await api('POST', '/act', { targetId, kind: 'type', ref: name, text: 'Ada' })).status).toBe(200);
    expect(await attached(tabId)).toBe(true);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: go })).status).toBe(200);
    expect((await snapshot(targetId)).snapshot).toContain('clicked Ada');

    // And again after a second rest: a click by a ref that outlived two sessions.
    await rested(tabId);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: go })).status).toBe(200);
    expect(await attached(tabId)).toBe(true);
  });

  it('rests with a cross-site frame in it: the frame is the same frame after, its refs too', async () => {
    const { targetId, tabId } = await handOver('/outer');
    const before = await snapshot(targetId);
    const inner = refOf(before, 'inner button');
    // The frame is out of process (another site): a child target of the tab, under a session of its own.
    await rested(tabId);
    expect(await othersAttached()).toEqual([]);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: inner })).status).toBe(200);
    expect((await snapshot(targetId)).snapshot).toContain('clicked in frame');
    await rested(tabId);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: inner })).status).toBe(200);
    expect((await snapshot(targetId)).snapshot).toContain('clicked in frame 2');
  });

  it("says the page's console once across a rest, and reads a tab the person took elsewhere meanwhile", async () => {
    const { targetId, tabId } = await handOver('/console');
    const snap = await snapshot(targetId);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: refOf(snap, 'log') })).status).toBe(200);
    const logged = async () =>
      (await api('GET', `/console?targetId=${targetId}`)).body.messages.filter(
        (m: { text: string }) => m.text === 'hello from the page 42',
      ).length;
    await until('the message logged', async () => (await logged()) === 1);
    await rested(tabId);
    expect((await api('POST', '/act', { targetId, kind: 'click', ref: refOf(snap, 'log') })).status).toBe(200);
    await until('the second message logged', async () => (await logged()) === 2);
    expect(await logged()).toBe(2); // the first was not said again by the fresh session

    // While it rests the person goes to another page of the site: the next call reads that one.
    await rested(tabId);
    await browser.swEval(`chrome.tabs.update(${tabId}, { url: ${JSON.stringify(pages.url('/form'))} }).then(() => 0)`);
    await until(
      'the tab on the new page',
      async () =>
        (await browser.swEval<string>(
          `chrome.tabs.get(${tabId}).then((t) => t.status === 'complete' ? t.url : '')`,
        )) === pages.url('/form'),
    );
    expect((await snapshot(targetId)).snapshot).toContain('I agree');
  });

  it('stays attached while a raw Playwright client holds it, and wakes for one that connects to it resting', async () => {
    const { targetId, tabId } = await handOver('/form');
    await rested(tabId);
    const door = `${server.server.relay.url}/?token=${server.token}`;
    let raw: Browser | undefined = await chromium.connectOverCDP(door);
    try {
      const page = raw
        .contexts()[0]!
        .pages()
        .find((p) => p.url() === pages.url('/form'))!;
      expect(await page.evaluate(() => document.title)).toBe('form');
      expect(await attached(tabId)).toBe(true);
      // Unused past the bound, but a client of its own holds a session: it stays attached.
      await quiet(IDLE_MS * 3);
      expect(await attached(tabId)).toBe(true);
      expect(await page.evaluate(() => document.querySelectorAll('input').length)).toBe(2);
      await raw.close();
      raw = undefined;
      await rested(tabId);
      // clawd's agent carries on across it; a new raw client too.
      expect((await snapshot(targetId)).snapshot).toContain('Go');
      await rested(tabId);
      raw = await chromium.connectOverCDP(door);
      const again = raw
        .contexts()[0]!
        .pages()
        .find((p) => p.url() === pages.url('/form'))!;
      expect(await again.evaluate(() => location.pathname)).toBe('/form');
    } finally {
      await raw?.close();
    }
  });
});

describe.runIf(headedTestsRun())("the person's headed browser", () => {
  let display: Display;
  let server: TestServer;
  let browser: TestBrowser;
  let pages: PageServer;
  beforeAll(async () => {
    display = await startXvfb();
    [server, pages] = await Promise.all([startTestServer({ idleDetachMs: IDLE_MS }), startPageServer()]);
    browser = await TestBrowser.launch({ display: display.display });
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), pages?.close()]);
    await display?.close();
  });

  // First, while nothing else has held a debugger session here: the bar is gone before the hand-over.
  it("takes a woken tab's screenshot once the debugging bar has come back: the viewport the page has", async () => {
    const tab = await browser.openTab(pages.url('/form'));
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    // The page's height as it is, read by the extension (no debugger session of its own).
    const height = () =>
      browser.swEval<number>(
        `chrome.scripting.executeScript({ target: { tabId: ${tabId} }, func: () => innerHeight }).then(([r]) => r.result)`,
      );
    await browser.cdp.send('Target.activateTarget', { targetId: tab.pageTargetId });
    const withoutBar = await height();
    await browser.clickToolbar(tab);
    await until('the tab handed over', () =>
      server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
    );
    const withBar = await until('the bar to take its height', async () => {
      const h = await height();
      return h < withoutBar ? h : undefined;
    });
    // Resting, and the bar gone (it lingers ~5 s after the last session): the page is as tall as before.
    await until('the bar to go with the rest', async () => (await height()) === withoutBar, 15_000);
    // A raw client's first command wakes it: a screenshot at once, the moment the debugger is back.
    const version = await (
      await fetch(`${server.server.relay.url}/json/version`, { headers: { Authorization: `Bearer ${server.token}` } })
    ).json();
    const raw = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      const { sessionId } = await raw.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId: tab.pageTargetId,
        flatten: true,
      });
      const { data } = await raw.send<{ data: string }>('Page.captureScreenshot', {}, sessionId);
      const size = pngSize(Buffer.from(data, 'base64'));
      expect(await height()).toBe(withBar); // the wake brought the bar back
      expect(size.height).toBe(withBar);
    } finally {
      await raw.close();
    }
    // clawd's own screenshot of it is the same viewport.
    const shot = await server.api('POST', '/screenshot', { profile: 'chrome', body: { targetId: tab.pageTargetId } });
    expect(shot.status).toBe(200);
    expect(pngSize(readFileSync(shot.body.path)).height).toBe(withBar);
  });

  it("never takes the person's front: an agent reads, acts and captures behind their tab, and may not bring its own forward", async () => {
    const mine = await browser.openTab(pages.url('/'));
    await browser.cdp.send('Target.activateTarget', { targetId: mine.pageTargetId });
    const front = () =>
      browser.swEval<string | undefined>(
        'chrome.tabs.query({ active: true, lastFocusedWindow: true }).then(([t]) => t?.url)',
      );
    await until('the person’s tab in front', async () => (await front()) === pages.url('/'));
    const api = <T = any>(method: string, route: string, body?: unknown) =>
      server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
    const opened = await api('POST', '/tabs/open', { url: pages.url('/form') });
    expect(opened.status).toBe(200);
    const targetId = opened.body.targetId as string;
    const snap = await api('GET', `/snapshot?targetId=${targetId}`);
    const name = Object.entries(snap.body.refs as Record<string, { name: string }>).find(
      ([, r]) => r.name === 'Name',
    )![0];
    expect((await api('POST', '/act', { targetId, kind: 'type', ref: name, text: 'Ada' })).status).toBe(200);
    // Measured: a tab behind the person's paints for a capture (the agent's connection keeps it
    // visible to itself), so nothing needs the front.
    const shot = await api('POST', '/screenshot', { targetId });
    expect(shot.status).toBe(200);
    expect(shot.body.broughtToFront).toBeFalsy();
    expect(await front()).toBe(pages.url('/'));
    // Bringing it forward takes the person's keys: refused, on every door, unless they allow it.
    const focus = await api('POST', '/tabs/focus', { targetId });
    expect(focus).toMatchObject({ status: 403, body: { error: { code: 'focus_refused' } } });
    const version = await (
      await fetch(`${server.server.relay.url}/json/version`, { headers: { Authorization: `Bearer ${server.token}` } })
    ).json();
    const raw = await CdpClient.connect(version.webSocketDebuggerUrl);
    try {
      await expect(raw.send('Target.activateTarget', { targetId })).rejects.toThrow(/bring their tabs to the front/);
      const { sessionId } = await raw.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      await expect(raw.send('Page.bringToFront', {}, sessionId)).rejects.toThrow(/bring their tabs to the front/);
    } finally {
      await raw.close();
    }
    expect(await front()).toBe(pages.url('/'));
  });
});
