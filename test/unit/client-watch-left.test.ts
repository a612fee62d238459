// A raw CDP client's watch on a tab (relay/agent/control-calls.ts `watchTab`, asked by
// relay/cdp/raw-watches.ts) outlives the client: when it goes, what the watch holds is answered
// and the watch is handed on (tab-gate.ts keeps it on the tab), so a script the client left that
// sends a form later is still judged — not ended with the client, as it was.

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ActionWatch } from '../../relay/agent/actions/action-watch';
import type { AgentCalls } from '../../relay/agent/agent-calls';
import { ControlCalls } from '../../relay/agent/control-calls';
import type { AgentPage } from '../../relay/agent/tabs/page-finder';
import { tabKey } from '../../relay/agent/tabs/tab-key';

describe('a raw client’s watch on a tab', () => {
  it('is handed on when the client goes, not ended, and the next client goes on with it', async () => {
    const sent: string[] = [];
    const session = {
      on: () => {},
      send: async (method: string) => {
        sent.push(method);
        return method === 'Page.getFrameTree' ? { frameTree: { frame: { id: 'MAIN' } } } : {};
      },
      detach: async () => {},
    };
    const page = { context: () => ({ newCDPSession: async () => session }) } as unknown as Page;
    const found = { page, targetId: 'T1', tab: tabKey('chrome', 'T1') } as AgentPage;
    const calls = { pages: { find: async () => found, holdPopups: async () => {} } } as unknown as AgentCalls;
    const handed: Array<{ found: AgentPage; watch: ActionWatch; visited: Set<string> }> = [];
    let left: ActionWatch | undefined;
    const control = new ControlCalls(calls, {} as never, {} as never, {} as never, {} as never, {
      take: () => {
        const taken = left;
        left = undefined;
        return taken;
      },
      stay: (f, watch, visited) => {
        handed.push({ found: f, watch, visited });
        left = watch;
      },
    });
    const visited = new Set(['http://here']);
    const watch = await control.watchTab('chrome', {
      targetId: 'T1',
      kinds: new Set(['submit']),
      visited,
      ask: async () => {},
      left: () => 1_000,
    });
    expect(sent).toContain('Fetch.enable');
    await watch.stop();
    expect(handed).toHaveLength(1);
    expect(handed[0]!.found).toBe(found);
    expect(handed[0]!.visited).toBe(visited);
    // Still holding the tab's requests: its interception was not ended.
    expect(sent).not.toContain('Fetch.disable');
    // The next client on the tab goes on with that watch: one judge of each request, not two.
    const enabled = sent.filter((m) => m === 'Fetch.enable').length;
    const next = await control.watchTab('chrome', {
      targetId: 'T1',
      kinds: new Set(['submit']),
      visited: new Set(),
      ask: async () => {},
      left: () => 1_000,
    });
    expect(sent.filter((m) => m === 'Fetch.enable')).toHaveLength(enabled);
    await next.stop();
    expect(handed.map((h) => h.watch)).toEqual([handed[0]!.watch, handed[0]!.watch]);
    await handed[0]!.watch.leave();
    expect(sent).toContain('Fetch.disable');
  });
});
