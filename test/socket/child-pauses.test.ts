// A new child target (an out-of-process iframe, a worker) waits for the debugger only for the
// clients that asked for that (Target.setAutoAttach waitForDebuggerOnStart), as on Chrome, where
// each client has its own pause. Found by the target fuzz: the relay told every client the child
// waited for it, and Chrome's one session kept the last client's setting, so a child nobody meant
// to pause could stay paused (an iframe that never loaded).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const TAB1 = fakeTab(1);
const FRAME = (n: number) => ({
  sessionId: `CHILD-${n}`,
  targetInfo: {
    targetId: `FRAME-${n}`,
    type: 'iframe',
    title: '',
    url: 'https://other.test/',
    attached: true,
    canAccessOpener: false,
  },
  waitingForDebugger: true,
});
type CdpRequest = Extract<RequestFrame, { op: 'cdp' }>;

describe("a child's pause through the relay", () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];
  const cdpOps = () => ext.requests.filter((r): r is CdpRequest => r.op === 'cdp');
  /** A client on the tab's page, auto-attaching its children with or without pausing them. */
  async function onPage(pauses: boolean): Promise<CdpClient> {
    const c = await CdpClient.connect(`${t.cdpWsUrl.replace('/cdp', `/devtools/page/${TAB1.targetInfo.targetId}`)}`);
    clients.push(c);
    await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: pauses, flatten: true });
    return c;
  }
  const told = (c: CdpClient, n: number) =>
    c.waitForEvent('Target.attachedToTarget', (e) => e.params.sessionId === `CHILD-${n}`);
  const autoAttachSent = () => cdpOps().filter((r) => r.method === 'Target.setAutoAttach' && r.sessionId === undefined);

  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  it('tells each client of a pause only if it asked, asks Chrome to pause while any client wants it, and lets a child run that nobody waits for', async () => {
    const pausing = await onPage(true);
    const plain = await onPage(false);
    // The second client asked not to pause, but the first still wants pauses: Chrome keeps pausing.
    expect(autoAttachSent().map((r) => r.params?.waitForDebuggerOnStart)).toEqual([true, true]);

    ext.event(1, 'Target.attachedToTarget', FRAME(1));
    expect((await told(pausing, 1)).params.waitingForDebugger).toBe(true);
    expect((await told(plain, 1)).params.waitingForDebugger).toBe(false);
    // The pausing client lets it run, as Playwright does once it has set the child up.
    await pausing.send('Runtime.runIfWaitingForDebugger', {}, 'CHILD-1');
    expect(
      cdpOps()
        .filter((r) => r.method === 'Runtime.runIfWaitingForDebugger')
        .map((r) => r.sessionId),
    ).toEqual(['CHILD-1']);

    // The pausing client goes: Chrome is asked to stop pausing new children.
    await pausing.close();
    await until('auto-attach without pauses', () => autoAttachSent().at(-1)?.params?.waitForDebuggerOnStart === false);
    expect(autoAttachSent().at(-1)?.params).toMatchObject({ autoAttach: true, flatten: true });

    // A child Chrome paused meanwhile (its pause was on its way) is let run by the relay: nobody else would.
    ext.event(1, 'Target.attachedToTarget', FRAME(2));
    expect((await told(plain, 2)).params.waitingForDebugger).toBe(false);
    await until('the relay to let the child run', () =>
      cdpOps().some((r) => r.method === 'Runtime.runIfWaitingForDebugger' && r.sessionId === 'CHILD-2'),
    );
  });

  it('lets a child run when every client told it waits has gone without letting it run (as Chrome does when the pausing session detaches)', async () => {
    const first = await onPage(true);
    const second = await onPage(true);
    ext.event(1, 'Target.attachedToTarget', FRAME(3));
    expect((await told(first, 3)).params.waitingForDebugger).toBe(true);
    expect((await told(second, 3)).params.waitingForDebugger).toBe(true);
    const resumed = () =>
      cdpOps().filter((r) => r.method === 'Runtime.runIfWaitingForDebugger' && r.sessionId === 'CHILD-3');
    // One of them goes: the other may still let it run.
    await first.close();
    await second.send('Runtime.getIsolateId', {}, 'CHILD-3').catch(() => {}); // a round trip: the relay has handled the close
    expect(resumed()).toEqual([]);
    // The last one goes too: nobody is left to, so the relay does.
    await second.close();
    await until('the relay to let the child run', () => resumed().length === 1);
  });

  it('lets a child run that arrives under a session nobody holds any more', async () => {
    await onPage(true);
    ext.event(1, 'Target.attachedToTarget', { ...FRAME(4), sessionId: 'CHILD-4' }, 'GONE-PARENT');
    await until('the relay to let the child run', () =>
      cdpOps().some((r) => r.method === 'Runtime.runIfWaitingForDebugger' && r.sessionId === 'CHILD-4'),
    );
  });
});
