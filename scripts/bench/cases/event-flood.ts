// event-flood: 10,000 console.log events delivered to a client through the relay vs direct.
// Both sides keep Runtime on throughout (each round's load is the same for both); each round's
// messages carry its own marker, so a side counts only the events its own trigger caused.
import type { CdpClient } from '../../../test/helpers/cdp-client';
import type { BenchTab } from '../fixture';
import { median, round, type CaseResult } from '../stats';

let roundNo = 0;

/** Triggers `count` console messages and waits for them on `side`; returns the time and how many arrived. */
export async function flood(
  side: { client: CdpClient; sessionId: string },
  trigger: { client: CdpClient; sessionId: string },
  count: number,
  others: Array<{ client: CdpClient; sessionId: string }> = [],
): Promise<{ ms: number; received: number[] }> {
  const marker = `flood-${++roundNo}`;
  const receivers = [side, ...others];
  const received = receivers.map(() => 0);
  const offs: Array<() => void> = [];
  const done = Promise.all(
    receivers.map(
      (r, i) =>
        new Promise<void>((resolve) => {
          offs.push(
            r.client.onMessage((m) => {
              if (
                m.method !== 'Runtime.consoleAPICalled' ||
                m.sessionId !== r.sessionId ||
                m.params?.args?.[0]?.value !== marker
              )
                return;
              if (++received[i]! === count) resolve();
            }),
          );
        }),
    ),
  );
  const start = performance.now();
  await trigger.client.send(
    'Runtime.evaluate',
    { expression: `for (let i = 0; i < ${count}; i++) console.log(${JSON.stringify(marker)}, i)` },
    trigger.sessionId,
  );
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 60_000))]);
  const ms = performance.now() - start;
  for (const off of offs) off();
  return { ms, received };
}

export async function eventFlood(tab: BenchTab, quick: boolean): Promise<CaseResult> {
  // Quick (CI's smoke run): a fifth of the events, still every one delivered.
  const count = quick ? 2_000 : 10_000;
  const { viaRelay, direct } = tab;
  for (const side of [viaRelay, direct]) {
    await side.client.send('Runtime.enable', {}, side.sessionId);
    await side.client.send('Runtime.discardConsoleEntries', {}, side.sessionId);
  }
  const relayMs: number[] = [];
  const directMs: number[] = [];
  let lost = 0;
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    const r = await flood(viaRelay, viaRelay, count);
    relayMs.push(r.ms);
    lost += count - r.received[0]!;
    directMs.push((await flood(direct, direct, count)).ms);
  }
  for (const side of [viaRelay, direct]) await side.client.send('Runtime.disable', {}, side.sessionId);
  viaRelay.client.events.length = 0;
  direct.client.events.length = 0;
  const value = median(relayMs);
  const baseline = median(directMs);
  return {
    name: 'event-flood',
    unit: 'ms',
    value: round(value, 1),
    baseline: round(baseline, 1),
    ratio: round(value / baseline, 2),
    target: 'ratio ≤ 1.3, 0 lost',
    ok: value / baseline <= 1.3 && lost === 0,
    details: { events: count, rounds: relayMs.length, lost },
  };
}
