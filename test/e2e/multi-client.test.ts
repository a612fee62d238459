import { chromium, type Browser } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/waits';
import { startE2e, type E2eSetup } from '../helpers/session';

describe('several CDP clients share one extension tab', () => {
  let e2e: E2eSetup;
  const opened: Array<{ close(): Promise<unknown> }> = [];

  beforeAll(async () => {
    e2e = await startE2e();
    await e2e.attach(await e2e.browser.openTab(e2e.pages.url('/form')));
  });
  afterAll(async () => {
    for (const client of opened) await client.close().catch(() => {});
    await e2e?.close();
  });

  const formUrl = () => e2e.pages.url('/form');
  async function playwright(): Promise<Browser> {
    const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    opened.push(browser);
    return browser;
  }
  const pwPage = (browser: Browser) =>
    until('the tab in Playwright', () =>
      browser
        .contexts()[0]
        ?.pages()
        .find((p) => p.url() === formUrl()),
    );

  it('two Playwright clients and Puppeteer drive the same tab at once; one leaving does not disturb the others', async () => {
    const a = await playwright();
    const b = await playwright();
    const p: PuppeteerBrowser = await puppeteer.connect({
      browserWSEndpoint: e2e.relay.cdpWsUrl,
      defaultViewport: null,
    });
    opened.push(p);
    const pageA = await pwPage(a);
    const pageB = await pwPage(b);
    const pageP = await until('the tab in Puppeteer', async () =>
      (await p.pages()).find((pg) => pg.url() === formUrl()),
    );

    // Each sees what the others did: one page, three drivers.
    await pageA.fill('#name', 'from A');
    expect(await pageB.inputValue('#name')).toBe('from A');
    expect(await pageP.$eval('#name', (el) => (el as HTMLInputElement).value)).toBe('from A');
    await pageP.type('#name', ' and P');
    expect(await pageA.evaluate(() => (document.querySelector('#name') as HTMLInputElement).value)).toBe(
      'from A and P',
    );

    // A disconnects; B and Puppeteer carry on.
    await a.close();
    await pageB.click('#go');
    expect(await pageP.$eval('#out', (el) => el.textContent)).toBe('clicked from A and P');
    expect(await pageB.title()).toBe('form');

    // Puppeteer disconnects; B carries on, including across a navigation.
    await p.disconnect();
    await pageB.goto(e2e.pages.url('/console'));
    const message = pageB.waitForEvent('console');
    await pageB.click('#log');
    expect((await message).text()).toBe('hello from the page 42');
  });

  it('a client that connects later sees the page as it is (contexts, frames) and can evaluate at once', async () => {
    const first = await playwright();
    const firstPage = await until('the tab', () => first.contexts()[0]?.pages()[0]);
    await firstPage.goto(e2e.pages.url('/outer'));
    const late = await playwright();
    const latePage = await until('the tab in the late client', () => late.contexts()[0]?.pages()[0]);
    expect(await latePage.evaluate(() => document.title)).toBe('outer');
    const frame = await until('the cross-site frame in the late client', () =>
      latePage.frames().find((f) => f.url() === e2e.pages.otherSiteUrl('/framed')),
    );
    expect(await frame.textContent('#state')).toBe('not clicked');
    await frame.click('#inner');
    expect(
      await firstPage
        .frames()
        .find((f) => f.url().includes('/framed'))!
        .textContent('#state'),
    ).toBe('clicked in frame');
  });
});
