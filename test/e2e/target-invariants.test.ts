// A client's view of targets through the relay keeps CDP's rules (test/helpers/cdp-invariants.ts)
// while the person's tabs do what tabs do. Named regression: two tabs of one site share its
// service worker, and Chrome attaches that worker once under each tab; the relay showed it twice at
// the root and Playwright died ("Duplicate target", thrown inside its connection). It is shown
// once, through the other tab when the first goes, across reloads.

import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { TargetInvariants } from '../helpers/cdp-invariants';
import { startE2e, type E2eSetup } from '../helpers/session';
import { until } from '../helpers/waits';

describe("a client's view of targets through the relay", () => {
  let e2e: E2eSetup;
  beforeAll(async () => {
    e2e = await startE2e();
  });
  afterAll(async () => e2e?.close());

  it('shows a service worker two tabs share once, across reloads and a release, and Playwright keeps working', async () => {
    const first = await e2e.browser.openTab(e2e.pages.url('/sw-page'));
    await e2e.attach(first);
    const second = await e2e.browser.openTab(e2e.pages.url('/sw-page'));
    await e2e.attach(second);

    const raw = await CdpClient.connect(e2e.relay.cdpWsUrl);
    const watching = await CdpClient.connect(e2e.relay.cdpWsUrl);
    const rules = new TargetInvariants(raw);
    const discovering = new TargetInvariants(watching, true);
    let browser: Browser | undefined;
    try {
      await watching.send('Target.setDiscoverTargets', { discover: true });
      await watching.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
      await raw.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
      browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
      const context = browser.contexts()[0]!;
      const pages = context.pages();
      const ready = (page: (typeof pages)[number]) =>
        until('the worker ready', async () => (await page.textContent('#state')) === 'ready');
      for (const page of pages) await ready(page);
      await until('one worker', () => context.serviceWorkers().length === 1);
      for (let round = 0; round < 3; round++) {
        for (const page of pages) {
          await page.reload();
          await ready(page);
        }
      }
      // The first tab is released: the worker stays, shown through the second.
      await e2e.browser.clickToolbar(first);
      await until(
        'the first tab released',
        async () => !(await e2e.json<Array<{ id: string }>>('/json/list')).some((t) => t.id === first.pageTargetId),
      );
      await pages
        .find((p) => !p.isClosed() && p.url().includes('/sw-page'))!
        .reload()
        .catch(() => {});
      expect(browser.isConnected()).toBe(true);
      const [worker] = context.serviceWorkers();
      expect(await worker!.evaluate(() => (self as unknown as { answer: number }).answer)).toBe(42);
      const workers = (await raw.send('Target.getTargets')).targetInfos.filter(
        (t: { type: string }) => t.type === 'service_worker',
      );
      expect(workers).toHaveLength(1);
      expect(rules.breaks).toEqual([]);
      expect(discovering.breaks).toEqual([]);
      expect(rules.attachedTargets().filter((id) => id === workers[0].targetId)).toHaveLength(1);
    } finally {
      rules.stop();
      discovering.stop();
      await browser?.close();
      await Promise.all([raw.close(), watching.close()]);
    }
  });
});
