import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINARY_REPLY_MIN } from '../../shared/binary-reply';
import { CdpClient } from '../helpers/cdp-client';
import { until } from '../helpers/waits';
import { pngSize } from '../helpers/png';
import { startE2e, type E2eSetup } from '../helpers/session';
import { useTempDirs } from '../helpers/temp-dirs';

describe('Playwright drives an extension tab through the relay', () => {
  const temp = useTempDirs('clawd-pw-');
  let e2e: E2eSetup;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    e2e = await startE2e();
    const tab = await e2e.browser.openTab(e2e.pages.url('/'));
    await e2e.attach(tab);
    browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    page = await until('the attached page in Playwright', () =>
      browser
        .contexts()[0]
        ?.pages()
        .find((p) => p.url() === e2e.pages.url('/')),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.close();
  });

  it('reports the real browser version', () => {
    expect(browser.version()).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('navigates, fills, clicks and evaluates, and the page shows the result', async () => {
    await page.goto(e2e.pages.url('/form'));
    expect(await page.title()).toBe('form');
    await page.fill('#name', 'lobster');
    await page.click('#agree');
    await page.click('#go');
    expect(await page.textContent('#out')).toBe('clicked lobster');
    expect(await page.isChecked('#agree')).toBe(true);
    expect(await page.evaluate(() => document.querySelector<HTMLInputElement>('#name')!.value + ':' + (1 + 1))).toBe(
      'lobster:2',
    );
  });

  it('takes a screenshot of the page', async () => {
    await page.goto(e2e.pages.url('/form'));
    const shot = await page.screenshot();
    const size = pngSize(shot);
    expect(size.width).toBeGreaterThan(100);
    expect(size.height).toBeGreaterThan(100);
  });

  // The worker sends such an answer as its bytes (shared/binary-reply.ts); the relay writes the
  // base64 again: the client gets what the browser's own port gives.
  it('takes a large capture through the relay exactly as the browser’s own port gives it', async () => {
    await page.goto(e2e.pages.url('/noise'));
    const targetId = (await e2e.browser.targets('page')).find((t) => t.url === e2e.pages.url('/noise'))!.targetId;
    const session = await page.context().newCDPSession(page);
    const direct = await CdpClient.connect(e2e.browser.wsEndpoint);
    try {
      const { sessionId } = await direct.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId,
        flatten: true,
      });
      const clip = { x: 0, y: 0, width: 480, height: 360, scale: 1 };
      const relayed = (await session.send('Page.captureScreenshot', { format: 'png', clip })).data;
      const own = (await direct.send<{ data: string }>('Page.captureScreenshot', { format: 'png', clip }, sessionId))
        .data;
      expect(relayed.length).toBeGreaterThan(BINARY_REPLY_MIN);
      expect(pngSize(Buffer.from(relayed, 'base64'))).toEqual({ width: 480, height: 360 });
      expect(relayed).toBe(own);
    } finally {
      await session.detach();
      await direct.close();
    }
  });

  it('reads the aria snapshot', async () => {
    await page.goto(e2e.pages.url('/form'));
    const snapshot = await page.locator('body').ariaSnapshot();
    expect(snapshot).toContain('button "Go"');
    expect(snapshot).toContain('checkbox "I agree"');
  });

  it('receives console messages', async () => {
    await page.goto(e2e.pages.url('/console'));
    const message = page.waitForEvent('console');
    await page.click('#log');
    expect((await message).text()).toBe('hello from the page 42');
  });

  it('opens a new page as a new attached tab and closes it', async () => {
    const extra = await browser.contexts()[0]!.newPage();
    await extra.goto(e2e.pages.url('/'));
    expect(await extra.title()).toBe('home');
    const listed = await e2e.json<Array<{ url: string }>>('/json/list');
    expect(listed.some((t) => t.url === e2e.pages.url('/'))).toBe(true);
    const before = (await e2e.browser.targets('page')).length;
    await extra.close();
    await until(
      'the tab to close in the browser',
      async () => (await e2e.browser.targets('page')).length === before - 1,
    );
    expect((await e2e.json<Array<{ url: string }>>('/json/list')).some((t) => t.url === e2e.pages.url('/'))).toBe(
      false,
    );
  });

  it('reads and clicks inside a cross-site iframe', async () => {
    await page.goto(e2e.pages.url('/outer'));
    const frame = await until('the cross-site frame', () =>
      page.frames().find((f) => f.url() === e2e.pages.otherSiteUrl('/framed')),
    );
    expect(await frame.textContent('#state')).toBe('not clicked');
    await frame.click('#inner');
    expect(await frame.textContent('#state')).toBe('clicked in frame');
    // It really is another site, in its own process: Chrome lists it as an iframe target, which
    // the relay reaches only through a child session of the tab.
    const iframes = await e2e.browser.targets('iframe');
    expect(iframes.some((t) => t.url === e2e.pages.otherSiteUrl('/framed'))).toBe(true);
  });

  it('opens a raw CDP session on the page', async () => {
    await page.goto(e2e.pages.url('/form'));
    const session = await page.context().newCDPSession(page);
    const { result } = await session.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
    expect(result.value).toBe('form');
    await session.detach();
    expect(await page.evaluate(() => document.title)).toBe('form');
  });

  // Older Chromium refused DOM.setFileInputFiles from an extension unless it answered an
  // intercepted file chooser; both of Playwright's upload paths must work for a relay client.
  it('uploads files with setInputFiles and through a file chooser', async () => {
    await page.goto(e2e.pages.url('/upload'));
    await page.setInputFiles('#file', temp.file('direct.txt', 'hello'));
    expect(await page.textContent('#got')).toBe('direct.txt:5');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#file')]);
    await chooser.setFiles(temp.file('chosen.txt', 'lobster!'));
    expect(await page.textContent('#got')).toBe('chosen.txt:8');
  });
});
