// Playwright drives a person's attached tab as it drives a Chrome of its own: the same cases run
// on a plain Chromium Playwright launched itself and, in the same run, through the relay on a tab
// attached by a toolbar click — popups, cookies, service workers, permissions, and the one thing
// that stays different (a new browser context is refused, pointing to managed profiles).

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { CHROMIUM_FLAGS, chromiumPath } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startE2e, type E2eSetup } from '../helpers/session';
import { until } from '../helpers/waits';

interface Mode {
  pages: PageServer;
  context: BrowserContext;
  page: Page;
  browser: Browser;
  /** The relay's set-up and the attached tab, when the page is a person's. */
  e2e?: E2eSetup;
  tab?: { tabTargetId: string; pageTargetId: string };
  close(): Promise<void>;
}

/** What the page itself says of its permissions. */
function permissionState(page: Page): Promise<{ geolocation: string; notifications: string }> {
  return page.evaluate(async () => ({
    geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
    notifications: Notification.permission,
  }));
}

async function plain(): Promise<Mode> {
  const pages = await startPageServer();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  const context = await browser.newContext();
  const page = await context.newPage();
  return {
    pages,
    browser,
    context,
    page,
    close: async () => void (await Promise.all([browser.close(), pages.close()])),
  };
}

async function throughRelay(): Promise<Mode> {
  const e2e = await startE2e();
  const tab = await e2e.browser.openTab(e2e.pages.url('/'));
  await e2e.attach(tab);
  const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
  const context = browser.contexts()[0]!;
  const page = await until('the attached page in Playwright', () =>
    context.pages().find((p) => p.url() === e2e.pages.url('/')),
  );
  return {
    pages: e2e.pages,
    browser,
    context,
    page,
    e2e,
    tab,
    close: async () => {
      await browser.close();
      await e2e.close();
    },
  };
}

describe.each([
  ['a Chromium of its own', plain],
  ["a person's attached tab", throughRelay],
] as const)('Playwright on %s', (_name, make) => {
  let m: Mode;
  beforeAll(async () => {
    m = await make();
  });
  afterAll(async () => m?.close());

  it('raises popup for window.open and page for a target=_blank link, and drives them', async () => {
    await m.page.goto(m.pages.url('/opener'));
    const [popup] = await Promise.all([m.page.waitForEvent('popup'), m.page.click('#open')]);
    await popup.waitForLoadState();
    expect(await popup.textContent('#by')).toBe('?by=open');
    expect(await popup.opener()).toBe(m.page);
    await popup.close();

    const [byLink] = await Promise.all([m.context.waitForEvent('page'), m.page.click('#blank')]);
    await byLink.waitForLoadState();
    expect(await byLink.textContent('#by')).toBe('?by=link');
    await byLink.click('#by'); // driven like any page
    await byLink.close();

    const [noOpener] = await Promise.all([m.context.waitForEvent('page'), m.page.click('#noopener')]);
    await noOpener.waitForLoadState();
    expect(await noOpener.textContent('#by')).toBe('?by=noopener');
    await noOpener.close();
  });

  it('adds, reads and clears cookies', async () => {
    await m.page.goto(m.pages.url('/'));
    const url = m.pages.url('/');
    await m.context.clearCookies();
    await m.context.addCookies([
      { name: 'flavour', value: 'lobster', url },
      { name: 'other', value: 'site', url: m.pages.otherSiteUrl('/') },
    ]);
    expect((await m.context.cookies(url)).map((c) => `${c.name}=${c.value}`)).toEqual(['flavour=lobster']);
    expect((await m.context.cookies()).map((c) => c.name).sort()).toEqual(['flavour', 'other']);
    expect(await m.page.evaluate(() => document.cookie)).toBe('flavour=lobster');
    await m.context.clearCookies();
    expect(await m.context.cookies()).toEqual([]);
    expect(await m.page.evaluate(() => document.cookie)).toBe('');
  });

  it("raises serviceworker for the page's service worker, and evaluates in it", async () => {
    const [worker] = await Promise.all([m.context.waitForEvent('serviceworker'), m.page.goto(m.pages.url('/sw-page'))]);
    expect(worker.url()).toBe(m.pages.url('/sw.js'));
    expect(await worker.evaluate(() => (self as unknown as { answer: number }).answer)).toBe(42);
    expect(m.context.serviceWorkers()).toContain(worker);
    await until('the page to see its worker ready', async () => (await m.page.textContent('#state')) === 'ready');
  });

  it('grants geolocation and notifications to a site, and takes them back', async () => {
    await m.page.goto(m.pages.url('/'));
    const origin = new URL(m.pages.url('/')).origin;
    const before = await permissionState(m.page);
    expect(before).toEqual({ geolocation: 'prompt', notifications: 'default' });
    await m.context.grantPermissions(['geolocation', 'notifications'], { origin });
    expect(await permissionState(m.page)).toEqual({ geolocation: 'granted', notifications: 'granted' });
    await m.context.setGeolocation({ latitude: 52.5, longitude: 13.4 });
    expect(
      await m.page.evaluate(
        () =>
          new Promise((resolve) =>
            navigator.geolocation.getCurrentPosition(
              (p) => resolve([p.coords.latitude, p.coords.longitude]),
              (e) => resolve(e.message),
            ),
          ),
      ),
    ).toEqual([52.5, 13.4]);
    await m.context.clearPermissions();
    expect(await permissionState(m.page)).toEqual(before);
  });

  it('refuses or opens a new context as its browser allows', async () => {
    if (!m.e2e) {
      const other = await m.browser.newContext();
      await other.close();
      return;
    }
    await expect(m.browser.newContext()).rejects.toThrow(
      /Target.createBrowserContext is not available through the clawd relay.*managed clawd profile/,
    );
  });
});

describe("a person's tab and the tabs it opens", () => {
  let m: Mode;
  beforeAll(async () => {
    m = await throughRelay();
  });
  afterAll(async () => m?.close());

  it('attaches a popup with its opener, shows it attached, and releases it with the opener', async () => {
    await m.page.goto(m.pages.url('/opener'));
    const [popup] = await Promise.all([m.page.waitForEvent('popup'), m.page.click('#open')]);
    await popup.waitForLoadState();
    const listed = async () => (await m.e2e!.json<Array<{ id: string; url: string }>>('/json/list')).map((t) => t.url);
    // The relay hears the popup's address from Chrome's tab update, a moment after the page loads.
    await until('the popup listed with its address', async () =>
      (await listed()).includes(m.pages.url('/popup?by=open')),
    );
    const popupTarget = (await m.e2e!.browser.targets('page')).find((t) => t.url === m.pages.url('/popup?by=open'))!;
    const badge = await m.e2e!.browser.swEval<string>(
      `chrome.action.getBadgeText({ tabId: ${await m.e2e!.browser.tabIdOf(popupTarget.targetId)} })`,
    );
    expect(badge).toBe('ON');
    // The person takes the opener back: its popup is not left with the agent.
    await m.e2e!.browser.clickToolbar(m.tab!);
    await until('both released', async () => (await listed()).length === 0);
    expect((await m.e2e!.browser.targets('page')).some((t) => t.targetId === popupTarget.targetId)).toBe(true); // released, not closed
  });
});

describe("permissions on a person's tab", () => {
  let m: Mode;
  beforeAll(async () => {
    m = await throughRelay();
  });
  afterAll(async () => m?.close());

  /** The page's permissions read by the test's own CDP session, not through the relay. */
  async function stateInPage(): Promise<{ geolocation: string; notifications: string }> {
    const { cdp } = m.e2e!.browser;
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: m.tab!.pageTargetId, flatten: true });
    try {
      const expression = `(async () => ({ geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state, notifications: Notification.permission }))()`;
      return (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId))
        .result.value;
    } finally {
      await cdp.send('Target.detachFromTarget', { sessionId });
    }
  }

  it("are the person's own again once the tab is released", async () => {
    await m.page.goto(m.pages.url('/'));
    await m.context.grantPermissions(['geolocation', 'notifications']); // no origin: the attached tabs' sites
    expect(await stateInPage()).toEqual({ geolocation: 'granted', notifications: 'granted' });
    await m.e2e!.browser.clickToolbar(m.tab!);
    await until(
      'the tab released',
      async () => !(await m.e2e!.json<Array<{ id: string }>>('/json/list')).some((t) => t.id === m.tab!.pageTargetId),
    );
    await until(
      'the permissions back as they were',
      async () =>
        JSON.stringify(await stateInPage()) === JSON.stringify({ geolocation: 'prompt', notifications: 'default' }),
    );
  });

  it('answer what browser-use sends: success for what can be granted, a refusal naming the rest', async () => {
    await m.e2e!.attach(m.tab!);
    const client = await CdpClient.connect(m.e2e!.relay.cdpWsUrl);
    try {
      expect(
        await client.send('Browser.grantPermissions', { permissions: ['clipboardReadWrite', 'notifications'] }),
      ).toEqual({});
      await expect(client.send('Browser.grantPermissions', { permissions: ['midi', 'notifications'] })).rejects.toThrow(
        /midi cannot be granted on your own browser through clawd: Chrome lets an extension grant \(and take back\) only geolocation, notifications/,
      );
      expect(await client.send('Browser.resetPermissions')).toEqual({});
      expect(await stateInPage()).toEqual({ geolocation: 'prompt', notifications: 'default' });
    } finally {
      await client.close();
    }
  });
});
