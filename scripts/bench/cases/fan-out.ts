// fan-out: ten CDP clients on one tab under a flood of 10,000 console events: every client gets
// every event, and the relay process's peak resident memory stays small. The peak is this case's
// own: the relay's recorded peak is reset first, so the cases run before it in the same process
// (event-flood, pw-evaluate) do not count. Target (#50): no event lost, peak ≤ 120 MB.
import { writeFileSync } from 'node:fs';
import { CdpClient } from '../../../test/helpers/cdp-client';
import type { BenchTab } from '../fixture';
import { flood } from './event-flood';
import { round, type CaseResult } from '../stats';

export async function fanOut(tab: BenchTab, quick: boolean): Promise<CaseResult> {
  const count = 10_000;
  // Linux: writing 5 to clear_refs resets the process's VmHWM to its current resident size.
  writeFileSync(`/proc/${tab.relay.child.pid}/clear_refs`, '5');
  const clients = await Promise.all(Array.from({ length: 10 }, () => CdpClient.connect(tab.relay.cdpWsUrl)));
  try {
    const sides = await Promise.all(
      clients.map(async (client) => {
        const { sessionId } = await client.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true });
        await client.send('Runtime.enable', {}, sessionId);
        return { client, sessionId };
      }),
    );
    await sides[0]!.client.send('Runtime.discardConsoleEntries', {}, sides[0]!.sessionId);
    let lost = 0;
    let ms = 0;
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      const r = await flood(sides[0]!, sides[0]!, count, sides.slice(1));
      lost += r.received.reduce((sum, n) => sum + (count - n), 0);
      ms = Math.max(ms, r.ms);
      for (const c of clients) c.events.length = 0;
    }
    const { peakMb } = tab.relay.memory();
    return {
      name: 'fan-out',
      unit: 'MB',
      value: round(peakMb, 1),
      target: '0 lost, RSS ≤ 120 MB',
      ok: lost === 0 && peakMb <= 120,
      details: { clients: clients.length, events: count, lost, slowestRoundMs: round(ms, 1) },
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
