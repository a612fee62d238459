// Root-level targets (a page's service worker, which Chrome reports under the page but a browser
// shows at its root) through the relay, against a scripted extension: a worker two tabs share is
// attached by Chrome once under each tab, and a client sees it once — through the other tab when
// the first goes — with targetCreated before it for a discovering client, targetDestroyed after
// the last, and the worker's "script loaded" told again to a client shown it later.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CdpClient } from '../helpers/cdp-client';
import { TargetInvariants } from '../helpers/cdp-invariants';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const TAB1 = fakeTab(1);
const TAB2 = fakeTab(2);
const WORKER = {
  targetId: 'SW0000000000000000000000000000000',
  type: 'service_worker',
  title: 'sw',
  url: 'https://example.test/sw.js',
  attached: true,
  canAccessOpener: false,
  browserContextId: 'CTX1',
};

describe('root-level targets through the relay', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];
  const connect = async () => {
    const c = await CdpClient.connect(t.cdpWsUrl);
    clients.push(c);
    return c;
  };
  /** Chrome attaches the worker under a tab's page session (the tab's auto-attach). */
  const workerUnder = (tabId: number, sessionId: string) =>
    ext.event(tabId, 'Target.attachedToTarget', { sessionId, targetInfo: WORKER, waitingForDebugger: false });
  const workerAttaches = (c: CdpClient) =>
    c.events.filter((m) => m.method === 'Target.attachedToTarget' && m.params.targetInfo.type === 'service_worker');

  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1, TAB2]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  it('shows a worker two tabs share once, and through the other tab when the first goes', async () => {
    const c = await connect();
    const rules = new TargetInvariants(c, true);
    await c.send('Target.setDiscoverTargets', { discover: true });
    await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    // Chrome says the script loaded on each session right after attaching it.
    workerUnder(1, 'CHILD-A');
    ext.event(1, 'Inspector.workerScriptLoaded', {}, 'CHILD-A');
    workerUnder(2, 'CHILD-B');
    ext.event(2, 'Inspector.workerScriptLoaded', {}, 'CHILD-B');
    await until('the worker shown', () => workerAttaches(c).length === 1);
    expect(
      c.events.findIndex(
        (m) => m.method === 'Target.targetCreated' && m.params.targetInfo.targetId === WORKER.targetId,
      ),
    ).toBeLessThan(c.events.indexOf(workerAttaches(c)[0]!));
    expect(
      (await c.send('Target.getTargets')).targetInfos.filter((i: { type: string }) => i.type === 'service_worker'),
    ).toHaveLength(1);

    // Tab 1 goes: the worker's session through it ends, and the one through tab 2 is shown.
    ext.send({ type: 'tabDetached', tabId: 1, reason: 'target_closed' });
    await until('the worker shown again', () => workerAttaches(c).length === 2);
    expect(workerAttaches(c)[1]!.params.sessionId).toBe('CHILD-B');
    // Its script loaded long ago, before anyone was shown that session: the client is told, as Playwright waits for it.
    await until('the script loaded told', () =>
      c.events.some((m) => m.method === 'Inspector.workerScriptLoaded' && m.sessionId === 'CHILD-B'),
    );

    // Tab 2's goes too: no worker left.
    ext.event(2, 'Target.detachedFromTarget', { sessionId: 'CHILD-B', targetId: WORKER.targetId });
    await until('the worker destroyed', () =>
      c.events.some((m) => m.method === 'Target.targetDestroyed' && m.params.targetId === WORKER.targetId),
    );
    expect(rules.breaks).toEqual([]);
  });

  it('shows a late client the worker once, with its script loaded', async () => {
    const first = await connect();
    await first.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    workerUnder(1, 'CHILD-A');
    workerUnder(2, 'CHILD-B');
    ext.event(1, 'Inspector.workerScriptLoaded', {}, 'CHILD-A');
    await until('the first client has it', () => workerAttaches(first).length === 1);
    const late = await connect();
    const rules = new TargetInvariants(late);
    await late.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    await until('the late client has it', () => workerAttaches(late).length === 1);
    await until('and its script loaded', () => late.events.some((m) => m.method === 'Inspector.workerScriptLoaded'));
    expect(workerAttaches(late)).toHaveLength(1);
    expect(rules.breaks).toEqual([]);
  });
});
