// cdp-rtt: a Runtime.evaluate("1") round trip through relay + extension vs straight to the same
// browser's own CDP port, alternating, medians and p95.
import type { BenchTab } from '../fixture';
import { alternate, median, percentile, round, type CaseResult } from '../stats';

export async function cdpRtt(tab: BenchTab, quick: boolean): Promise<CaseResult> {
  const call = (side: BenchTab['direct']) => () =>
    side.client.send('Runtime.evaluate', { expression: '1', returnByValue: true }, side.sessionId);
  const t = await alternate(quick ? 50 : 500, quick ? 5 : 50, call(tab.viaRelay), call(tab.direct));
  const value = median(t.a);
  const baseline = median(t.b);
  return {
    name: 'cdp-rtt',
    unit: 'ms',
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline, 2),
    target: 'ratio ≤ 1.3',
    ok: value / baseline <= 1.3,
    details: { calls: t.a.length, p95: round(percentile(t.a, 95)), baselineP95: round(percentile(t.b, 95)) },
  };
}
