// The relay's side of a resting tab (relay/cdp/tab-rest.ts), with a scripted extension: a tab
// unused for idleDetachMs is asked to rest once its frames are noted; the first command after
// wakes it before it goes; a rest the extension refuses leaves the tab as it was; a tab that
// closed while it rested answers the command that would have woken it at once; one the extension
// could not attach again answers with why, and the next command tries again. A child target
// (an out-of-process frame) Chrome attaches again under a new session id after the wake is the
// same child to the agent layer's client, under the id it knew; one Chrome does not attach again
// is gone.

import { afterEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { quiet, until } from '../helpers/waits';

const IDLE_MS = 150;
const tab = fakeTab(4);
const frameTree = { frameTree: { frame: { id: tab.targetInfo.targetId, loaderId: 'L1', url: tab.targetInfo.url } } };

/** The extension's answers: a frame tree for Page.getFrameTree, `rest` for restTab, the tab for wakeTab. */
function answers(rest: () => unknown = () => ({})) {
  return (request: RequestFrame): unknown => {
    if (request.op === 'cdp' && request.method === 'Page.getFrameTree') return frameTree;
    if (request.op === 'restTab') return rest();
    if (request.op === 'wakeTab') return { targetInfo: tab.targetInfo };
    return {};
  };
}
const ops = (ext: FakeExtension) =>
  ext.requests.filter((r) => r.op !== 'setPolicy').map((r) => (r.op === 'cdp' ? r.method : r.op));

describe('a resting tab, as the relay keeps it', () => {
  let t: TestRelay;
  afterEach(() => t?.close());

  it('lets an unused tab rest, and wakes it before the next command goes', async () => {
    t = await startTestRelay({ idleDetachMs: IDLE_MS });
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [tab]);
    ext.handler = answers();
    await until('the tab to rest', () => ops(ext).includes('restTab'));
    expect(ops(ext).slice(-2)).toEqual(['Page.getFrameTree', 'restTab']);
    // At rest it stays at rest: nothing of the relay's own wakes it.
    await quiet(IDLE_MS * 3);
    expect(ops(ext).slice(-2)).toEqual(['Page.getFrameTree', 'restTab']);
    const client = await CdpClient.connect(
      `ws://127.0.0.1:${t.port}/devtools/page/${tab.targetInfo.targetId}?token=${t.token}`,
    );
    try {
      expect(await client.send('DOM.getDocument')).toEqual({});
      const after = ops(ext).slice(ops(ext).indexOf('restTab') + 1);
      expect(after[0]).toBe('wakeTab');
      expect(after.at(-1)).toBe('DOM.getDocument');
      // Held by a client of its own: it rests no more while it stays.
      await quiet(IDLE_MS * 3);
      expect(ops(ext).filter((op) => op === 'restTab')).toHaveLength(1);
    } finally {
      await client.close();
    }
    await until('a rest once the client left', () => ops(ext).filter((op) => op === 'restTab').length === 2);
  });

  it('leaves a tab as it was when the extension keeps it attached, and asks again later', async () => {
    t = await startTestRelay({ idleDetachMs: IDLE_MS });
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [tab]);
    ext.handler = answers(() => {
      throw new Error("the person's rules hold the tab's site's workers through its debugger session");
    });
    await until('the extension to refuse twice', () => ops(ext).filter((op) => op === 'restTab').length >= 2);
    const client = await CdpClient.connect(
      `ws://127.0.0.1:${t.port}/devtools/page/${tab.targetInfo.targetId}?token=${t.token}`,
    );
    try {
      expect(await client.send('DOM.getDocument')).toEqual({});
      expect(ops(ext)).not.toContain('wakeTab');
    } finally {
      await client.close();
    }
  });

  it('keeps a child across the rest under the id its client knew, and lets one that did not come back go', async () => {
    // Idle longer than the others: the tab must not rest before the agent's first command on the
    // frame (on a slow machine its setup took over 150 ms once, and the rest came early).
    t = await startTestRelay({ idleDetachMs: 1_000 });
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [tab]);
    const frame = {
      targetId: 'FRAME1',
      type: 'iframe',
      title: '',
      url: 'https://other.test/',
      attached: true,
      canAccessOpener: false,
    };
    const worker = { ...frame, targetId: 'WORKER1', type: 'worker' };
    let round = 0;
    ext.handler = (request) => {
      if (request.op === 'cdp' && request.method === 'Target.setAutoAttach' && request.sessionId === undefined) {
        round += 1;
        // Chrome attaches the children on the auto-attach: both the first time, only the frame after the rest.
        ext.event(tab.tabId, 'Target.attachedToTarget', {
          sessionId: `F${round}`,
          targetInfo: frame,
          waitingForDebugger: false,
        });
        if (round === 1)
          ext.event(tab.tabId, 'Target.attachedToTarget', {
            sessionId: 'W1',
            targetInfo: worker,
            waitingForDebugger: false,
          });
      }
      return answers()(request);
    };
    // clawd's own agent layer: it does not keep the tab attached.
    const agent = await CdpClient.connect(`ws://127.0.0.1:${t.port}/cdp?token=${t.token}`, {
      headers: { 'X-Clawd-Agent': t.relay.agentKey },
    });
    try {
      const { sessionId } = await agent.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId: tab.targetInfo.targetId,
        flatten: true,
      });
      await agent.send(
        'Target.setAutoAttach',
        { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
        sessionId,
      );
      await until(
        'both children announced',
        () =>
          agent.events.filter((e) => e.method === 'Target.attachedToTarget' && e.sessionId === sessionId).length === 2,
      );
      expect(ops(ext)).not.toContain('restTab');
      await agent.send('Runtime.enable', {}, 'F1');
      await until('the tab to rest', () => ops(ext).includes('restTab'));
      // Chrome says the children went as the debugger lets go: nobody is told.
      ext.event(tab.tabId, 'Target.detachedFromTarget', { sessionId: 'F1' });
      ext.event(tab.tabId, 'Target.detachedFromTarget', { sessionId: 'W1' });
      await quiet(50);
      expect(agent.events.filter((e) => e.method === 'Target.detachedFromTarget')).toEqual([]);
      // The agent's next command on the frame, by the id it knows: the tab wakes, the frame's setup
      // goes to Chrome's new session, and so does the command.
      expect(await agent.send('DOM.getDocument', {}, 'F1')).toEqual({});
      const onFrame = ext.requests
        .filter((r) => r.op === 'cdp' && r.sessionId !== undefined)
        .map((r) => r.op === 'cdp' && [r.sessionId, r.method]);
      expect(onFrame).toEqual([
        ['F1', 'Runtime.enable'],
        ['F2', 'Runtime.enable'],
        ['F2', 'DOM.getDocument'],
      ]);
      // The worker Chrome did not attach again is gone, said once, under the id the client knew.
      const detached = agent.events.filter((e) => e.method === 'Target.detachedFromTarget');
      expect(detached.map((e) => (e.params as { sessionId: string }).sessionId)).toEqual(['W1']);
      // Nothing announced again: the frame is the child it was.
      expect(
        agent.events.filter((e) => e.method === 'Target.attachedToTarget' && e.sessionId === sessionId),
      ).toHaveLength(2);
    } finally {
      await agent.close();
    }
  });

  it('answers the commands a failed wake held with why, and tries again for the next', async () => {
    t = await startTestRelay({ idleDetachMs: IDLE_MS });
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [tab]);
    ext.handler = answers();
    await until('the tab to rest', () => ops(ext).includes('restTab'));
    let refuse = true;
    ext.handler = (request) => {
      if (request.op === 'wakeTab' && refuse) throw new Error('the debugger could not attach just now');
      return answers()(request);
    };
    const client = await CdpClient.connect(
      `ws://127.0.0.1:${t.port}/devtools/page/${tab.targetInfo.targetId}?token=${t.token}`,
    );
    try {
      await expect(client.send('DOM.getDocument')).rejects.toThrow(/could not attach just now/);
      refuse = false;
      expect(await client.send('DOM.getDocument')).toEqual({});
      expect(ops(ext).filter((op) => op === 'wakeTab')).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('answers at once the command for a tab that closed while it rested', async () => {
    t = await startTestRelay({ idleDetachMs: IDLE_MS });
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [tab]);
    ext.handler = answers();
    await until('the tab to rest', () => ops(ext).includes('restTab'));
    ext.handler = (request) => {
      if (request.op !== 'wakeTab') return answers()(request);
      // As the extension does: the tab's end said first, then the wake's failure.
      ext.send({ type: 'tabDetached', tabId: tab.tabId, reason: 'target_closed' });
      throw new Error('the tab closed while it rested');
    };
    const client = await CdpClient.connect(`ws://127.0.0.1:${t.port}/cdp?token=${t.token}`);
    try {
      const { sessionId } = await client.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId: tab.targetInfo.targetId,
        flatten: true,
      });
      const began = Date.now();
      await expect(client.send('DOM.getDocument', {}, sessionId)).rejects.toThrow(
        /no longer attached|not found|closed/i,
      );
      expect(Date.now() - began).toBeLessThan(2_000);
    } finally {
      await client.close();
    }
  });
});
