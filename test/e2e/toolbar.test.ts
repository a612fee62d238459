import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/waits';
import { startE2e, type E2eSetup } from '../helpers/session';

describe('the toolbar button hands a tab to the agent', () => {
  let e2e: E2eSetup;
  beforeAll(async () => {
    e2e = await startE2e();
  });
  afterAll(() => e2e?.close());

  it('attaches on a real click (badge ON, listed), and a second click releases it', async () => {
    const tab = await e2e.browser.openTab(e2e.pages.url('/form'));
    const tabId = await e2e.browser.tabIdOf(tab.pageTargetId);
    expect((await e2e.browser.badge(tabId)).text).toBe('');

    await e2e.attach(tab);
    const listed =
      await e2e.json<Array<{ id: string; type: string; url: string; title: string; webSocketDebuggerUrl: string }>>(
        '/json/list',
      );
    const entry = listed.find((t) => t.id === tab.pageTargetId)!;
    expect(entry).toMatchObject({ type: 'page', url: e2e.pages.url('/form'), title: 'form' });
    expect(entry.webSocketDebuggerUrl).toContain(`/devtools/page/${tab.pageTargetId}`);
    await until('badge ON', async () => (await e2e.browser.badge(tabId)).text === 'ON');

    await e2e.browser.clickToolbar(tab);
    await until(
      'the tab to leave /json/list',
      async () => !(await e2e.json<Array<{ id: string }>>('/json/list')).some((t) => t.id === tab.pageTargetId),
    );
    await until('badge cleared', async () => (await e2e.browser.badge(tabId)).text === '');
  });
});
