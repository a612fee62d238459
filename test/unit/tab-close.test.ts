// A managed tab's close that Chrome answered but did not carry out is said again from the page.
import { describe, expect, it } from 'vitest';
import type { OwnCall } from '../../relay/browser/client-new-tabs';
import { closeTab } from '../../relay/browser/tab-close';

/** A browser whose closeTarget closes the tab (or not); what it was told, in order. */
function browser(closes: boolean) {
  const said: string[] = [];
  let listed = true;
  const call = (async (method: string, _params: Record<string, unknown>, options?: { sessionId?: string }) => {
    said.push(options?.sessionId ? `${method} on ${options.sessionId}` : method);
    if (method === 'Target.closeTarget' && closes) listed = false;
    if (method === 'Page.close') listed = false;
    if (method === 'Target.getTargets') return { targetInfos: listed ? [{ targetId: 'T' }] : [] };
    if (method === 'Target.attachToTarget') return { sessionId: 'S' };
    return {};
  }) as OwnCall;
  return { call, said, listed: () => listed };
}

describe('closeTab', () => {
  it('answers once the tab is gone, with nothing more said when Chrome closed it', async () => {
    const b = browser(true);
    await closeTab(b.call, 'T');
    expect(b.said).toEqual(['Target.closeTarget', 'Target.getTargets']);
  });

  it('closes a tab Chrome left open from its own page, and lets the session go', async () => {
    const b = browser(false);
    await closeTab(b.call, 'T');
    expect(b.listed()).toBe(false);
    expect(b.said.slice(-3)).toEqual(['Target.attachToTarget', 'Page.close on S', 'Target.detachFromTarget']);
  });

  it('answers a close Chrome took even when the list that checks it fails', async () => {
    const b = browser(true);
    const failing = (async (method: string, params: Record<string, unknown>, options?: { sessionId?: string }) => {
      if (method === 'Target.getTargets') throw new Error('the browser went');
      return b.call(method, params, options);
    }) as OwnCall;
    await expect(closeTab(failing, 'T')).resolves.toBeUndefined();
    expect(b.said).toEqual(['Target.closeTarget']);
  });
});
