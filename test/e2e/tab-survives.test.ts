// A tab the person handed over survives what their browser does: a detour through a chrome://
// page (Chrome detaches the debugger there) and a reload of the extension (what an update
// does). Clients keep the same session id and carry on — Playwright sees a navigation, not a
// vanished page — and nobody clicks the toolbar again.

import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extensionDriver, useAgentDriver } from '../helpers/agent-drivers';
import { CdpClient } from '../helpers/cdp-client';
import { until } from '../helpers/waits';

describe('a handed-over tab in a browser that misbehaves', () => {
  const ctx = useAgentDriver(extensionDriver);
  let playwright: Browser;
  let page: Page;
  const record = () => ctx.d.server.server.relay.switchboard.tabs().find((t) => t.targetId === ctx.d.targetId);
  const goTo = async (url: string) =>
    ctx.d.browser!.swEval(
      `chrome.tabs.update(${await ctx.d.browser!.tabIdOf(ctx.d.targetId)}, { url: ${JSON.stringify(url)} }).then(() => true)`,
    );

  beforeAll(async () => {
    playwright = await chromium.connectOverCDP(`${ctx.d.server.server.relay.url}/?token=${ctx.d.server.token}`);
    page = playwright
      .contexts()[0]!
      .pages()
      .find((p) => p.url() === ctx.pages.url('/'))!;
    expect(await page.evaluate('1 + 1')).toBe(2);
  });
  afterAll(async () => playwright?.close());

  it('keeps the tab through a chrome:// page: same session, paused meanwhile, Playwright carries on', async () => {
    const sessionId = record()!.sessionId;
    const tabId = await ctx.d.browser!.tabIdOf(ctx.d.targetId);
    const raw = await CdpClient.connect(
      `${ctx.d.server.server.relay.url.replace('http', 'ws')}/devtools/page/${ctx.d.targetId}?token=${ctx.d.server.token}`,
    );
    try {
      await goTo('chrome://version');
      await until('the tab paused on chrome://version', () => record()?.parked === 'chrome://version/');
      expect(record()!.sessionId).toBe(sessionId);
      await until('the badge to say so', async () =>
        (await ctx.d.browser!.badge(tabId)).title.includes('chrome://version'),
      );
      const refused = await raw.send('Runtime.evaluate', { expression: '1' }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(refused).toContain('which cannot be automated; it comes back when the tab returns to a web page');

      await goTo(ctx.pages.url('/form'));
      await until('the tab attached again', () => record() !== undefined && record()!.parked === undefined);
      expect(record()!.sessionId).toBe(sessionId);
      // As after any navigation: the page's new document answers once its context is there.
      await until(
        'Playwright on the new page',
        async () => (await page.evaluate('location.pathname').catch(() => '')) === '/form',
      );
      await page.locator('#name').fill('back');
      await page.locator('#go').click();
      expect(await page.locator('#out').textContent()).toBe('clicked back');
      expect(
        (
          await raw.send<{ result: { value: number } }>('Runtime.evaluate', {
            expression: '6 * 7',
            returnByValue: true,
          })
        ).result.value,
      ).toBe(42);
      expect((await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).body.snapshot).toContain('button "Go"');
      await until('the badge ON again', async () => (await ctx.d.browser!.badge(tabId)).text === 'ON');
    } finally {
      await raw.close();
    }
  });

  it('keeps the tab through a reload of the extension: it reconnects within 5 s and the same session answers', async () => {
    const switchboard = ctx.d.server.server.relay.switchboard;
    const sessionId = record()!.sessionId;
    const raw = await CdpClient.connect(
      `${ctx.d.server.server.relay.url.replace('http', 'ws')}/devtools/page/${ctx.d.targetId}?token=${ctx.d.server.token}`,
    );
    const worker = (await ctx.d.browser!.workerTarget())!.targetId;
    await ctx.d.browser!.swEval('setTimeout(() => chrome.runtime.reload(), 50), true');
    await until(
      'a new extension worker',
      async () => ((await ctx.d.browser!.workerTarget())?.targetId ?? worker) !== worker,
      5_000,
    );
    await until('the extension to come back', () => switchboard.extensionConnected, 5_000);
    await until(
      'the tab attached again',
      () => record()?.sessionId === sessionId && record()!.parked === undefined,
      5_000,
    );
    await until(
      'Playwright on the same page',
      async () => (await page.evaluate('location.pathname').catch(() => '')) === '/form',
    );
    expect(await page.evaluate('document.title')).toBe('form');
    expect(
      (
        await raw.send<{ result: { value: string } }>('Runtime.evaluate', {
          expression: 'document.title',
          returnByValue: true,
        })
      ).result.value,
    ).toBe('form');
    await raw.close();
    expect((await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).status).toBe(200);
  });
});
