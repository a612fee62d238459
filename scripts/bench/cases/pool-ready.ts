// pool-ready: a new agent session's browser, tab and first page on a pool profile, as browser
// services measure it — from the call to the page loaded (the browser taken from the warm ones,
// connected, a local page loaded), then given back (its last tab closed) — against the same cycle
// on a pool that keeps none warm (Chromium launched for each session). The warm side's clock
// starts once the pool is topped up again: sessions arriving faster than Chromium starts find it
// empty, which is what the baseline side shows.
import { type RelayProcess, controlApi, startBenchPages } from '../fixture';
import { median, percentile, round, type CaseResult } from '../stats';

const TARGET_MS = 250;

export async function poolReady(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const api = controlApi(relay);
  const pages = await startBenchPages({ '/': '<!doctype html><title>ready</title><p>ready</p>' });
  const warm = `bench-pool-${process.pid}`;
  const cold = `bench-cold-${process.pid}`;
  await api('POST', '/profiles/create', { name: warm, driver: 'pool' });
  await api('POST', '/profiles/create', { name: cold, driver: 'pool', poolSize: 0 });
  let n = 0;
  /** One session's whole cycle on the profile, in ms. */
  const cycle = async (profile: string): Promise<number> => {
    const session = `s${++n}`;
    const started = performance.now();
    const loaded = (await api('POST', `/navigate?profile=${profile}`, {
      url: pages.url('/'),
      session,
      snapshot: 'none',
    })) as { targetId: string };
    const navigated = performance.now();
    await api('DELETE', `/tabs/${loaded.targetId}?profile=${profile}&session=${session}`);
    if (process.env.CLAWD_BENCH_TRACE)
      console.log(
        profile,
        'navigate',
        Math.round(navigated - started),
        'release',
        Math.round(performance.now() - navigated),
      );
    return performance.now() - started;
  };
  const toppedUp = async () => {
    for (let i = 0; i < 1_200; i++) {
      const status = (await api('GET', `/?profile=${warm}`)) as { state: string };
      if (/^2 warm of 2, 0 held/.test(status.state)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`pool ${warm} was not topped up within 30 s`);
  };
  const ours: number[] = [];
  const launched: number[] = [];
  // Each side's rounds in a row, each round once the last browser given back has stopped (its
  // stop runs behind the answer) and, on the warm side, the pool is full again: a cycle is
  // measured alone on the machine, as one session after another would find it.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
  try {
    await api('POST', `/start?profile=${warm}`);
    const rounds = quick ? 2 : 10;
    // The first round of each warms Node's and Playwright's own paths: not counted.
    for (let i = 0; i <= rounds; i++) {
      await settle();
      await toppedUp();
      const took = await cycle(warm);
      if (i > 0) ours.push(took);
    }
    for (let i = 0; i <= rounds; i++) {
      await settle();
      const took = await cycle(cold);
      if (i > 0) launched.push(took);
    }
  } finally {
    for (const profile of [warm, cold]) {
      await api('POST', `/stop?profile=${profile}`).catch(() => {});
      await api('DELETE', `/profiles/${profile}`).catch(() => {});
    }
    await pages.close();
  }
  const value = median(ours);
  const baseline = median(launched);
  return {
    name: 'pool-ready',
    unit: 'ms',
    value: round(value, 1),
    baseline: round(baseline, 1),
    ratio: round(value / baseline, 2),
    target: `p50 ≤ ${TARGET_MS} ms`,
    ok: value <= TARGET_MS,
    details: { p95: round(percentile(ours, 95), 1), rounds: ours.length },
  };
}
