// network-flood: what a page that makes 10,000 requests costs the relay while every request is
// recorded for GET /network — the `clawd serve` process's resident memory over the same process
// with the tab on a blank page, on a managed profile (the agent layer's Playwright connection
// sees every request's events). The list keeps the last 1,000 per tab; the target is that the
// growth stays bounded, not that it is zero (Playwright and V8 keep their own caches).

import { type RelayProcess, controlApi } from '../fixture';
import { startBenchPages } from '../fixture';
import { round, type CaseResult } from '../stats';

const floodPage = (n: number) => `<!doctype html><title>flooding</title><script>
  (async () => {
    for (let i = 0; i < ${n}; i += 100) await Promise.all(Array.from({ length: Math.min(100, ${n} - i) }, (_, k) => fetch('/api?i=' + (i + k)).then((r) => r.text())));
    document.title = 'done';
  })();
</script>`;

export async function networkFlood(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const n = quick ? 500 : 10_000;
  const pages = await startBenchPages({
    '/blank': '<!doctype html><title>blank</title>',
    '/flood': floodPage(n),
    '/api': 'ok',
  });
  const api = controlApi(relay);
  try {
    await api('POST', '/navigate', { url: pages.url('/blank') });
    const before = relay.memory().rssMb;
    const seenBefore = (await api('GET', '/network?limit=1')).seen as number;
    const started = performance.now();
    await api('POST', '/navigate', { url: pages.url('/flood') });
    let seen = 0;
    let peak = before;
    // The flood page, then its n fetches.
    while (seen - seenBefore < n + 1) {
      if (performance.now() - started > 180_000)
        throw new Error(`only ${seen - seenBefore} of ${n} requests recorded in 180 s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      seen = (await api('GET', '/network?limit=1')).seen;
      peak = Math.max(peak, relay.memory().rssMb);
    }
    const seconds = (performance.now() - started) / 1000;
    const kept = (await api('GET', '/network?all=1&limit=1000')).kept as number;
    const after = relay.memory().rssMb;
    const growth = peak - before;
    return {
      name: 'network-flood',
      unit: 'MB relay RSS growth (peak)',
      value: round(growth, 1),
      target: '≤ 50 MB, 1,000 kept',
      ok: growth <= 50 && kept === 1_000,
      details: {
        requests: n,
        kept,
        beforeMb: round(before, 1),
        peakMb: round(peak, 1),
        afterMb: round(after, 1),
        requestsPerSecond: Math.round(n / seconds),
      },
    };
  } finally {
    await pages.close();
  }
}
