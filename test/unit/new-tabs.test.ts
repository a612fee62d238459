// New tabs while the relay holds them (extension/src/new-tabs.ts), against stand-ins for Chrome's
// tabs and the extension's rules: a pop-up's refused load is made again once the relay lets the
// tab go — unless the tab went on to the relay's /blocked page meanwhile (its opener sent it
// there), whose later load stands: made after it, the refused one would come when the call that
// opened the tab had answered, judged by no call.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { NewTabs } from '../../extension/src/new-tabs';
import type { PolicyRules } from '../../extension/src/policy-rules';
import type { TabAttachments } from '../../extension/src/tab-attachments';
import type { TabGroups } from '../../extension/src/tab-groups';
import { quiet, until } from '../helpers/waits';

const RELAY = 'http://127.0.0.1:9';

/** A held pop-up (tab 7) showing `at`; what was loaded in it again is in `updates`. */
function heldPopup(at: string) {
  const updates: string[] = [];
  vi.stubGlobal('chrome', {
    tabs: {
      get: async (tabId: number) => ({ id: tabId, url: at }),
      update: async (_tabId: number, { url }: { url: string }) => void updates.push(url),
    },
  });
  const rules = {
    holdingNew: true,
    isHeldNew: () => true,
    releaseNew: async () => {},
    isBlockedPage: (url: string) => url.startsWith(`${RELAY}/blocked?`),
  } as unknown as PolicyRules;
  const attachments = { has: () => false } as unknown as TabAttachments;
  const tabs = new NewTabs(rules, attachments, {} as TabGroups);
  expect(tabs.refused(7, 'https://other.test/page')).toBe(true);
  return { tabs, updates };
}

describe('a held pop-up let go', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('has its refused load made again', async () => {
    const { tabs, updates } = heldPopup('https://other.test/page');
    await tabs.release(7);
    await until('the load made again', () => updates.length === 1);
    expect(updates).toEqual(['https://other.test/page']);
  });

  it('keeps the relay’s /blocked page its opener sent it to since: the refused load is not made after it', async () => {
    const { tabs, updates } = heldPopup(`${RELAY}/blocked?url=x&reason=y`);
    await tabs.release(7);
    await quiet(50);
    expect(updates).toEqual([]);
  });
});
