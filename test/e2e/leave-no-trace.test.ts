import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/waits';
import { startE2e, type E2eSetup } from '../helpers/session';

describe("an agent's session leaves the user's tab as it found it", () => {
  let e2e: E2eSetup;
  beforeAll(async () => {
    e2e = await startE2e();
  });
  afterAll(() => e2e?.close());

  it('drops emulation and init scripts when the last client disconnects, and the tab stays attached', async () => {
    const tab = await e2e.browser.openTab(e2e.pages.url('/form'));
    await e2e.attach(tab);
    const harness = await e2e.browser.pageSession(tab.pageTargetId);
    const inPage = async (expression: string) =>
      (await e2e.browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true }, harness)).result.value;

    const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    const page = await until('the page', () => browser.contexts()[0]?.pages()[0]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.addInitScript(() => ((window as unknown as { leftover: boolean }).leftover = true));
    await page.reload();
    expect(await inPage('matchMedia("(prefers-color-scheme: dark)").matches')).toBe(true);
    expect(await inPage('window.leftover === true')).toBe(true);

    await browser.close();
    await until(
      'the dark override to go',
      async () => (await inPage('matchMedia("(prefers-color-scheme: dark)").matches')) === false,
    );
    await e2e.browser.cdp.send('Page.reload', {}, harness);
    await until('the page to reload', async () => (await inPage('document.readyState')) === 'complete');
    expect(await inPage('window.leftover === undefined')).toBe(true);

    // Still handed to the agent: the next client drives it at once.
    expect((await e2e.json<Array<{ id: string }>>('/json/list')).some((t) => t.id === tab.pageTargetId)).toBe(true);
    const next = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    const nextPage = await until('the page again', () => next.contexts()[0]?.pages()[0]);
    expect(await nextPage.evaluate(() => document.title)).toBe('form');
    await next.close();
  });
});
