import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { TestBrowser } from '../helpers/chromium';
import { quiet, until } from '../helpers/waits';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { startE2e, type E2eSetup } from '../helpers/session';

describe('the extension as a user meets it', () => {
  let e2e: E2eSetup;
  beforeAll(async () => {
    e2e = await startE2e();
  });
  afterAll(() => e2e?.close());

  it('shows ! with the reason on a chrome:// page instead of failing silently', async () => {
    const tab = await e2e.browser.openTab('chrome://version');
    const tabId = await until('the chrome:// tab id', () =>
      e2e.browser.swEval<number | undefined>(
        `chrome.tabs.query({}).then(ts => ts.find(t => (t.url || t.pendingUrl || '').startsWith('chrome://version'))?.id)`,
      ),
    );
    // Chrome resets a tab's badge and title when its navigation commits: click once it has loaded,
    // or the reset can land between the badge and title reads.
    await until('the chrome:// tab to load', () =>
      e2e.browser.swEval<boolean>(`chrome.tabs.get(${tabId}).then(t => t.status === 'complete')`),
    );
    await e2e.browser.clickToolbar(tab);
    const badge = await until('the error badge', async () => {
      const b = await e2e.browser.badge(tabId);
      return b.text === '!' ? b : undefined;
    });
    expect(badge.title).toBe('clawd: browser pages (chrome://) cannot be handed to the agent: open a regular web page');
    expect(e2e.relay.relay.switchboard.tabs()).toHaveLength(0);
  });

  it('keeps the same session across a cross-site navigation', async () => {
    const tab = await e2e.browser.openTab(e2e.pages.url('/form'));
    await e2e.attach(tab);
    const before = await e2e.sessionIdOf(tab.pageTargetId);
    const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    try {
      const page = await until('the page', () =>
        browser
          .contexts()[0]
          ?.pages()
          .find((p) => p.url() === e2e.pages.url('/form')),
      );
      await page.goto(e2e.pages.otherSiteUrl('/console'));
      expect(await page.evaluate(() => location.host)).toBe(`localhost:${e2e.pages.port}`);
      await page.goto(e2e.pages.url('/'));
      expect(await page.title()).toBe('home');
    } finally {
      await browser.close();
    }
    expect(await e2e.sessionIdOf(tab.pageTargetId)).toBe(before);
    const listed = await e2e.json<Array<{ id: string; url: string; title: string }>>('/json/list');
    await until('the list to show the new url', async () => {
      const entry = (await e2e.json<Array<{ id: string; url: string }>>('/json/list')).find(
        (t) => t.id === tab.pageTargetId,
      );
      return entry?.url === e2e.pages.url('/');
    });
    expect(listed.some((t) => t.id === tab.pageTargetId)).toBe(true);
  });

  it('detaches cleanly when the user closes an attached tab', async () => {
    const tab = await e2e.browser.openTab(e2e.pages.url('/console'));
    await e2e.attach(tab);
    const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    try {
      const page = await until('the page', () =>
        browser
          .contexts()[0]
          ?.pages()
          .find((p) => p.url() === e2e.pages.url('/console')),
      );
      const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
      await e2e.browser.cdp.send('Target.closeTarget', { targetId: tab.pageTargetId }); // the user closes the tab
      await closed;
      await until(
        'the tab to leave /json/list',
        async () => !(await e2e.json<Array<{ id: string }>>('/json/list')).some((t) => t.id === tab.pageTargetId),
      );
      expect(browser.isConnected()).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('tells precisely what is wrong on the options page', async () => {
    const tab = await e2e.browser.openTab(`${EXTENSION_ORIGIN}/options.html`);
    const session = await e2e.browser.pageSession(tab.pageTargetId);
    const evaluate = async (expression: string) =>
      (await e2e.browser.cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, session))
        .result.value;
    await until(
      'the options page to say it is paired',
      async () =>
        (await evaluate("document.getElementById('paired').textContent")) ===
        `Paired with clawd on port ${e2e.relay.port}.`,
    );
    // Nothing secret on the page: the key is not shown, and there is no token to paste.
    const html = await evaluate('document.documentElement.outerHTML');
    expect(html).not.toContain(e2e.relay.extensionKey);
    expect(await evaluate("document.querySelector('input[type=password], #token') === null")).toBe(true);
    await evaluate("document.getElementById('result').textContent = ''; document.getElementById('test').click()");
    expect(
      await until(
        'a verdict',
        async () => (await evaluate("document.getElementById('result').textContent")) || undefined,
      ),
    ).toMatch(/^clawd \S+ answers on port \d+\.$/);
    expect(
      await until(
        'the live status',
        async () =>
          (await evaluate("document.getElementById('live').textContent")).startsWith('Status: connected') || undefined,
      ),
    ).toBe(true);
  });
});

describe('settings', () => {
  let browser: TestBrowser | undefined;
  const relays: TestRelay[] = [];
  afterEach(async () => {
    await browser?.close();
    for (const r of relays.splice(0)) await r.close();
    browser = undefined;
  });

  it('reconnects to the new relay when the port and token change', async () => {
    const first = await startTestRelay();
    const second = await startTestRelay();
    relays.push(first, second);
    browser = await TestBrowser.launch();
    await browser.configureExtension(first.port, first.extensionKey);
    await until('the first relay to have the extension', () => first.relay.switchboard.extensionConnected);
    await browser.configureExtension(second.port, second.extensionKey);
    await until('the second relay to have the extension', () => second.relay.switchboard.extensionConnected);
    await until('the first relay to lose it', () => !first.relay.switchboard.extensionConnected);
  });

  it('stands down when another browser connects to the same relay, and takes over again on a click', async () => {
    const relay = await startTestRelay();
    relays.push(relay);
    browser = await TestBrowser.launch();
    const other = await TestBrowser.launch();
    try {
      await browser.configureExtension(relay.port, relay.extensionKey);
      await until('the first browser to connect', () => relay.relay.switchboard.extensionConnected);
      const page = await browser.openTab('data:text/html,<title>mine</title>');
      expect(await browser.optionsStatus()).toMatch(/^Status: connected/);
      await other.configureExtension(relay.port, relay.extensionKey);
      // The second browser replaces the first, which must not fight back on its own.
      await until('the second browser to take over', async () =>
        /^Status: connected/.test(await other.optionsStatus()),
      );
      await quiet(4_000); // longer than the reconnect backoff
      expect(await other.optionsStatus()).toMatch(/^Status: connected/);
      expect(await browser.optionsStatus()).toMatch(
        /^Status: error \(another browser connected to the relay; click the clawd button to take it back\)/,
      );
      // Its worker stopped and started again (the options page wakes it): it stays aside.
      await browser.terminateWorker();
      expect(await browser.optionsStatus()).toMatch(
        /^Status: error \(another browser connected to the relay; click the clawd button to take it back\)/,
      );
      await quiet(4_000);
      expect(await other.optionsStatus()).toMatch(/^Status: connected/);
      // The first browser's click takes the relay back and hands its tab over.
      await browser.clickToolbar(page);
      await until("the first browser's tab to be attached", () =>
        relay.relay.switchboard.tabs().some((t) => t.targetId === page.pageTargetId),
      );
      expect(await browser.optionsStatus()).toMatch(/^Status: connected/);
    } finally {
      await other.close();
    }
  });

  it('asks to be paired on a click before it is, with ! and the options page', async () => {
    browser = await TestBrowser.launch();
    // A real page: on an empty tab Chrome would open the options in that very tab.
    const tab = await browser.openTab('data:text/html,<title>a page</title>');
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    await browser.clickToolbar(tab);
    const badge = await until('the error badge', async () => {
      const b = await browser!.badge(tabId);
      return b.text === '!' ? b : undefined;
    });
    expect(badge.title).toBe(
      'clawd: not paired with clawd yet: run `clawd pair` and open the link (or `clawd install`)',
    );
    await until('the options page to open', async () =>
      (await browser!.targets('page')).some((t) => t.url === `${EXTENSION_ORIGIN}/options.html`),
    );
  });
});
