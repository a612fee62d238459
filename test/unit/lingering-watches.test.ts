// The watches calls leave on their tabs (relay/agent/tabs/lingering-watches.ts), with stand-in
// watches and pages: a call's watch stays past the session letting the tab go, the next call on
// the same page takes it over, and it ends with the person's Stop, when the page closes, or with
// clawd — nothing else an agent can bring about; a new tab it holds is judged on past its tab.

import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ActionWatch, WatchOptions } from '../../relay/agent/actions/action-watch';
import { LingeringWatches, type LingeringDeps } from '../../relay/agent/tabs/lingering-watches';
import type { AgentPage } from '../../relay/agent/tabs/page-finder';
import { tabKey } from '../../relay/agent/tabs/tab-key';

function standIns() {
  const deps = {
    questions: { ask: async () => {} },
    askOf: () => ['new-site'],
  } as unknown as LingeringDeps;
  const page = Object.assign(new EventEmitter(), { closed: false, isClosed: () => page.closed });
  const tab = tabKey('clawd', 'T1');
  const found = { tab, targetId: 'T1', page: page as unknown as Page } as AgentPage;
  const watch = () => {
    const w = { options: undefined as WatchOptions | undefined, left: false, tabLeft: false, newTabs: false };
    const asWatch = {
      use: (o: WatchOptions) => void (w.options = o),
      leave: async () => void (w.left = true),
      leaveTab: async () => {
        if (w.newTabs) w.tabLeft = true;
        else w.left = true;
      },
      get holdsNewTabs() {
        return w.newTabs && !w.left;
      },
    } as unknown as ActionWatch;
    return Object.assign(w, { asWatch });
  };
  return { deps, page, tab, found, watch };
}

const call = { profile: 'clawd', session: 's1', label: 'click "Pay"' };

describe('the watches calls leave on their tabs', () => {
  it('stays past the call, and the next call on the page takes it over', () => {
    const { deps, tab, found, watch } = standIns();
    const lingering = new LingeringWatches(deps);
    const w = watch();
    lingering.stay(call, found, w.asWatch, new Set());
    expect([...w.options!.kinds]).toEqual(['new-site']);
    expect(lingering.take(tab, found.page)).toBe(w.asWatch);
    expect(lingering.take(tab, found.page)).toBeUndefined();
    expect(w.left).toBe(false);
  });

  it('is ended by nothing an agent does but another watched call: the person’s Stop ends it', () => {
    const { deps, tab, found, watch } = standIns();
    const lingering = new LingeringWatches(deps);
    const w = watch();
    lingering.stay(call, found, w.asWatch, new Set());
    lingering.endProfile('other');
    expect(w.left).toBe(false);
    lingering.endProfile('clawd');
    expect(w.left).toBe(true);
    expect(lingering.take(tab, found.page)).toBeUndefined();
  });

  it('ends with its page, and a page that is not the one it watched is not taken over', () => {
    const { deps, tab, found, watch, page } = standIns();
    const lingering = new LingeringWatches(deps);
    const first = watch();
    lingering.stay(call, found, first.asWatch, new Set());
    expect(lingering.take(tab, new EventEmitter() as unknown as Page)).toBeUndefined();
    expect(first.left).toBe(true);
    const second = watch();
    lingering.stay(call, found, second.asWatch, new Set());
    page.closed = true;
    page.emit('close');
    expect(second.left).toBe(true);
    expect(page.listenerCount('close')).toBe(0);
    const third = watch();
    page.closed = false;
    lingering.stay(call, found, third.asWatch, new Set());
    lingering.close();
    expect(third.left).toBe(true);
  });

  it('judges on a new tab it holds when its tab goes or another watch stays there, until the person’s Stop', () => {
    const { deps, found, watch, page } = standIns();
    const lingering = new LingeringWatches(deps);
    const first = watch();
    first.newTabs = true;
    lingering.stay(call, found, first.asWatch, new Set());
    // A second call's watch stays on the tab (calls beside each other): the first keeps its new tab.
    const second = watch();
    second.newTabs = true;
    lingering.stay(call, found, second.asWatch, new Set());
    expect(first).toMatchObject({ tabLeft: true, left: false });
    // Its page closes (an agent may close it): the new tab is still judged.
    page.closed = true;
    page.emit('close');
    expect(second).toMatchObject({ tabLeft: true, left: false });
    // One whose new tabs went is let go when the next is kept.
    first.newTabs = false;
    const third = watch();
    page.closed = false;
    lingering.stay(call, found, third.asWatch, new Set());
    lingering.endProfile('other');
    expect(second.left).toBe(false);
    lingering.endProfile('clawd');
    expect([first.left, second.left, third.left]).toEqual([true, true, true]);
  });
});
