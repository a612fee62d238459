// A client that enables Runtime after others is shown the tab's execution contexts by the relay
// (Chrome says nothing on a second enable on its one session). Shown as Chrome last said them:
// events the tab's fence still holds back (behind another client's command) count. Found by
// the target fuzz: a Playwright joining just after a reload was shown the old document's
// contexts and evaluated in one that was gone.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient, type CdpMessage } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { quiet, until } from '../helpers/waits';

const TAB1 = fakeTab(1);
const context = (id: number) => ({
  context: {
    id,
    origin: 'https://example.test',
    name: '',
    uniqueId: `u${id}`,
    auxData: { isDefault: true, type: 'default', frameId: 'F1' },
  },
});

describe('the contexts shown to a client enabling Runtime after others', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];
  async function onPage(): Promise<{ c: CdpClient; said: string[] }> {
    const c = await CdpClient.connect(t.cdpWsUrl.replace('/cdp', `/devtools/page/${TAB1.targetInfo.targetId}`));
    clients.push(c);
    const said: string[] = [];
    c.onMessage((m: CdpMessage) => {
      if (m.method === 'Runtime.executionContextCreated') said.push(`created ${m.params.context.id}`);
      if (m.method === 'Runtime.executionContextsCleared') said.push('cleared');
    });
    return { c, said };
  }

  beforeEach(async () => {
    // A fence window long enough that nothing here is let through by its deadline.
    t = await startTestRelay({ timeouts: { eventFenceMs: 5_000 } });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  it("counts the events held behind another client's command, and does not send them to the newcomer again", async () => {
    const a = await onPage();
    await a.c.send('Runtime.enable');
    ext.event(1, 'Runtime.executionContextCreated', context(1));
    await until('the first context shown', () => a.said.includes('created 1'));

    // The first client's command is in flight; the page reloads meanwhile.
    let answer: () => void = () => {};
    ext.handler = (r: RequestFrame) =>
      r.op === 'cdp' && r.method === 'DOM.getDocument'
        ? new Promise((resolve) => (answer = () => resolve({ root: {} })))
        : {};
    const slow = a.c.send('DOM.getDocument');
    await until('the command to reach the extension', () =>
      ext.requests.some((r) => r.op === 'cdp' && r.method === 'DOM.getDocument'),
    );
    ext.event(1, 'Runtime.executionContextsCleared', {});
    ext.event(1, 'Runtime.executionContextCreated', context(2));

    // A newcomer enables Runtime: it is shown the reloaded document's context, once.
    const b = await onPage();
    await b.c.send('Runtime.enable');
    expect(b.said).toEqual(['created 2']);
    expect(a.said).toEqual(['created 1']); // held for the first client until its command answers

    answer();
    await slow;
    await until('the first client to see the reload', () => a.said.length === 3);
    expect(a.said).toEqual(['created 1', 'cleared', 'created 2']);
    await quiet(50);
    expect(b.said).toEqual(['created 2']);

    // What comes later goes to both.
    ext.event(1, 'Runtime.executionContextCreated', context(3));
    await until('both to see the next context', () => a.said.at(-1) === 'created 3' && b.said.at(-1) === 'created 3');
  });

  it('keeps Runtime on for a newcomer whose enable is in flight when the last client with it on leaves', async () => {
    const a = await onPage();
    await a.c.send('Runtime.enable');
    let answer: () => void = () => {};
    ext.handler = (r: RequestFrame) =>
      r.op === 'cdp' && r.method === 'Runtime.enable' ? new Promise((resolve) => (answer = () => resolve({}))) : {};
    const b = await onPage();
    const enabling = b.c.send('Runtime.enable');
    await until(
      "the newcomer's enable to reach the extension",
      () => ext.requests.filter((r) => r.op === 'cdp' && r.method === 'Runtime.enable').length === 2,
    );
    await a.c.close();
    await until('the relay to have let the first client go', () => t.relay.switchboard.clientCount === 1);
    answer();
    await enabling;
    await quiet(100);
    expect(ext.requests.filter((r) => r.op === 'cdp' && r.method === 'Runtime.disable')).toEqual([]);
    const logged: unknown[] = [];
    b.c.onMessage((m: CdpMessage) => m.method === 'Runtime.consoleAPICalled' && logged.push(m.params.args[0].value));
    ext.event(1, 'Runtime.consoleAPICalled', { type: 'log', args: [{ type: 'string', value: 'after' }] });
    await until('the newcomer to see the console event', () => logged.length === 1);
  });
});
