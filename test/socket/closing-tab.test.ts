// A tab that closes under a client's command: over a real CDP pipe the client is told the target
// detached before anything else, and drops what it had in flight (Puppeteer ignores its own
// "Target closed" then). Through chrome.debugger the command's "Debugger is not attached" answer
// can come ahead of the tab's onDetach; found by the target fuzz as a Puppeteer error when a
// popup closed. The relay holds such an answer until the tab's removal is known.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CdpMessage } from '../helpers/cdp-client';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const TAB1 = fakeTab(1);
const notAttached = () =>
  Object.assign(new Error('Debugger is not attached to the tab with id: 1.'), {
    wire: { code: 'tab_gone', message: 'Debugger is not attached to the tab with id: 1.' },
  });

describe('a command on a tab that is closing', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  let c: CdpClient;
  let sessionId: string;
  const seen: string[] = [];

  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1]);
    c = await CdpClient.connect(t.cdpWsUrl);
    ({ sessionId } = await c.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: TAB1.targetInfo.targetId,
      flatten: true,
    }));
    seen.length = 0;
    c.onMessage((m: CdpMessage) => {
      if (m.method === 'Target.detachedFromTarget') seen.push('detached');
      else if (m.id !== undefined && m.error) seen.push(`error: ${m.error.message}`);
    });
  });
  afterEach(async () => {
    await c.close();
    await ext.close();
    await t.close();
  });

  it('answers the failed command after telling the client the tab detached', async () => {
    ext.handler = (r) => {
      if (r.op === 'cdp' && r.method === 'Network.enable') {
        // Chrome's onDetach trails the failed command's answer.
        setTimeout(() => ext.send({ type: 'tabDetached', tabId: 1, reason: 'target_closed' }), 50);
        throw notAttached();
      }
      return {};
    };
    await expect(c.send('Network.enable', {}, sessionId)).rejects.toThrow(/Debugger is not attached/);
    expect(seen).toEqual(['detached', 'error: Debugger is not attached to the tab with id: 1.']);
  });

  it('answers it anyway within a second when the tab is never said to go', async () => {
    ext.handler = (r) => {
      if (r.op === 'cdp' && r.method === 'Network.enable') throw notAttached();
      return {};
    };
    const started = performance.now();
    await expect(c.send('Network.enable', {}, sessionId)).rejects.toThrow(/Debugger is not attached/);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(seen).toEqual(['error: Debugger is not attached to the tab with id: 1.']);
    // The tab still answers.
    await until('the tab to answer', async () => (await c.send('Runtime.evaluate', {}, sessionId)) !== undefined);
  });
});
