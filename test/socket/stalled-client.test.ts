// A CDP client that stops reading must not make the relay hold unbounded output for it: once
// its queue passes the cap the relay closes it (a clear code and reason, after what was queued)
// and frees the queue, while the other clients keep being served. Memory is measured after a
// forced GC as the JS heap plus Buffer memory: a queued text frame is kept as a string (heap) by
// the socket, a binary one as a Buffer.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MiB } from '../../shared/defaults';
import { NOT_READING_CLOSE } from '../../relay/cdp/client-session';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const bufferMemory = () => {
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

const CAP = 16 * MiB;
/**
 * Room over the cap: a 2 MiB batch in flight exists about four times over at once (the fake
 * extension's frame, the relay's parse of it, the event serialised once for all clients, the
 * healthy client's copy) besides the test's own allocations.
 */
const MARGIN = 16 * MiB;
const TAB = fakeTab(1);
const EVENT_BYTES = 256 * 1024;
const BATCH = 8;

describe('a client that stops reading', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];

  beforeEach(async () => {
    // The socket is cut 5 s after the close unless the client reads: this test resumes it only
    // after 16 more batches, which a loaded machine takes longer than 5 s to send.
    t = await startTestRelay({ maxClientBufferedBytes: CAP, timeouts: { notReadingCutMs: 60_000 } });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  async function subscribed(): Promise<{ c: CdpClient; session: string }> {
    const c = await CdpClient.connect(t.cdpWsUrl);
    clients.push(c);
    const { sessionId } = await c.send('Target.attachToTarget', { targetId: TAB.targetInfo.targetId, flatten: true });
    await c.send('Runtime.enable', {}, sessionId);
    return { c, session: sessionId };
  }

  it(
    'is closed at the cap with a clear reason, its queue freed, while another client is served throughout',
    { timeout: 60_000 },
    async () => {
      const stalled = await subscribed();
      const healthy = await subscribed();
      // The healthy client reads every event but keeps none (the test's memory is measured too).
      let healthyEvents = 0;
      healthy.c.onMessage((m) => void (m.method === 'Runtime.consoleAPICalled' && healthyEvents++));
      const forget = () => {
        healthy.c.events.length = 0;
        healthy.c.raw.length = 0;
      };
      const stalledSocket = (stalled.c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      stalledSocket.pause();

      const base = bufferMemory();
      let peak = 0;
      let sent = 0;
      let batchesAfterClose = 0;
      const payload = 'x'.repeat(EVENT_BYTES);
      // Batches until the stalled client is gone, then as many again: nothing more is queued for it.
      while (batchesAfterClose < 16) {
        for (let i = 0; i < BATCH; i++)
          ext.event(1, 'Runtime.consoleAPICalled', {
            type: 'log',
            args: [{ type: 'string', value: payload }],
            executionContextId: 1,
            timestamp: sent++,
          });
        await until('the healthy client to read the batch', () => healthyEvents === sent, 10_000, 5);
        forget();
        // A call on the browser session and one forwarded to the tab, both answered mid-flood.
        expect((await healthy.c.send('Target.getTargets')).targetInfos).toHaveLength(1);
        await healthy.c.send('Runtime.runIfWaitingForDebugger', {}, healthy.session);
        peak = Math.max(peak, bufferMemory() - base);
        if (t.relay.switchboard.clientCount === 1) batchesAfterClose++;
        expect(sent).toBeLessThan(4_000); // 1 GB of events: the cap never acted
      }
      console.log(
        `stalled client closed; ${Math.round((sent * EVENT_BYTES) / MiB)} MiB of events sent, peak memory +${(peak / MiB).toFixed(1)} MiB (cap ${CAP / MiB} MiB)`,
      );
      expect(peak).toBeLessThan(CAP + MARGIN);
      expect(bufferMemory() - base).toBeLessThan(CAP + MARGIN);

      // Reading again, the stalled client gets what was queued and then the close with its reason.
      stalledSocket.resume();
      expect(await stalled.c.closed).toEqual({ code: NOT_READING_CLOSE.code, reason: NOT_READING_CLOSE.reason });
      // Its queue is gone with it (and the test's client keeps none of what it read).
      stalled.c.events.length = 0;
      stalled.c.raw.length = 0;
      await until('the closed client’s queue to be freed', () => bufferMemory() - base < MARGIN);
      expect(healthyEvents).toBe(sent);
    },
  );
});
