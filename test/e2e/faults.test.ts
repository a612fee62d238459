import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startRelayServer } from '../../relay/cdp/relay-server';
import { ServerToken } from '../../relay/http/server-token';
import { ServerKeys } from '../../relay/http/server-keys';
import { CdpClient } from '../helpers/cdp-client';
import { quiet, until, within } from '../helpers/waits';
import { startE2e, type E2eSetup } from '../helpers/session';

describe('faults', () => {
  let e2e: E2eSetup | undefined;
  afterEach(async () => {
    await e2e?.close();
    e2e = undefined;
  });

  it('a restarted service worker reconnects and a connected Playwright keeps working on the same page', async () => {
    e2e = await startE2e();
    const tab = await e2e.browser.openTab(e2e.pages.url('/console'));
    await e2e.attach(tab);
    const sessionBefore = await e2e.sessionIdOf(tab.pageTargetId);
    const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
    let disconnected = false;
    browser.on('disconnected', () => (disconnected = true));
    const page = await until('the page', () => browser.contexts()[0]?.pages()[0]);
    let pageClosed = false;
    page.on('close', () => (pageClosed = true));
    expect(await page.evaluate(() => 6 * 7)).toBe(42);

    await e2e.browser.terminateWorker();
    await until('the relay to notice', () => !e2e!.relay.relay.switchboard.extensionConnected);

    // Any debugger event wakes a fresh worker (measured); here the page logs something. The event
    // that woke it must still reach Playwright once the worker has reconnected.
    const woke = page.waitForEvent('console');
    const harness = await e2e.browser.pageSession(tab.pageTargetId);
    await e2e.browser.cdp.send('Runtime.evaluate', { expression: 'console.log("wake up")' }, harness);
    expect((await woke).text()).toBe('wake up');
    await until('the extension to reconnect', () => e2e!.relay.relay.switchboard.extensionConnected);

    expect(await page.evaluate(() => document.title)).toBe('console');
    await page.click('#log');
    expect(await e2e.sessionIdOf(tab.pageTargetId)).toBe(sessionBefore);
    expect(disconnected).toBe(false);
    expect(pageClosed).toBe(false);
    await browser.close();
  });

  it('after a relay restart the extension reconnects within 5 s and its tabs reappear', async () => {
    e2e = await startE2e();
    const tab = await e2e.browser.openTab(e2e.pages.url('/form'));
    await e2e.attach(tab);
    const { port, token } = e2e.relay;
    const tabId = await e2e.browser.tabIdOf(tab.pageTargetId);
    await e2e.relay.relay.close();
    // While the relay is away the badge says so, with the reason, instead of a stale ON.
    const away = await until('the badge to leave ON', async () => {
      const b = await e2e!.browser.badge(tabId);
      return b.text !== 'ON' ? b : undefined;
    });
    expect(['!', '…']).toContain(away.text);
    expect(away.title).toMatch(/relay/);

    const restarted = await startRelayServer({
      port,
      token: new ServerToken(token),
      keys: new ServerKeys({ person: 'p'.repeat(32), extension: e2e.relay.extensionKey }),
    });
    try {
      const started = Date.now();
      await until('the extension to reconnect', () => restarted.switchboard.extensionConnected, 5_000, 20);
      console.log(`relay restart: the extension was back ${Date.now() - started} ms after the relay was`);
      await until(
        'the tab to reappear',
        () => restarted.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
        5_000 - (Date.now() - started),
        20,
      );
      const browser = await chromium.connectOverCDP(`${restarted.url}/?token=${token}`);
      const page = await until('the page', () => browser.contexts()[0]?.pages()[0]);
      expect(await page.evaluate(() => document.title)).toBe('form');
      await browser.close();
      await until('the badge to read ON again', async () => (await e2e!.browser.badge(tabId)).text === 'ON');
    } finally {
      await restarted.close();
    }
  });

  it('with the extension gone, a pending command fails at once and a new one within a bound, naming the method', async () => {
    e2e = await startE2e();
    const tab = await e2e.browser.openTab(e2e.pages.url('/'));
    await e2e.attach(tab);
    const client = await CdpClient.connect(e2e.relay.cdpWsUrl);
    const { sessionId } = await client.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true });
    const forever = client.send(
      'Runtime.evaluate',
      { expression: 'new Promise(() => {})', awaitPromise: true },
      sessionId,
    );
    forever.catch(() => {});
    await quiet(200); // the command is in the tab by now

    await e2e.browser.terminateWorker();
    await expect(within(3_000, forever, 'the pending command')).rejects.toThrow(
      /Runtime\.evaluate.*extension disconnected/,
    );

    const later = client.send('DOM.getDocument', {}, sessionId);
    await expect(within(10_000, later, 'the new command')).rejects.toThrow(
      /DOM\.getDocument was not sent: the clawd extension is not connected/,
    );
    // The client itself is still served.
    expect((await client.send('Browser.getVersion')).product).toMatch(/^Chrome\//);
    await client.close();
  });
});
