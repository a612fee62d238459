// A pop-up of the person's attached tab held before it loads (relay/cdp/held-tabs.ts): the
// extension holds new tabs only while clawd's pop-up hold (its key and `?clawd=popups`) asks for
// new targets paused; that connection alone is shown a held pop-up waiting, and its word to run
// it alone has the extension let the pop-up load. A raw client saying `?clawd=popups` without
// clawd's key is any client: it cannot hold the person's tabs nor let one go.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { quiet, until } from '../helpers/waits';

const OPENER = fakeTab(1);
const POPUP = { ...fakeTab(2, { openerId: OPENER.targetInfo.targetId }), held: true };

describe('a held pop-up through the relay', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];
  const ops = (op: string) => ext.requests.filter((r) => r.op === op);
  /** A client at the browser's root that auto-attaches pages paused, as Playwright and the pop-up hold do. */
  async function atRoot(holder: 'clawd' | 'impostor' | 'plain'): Promise<CdpClient> {
    const url = holder === 'plain' ? t.cdpWsUrl : `${t.cdpWsUrl}&clawd=popups`;
    const c = await CdpClient.connect(
      url,
      holder === 'clawd' ? { headers: { 'x-clawd-agent': t.relay.agentKey } } : {},
    );
    clients.push(c);
    await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    return c;
  }
  const told = (c: CdpClient) =>
    c.waitForEvent('Target.attachedToTarget', (e) => e.params.targetInfo.targetId === POPUP.targetInfo.targetId);

  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [OPENER]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  it('shows the pop-up hold a held pop-up paused and lets the extension release it on its word alone', async () => {
    const impostor = await atRoot('impostor');
    const plain = await atRoot('plain');
    expect(ops('holdNewTabs')).toEqual([]);
    const hold = await atRoot('clawd');
    // Answered once the extension holds new tabs: a pop-up opened right after is held.
    expect(ops('holdNewTabs')).toMatchObject([{ op: 'holdNewTabs', on: true }]);

    ext.send({ type: 'tabAttached', tab: POPUP });
    const [toHold, toPlain, toImpostor] = await Promise.all([told(hold), told(plain), told(impostor)]);
    expect(toHold.params.waitingForDebugger).toBe(true);
    expect(toPlain.params.waitingForDebugger).toBe(false);
    expect(toImpostor.params.waitingForDebugger).toBe(false);

    // Another client's word to run it goes to the tab as any command does: nothing is released.
    await impostor.send('Runtime.runIfWaitingForDebugger', {}, toImpostor.params.sessionId);
    await plain.send('Runtime.runIfWaitingForDebugger', {}, toPlain.params.sessionId);
    expect(ops('releaseTab')).toEqual([]);
    // The hold's word releases it, once.
    await hold.send('Runtime.runIfWaitingForDebugger', {}, toHold.params.sessionId);
    await until('the pop-up released', () => ops('releaseTab').length > 0);
    expect(ops('releaseTab')).toMatchObject([{ op: 'releaseTab', tabId: 2 }]);
    await hold.send('Runtime.runIfWaitingForDebugger', {}, toHold.params.sessionId);
    await quiet(50);
    expect(ops('releaseTab')).toHaveLength(1);

    // The hold's connection gone, new tabs are held no longer.
    await hold.close();
    await until('new tabs let go', () => ops('holdNewTabs').length === 2);
    expect(ops('holdNewTabs').at(-1)).toMatchObject({ on: false });
  });

  it('lets a held pop-up go at once when no pop-up hold is there to run it', async () => {
    await atRoot('plain');
    ext.send({ type: 'tabAttached', tab: POPUP });
    await until('the pop-up released', () => ops('releaseTab').length > 0);
    expect(ops('releaseTab') as RequestFrame[]).toMatchObject([{ op: 'releaseTab', tabId: 2 }]);
  });
});
