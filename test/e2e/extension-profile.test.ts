import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../helpers/chromium';
import { until } from '../helpers/waits';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';

describe('the chrome profile: extension tabs through the same API and CLI', () => {
  let t: TestServer;
  let pages: PageServer;
  let browser: TestBrowser;
  beforeAll(async () => {
    [t, pages, browser] = await Promise.all([startTestServer(), startPageServer(), TestBrowser.launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await pages?.close();
  });
  const relay = () => t.server.relay;
  const activeTabUrl = () =>
    browser.swEval<string>('chrome.tabs.query({ active: true, lastFocusedWindow: true }).then(([t]) => t?.url)');
  /** The person ticks "Agents may bring their tabs to the front" on the options page. */
  const letAgentsFocus = () =>
    browser.withOptionsPage(async (inOptions) => {
      await until(
        'the option shown off',
        async () => (await inOptions(`document.getElementById('may-focus')?.checked`)) === false,
      );
      await inOptions(`document.getElementById('may-focus').click()`);
      await until(
        'the option saved',
        async () =>
          (await browser.swEval(`chrome.storage.local.get('agentsMayFocusTabs').then((s) => s.agentsMayFocusTabs)`)) ===
          true,
      );
    });

  it('doctor says what is missing while the extension is absent', async () => {
    const doctor = await t.cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^✓ control API: reachable at http:\/\/127\.0\.0\.1:\d+ \(clawd \S+\)$/m);
    expect(doctor.stdout).toMatch(/^✓ token: accepted/m);
    expect(doctor.stdout).toMatch(/^✓ relay: reachable at/m);
    expect(doctor.stdout).toMatch(
      /^✗ extension: not connected: load dist\/extension in Chrome .* pair it with the link `clawd pair` prints/m,
    );
    expect(doctor.stdout).toMatch(/^! native host: not installed: `clawd install` lets Chrome start clawd/m);
    expect(doctor.stdout).toMatch(/^– tab evaluate: not checked: no extension$/m);
    expect(doctor.stdout).toMatch(/^✓ browser: .+ at \//m);
    expect(doctor.stdout).toMatch(/^✓ profile clawd: CDP port \d+ is free$/m);
    const status = (await t.api('POST', '/start', { profile: 'chrome' })).body;
    expect(status).toMatchObject({
      driver: 'extension',
      running: false,
      hint: expect.stringContaining('extension is not connected'),
    });
    const snapshot = await t.api('GET', '/snapshot', { profile: 'chrome' });
    expect(snapshot).toMatchObject({
      status: 503,
      body: { error: { code: 'extension_not_connected', message: status.hint } },
    });
  });

  it('lists, opens, focuses and closes the tabs the user handed over', async () => {
    await browser.configureExtension(relay().port, t.extensionKey);
    await until('the extension to connect', () => relay().switchboard.extensionConnected);
    const none = (await t.api('POST', '/start', { profile: 'chrome' })).body;
    expect(none).toMatchObject({
      running: true,
      attachedTabs: 0,
      extension: { connected: true, version: expect.any(String) },
      hint: expect.stringContaining('click the clawd toolbar button'),
    });
    // An agent's call with nothing handed over says what the person must do.
    expect(await t.api('GET', '/snapshot', { profile: 'chrome' })).toMatchObject({
      status: 404,
      body: {
        error: {
          code: 'target_not_found',
          message: expect.stringContaining('ask the person to click the clawd toolbar button on the tab to use'),
        },
      },
    });

    const handed = await browser.openTab(pages.url('/form'));
    await browser.clickToolbar(handed);
    await until(
      'the tab to be attached',
      async () => (await t.api('GET', '/tabs', { profile: 'chrome' })).body.tabs.length === 1,
    );
    const [tab] = (await t.api('GET', '/tabs', { profile: 'chrome' })).body.tabs;
    expect(tab).toEqual({ targetId: handed.pageTargetId, title: 'form', url: pages.url('/form'), type: 'page' });
    expect((await t.api('GET', '/', { profile: 'chrome' })).body).toMatchObject({ running: true, attachedTabs: 1 });

    const opened = await t.api('POST', '/tabs/open', { profile: 'chrome', body: { url: pages.url('/console') } });
    expect(opened.body).toMatchObject({ url: pages.url('/console'), type: 'page' });
    expect(
      (await t.api('GET', '/tabs', { profile: 'chrome' })).body.tabs
        .map((x: { targetId: string }) => x.targetId)
        .sort(),
    ).toEqual([handed.pageTargetId, opened.body.targetId].sort());

    // The person's tab stays in front unless they let agents bring theirs forward (off by default).
    const focus = () =>
      t.api('POST', '/tabs/focus', { profile: 'chrome', body: { targetId: handed.pageTargetId.slice(0, 8) } });
    const front = await activeTabUrl();
    const refused = await focus();
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'focus_refused' } } });
    expect(refused.body.error.message).toContain('Agents may bring their tabs to the front');
    expect(await activeTabUrl()).toBe(front);
    await letAgentsFocus();
    expect((await focus()).status).toBe(200);
    await until('the handed-over tab to be in front', async () => (await activeTabUrl()) === pages.url('/form'));

    expect((await t.api('DELETE', `/tabs/${opened.body.targetId}`, { profile: 'chrome' })).status).toBe(200);
    await until(
      'the tab to be gone from the browser',
      async () => !(await browser.targets('page')).some((p) => p.targetId === opened.body.targetId),
    );
    expect(
      (await t.api('GET', '/tabs', { profile: 'chrome' })).body.tabs.map((x: { targetId: string }) => x.targetId),
    ).toEqual([handed.pageTargetId]);
  });

  it('does the same through the CLI', async () => {
    const tabs = await t.cli(['tabs', '--profile', 'chrome']);
    expect(tabs.stdout).toMatch(/^[0-9A-F]{8} {2}form {2}http:\/\/127\.0\.0\.1:\d+\/form\n$/);
    const opened = await t.cli(['open', pages.url('/'), '--profile', 'chrome']);
    const id = opened.stdout.split(' ')[1]!;
    expect((await t.cli(['focus', id, '--profile', 'chrome'])).code).toBe(0);
    await until('the opened tab to be in front', async () => (await activeTabUrl()) === pages.url('/'));
    expect((await t.cli(['close', id, '--profile', 'chrome'])).code).toBe(0);
    await until('the tab to close', async () => !(await t.cli(['tabs', '--profile', 'chrome'])).stdout.includes(id));
    const status = await t.cli(['status', '--profile', 'chrome']);
    expect(status.stdout).toMatch(/^chrome \(extension\): connected, 1 tab\(s\) attached/);
    expect((await t.cli(['stop', '--profile', 'chrome'])).stdout).toBe(
      "chrome is not clawd's to stop (extension profile)\n",
    );
  });

  it('doctor is all green with the extension connected and a tab attached', async () => {
    const doctor = await t.cli(['doctor']);
    expect(doctor.stdout).toMatch(/^✓ extension: connected, version \S+ \(Chrome\/\d+/m);
    expect(doctor.stdout).toMatch(/^✓ tab evaluate: 6\*7 = 42 on http:\/\/127\.0\.0\.1:\d+\/form$/m);
    expect(doctor.stdout).not.toMatch(/^✗/m);
    expect(doctor.code).toBe(0);
  });
});
