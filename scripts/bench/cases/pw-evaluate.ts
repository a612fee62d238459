// pw-evaluate: Playwright's page.evaluate(() => 1) through the relay vs connected straight to
// the browser, alternating, medians.
import { chromium } from 'playwright-core';
import { pageAt, type BenchTab } from '../fixture';
import { alternate, median, percentile, round, type CaseResult } from '../stats';

export async function pwEvaluate(tab: BenchTab, url: string, quick: boolean): Promise<CaseResult> {
  const viaRelay = await chromium.connectOverCDP(`${tab.relay.url}/?token=${tab.relay.token}`);
  const direct = await chromium.connectOverCDP(tab.browser.wsEndpoint);
  try {
    const [pr, pd] = await Promise.all([pageAt(viaRelay, url), pageAt(direct, url)]);
    const t = await alternate(
      quick ? 30 : 300,
      quick ? 5 : 30,
      () => pr.evaluate(() => 1),
      () => pd.evaluate(() => 1),
    );
    const value = median(t.a);
    const baseline = median(t.b);
    return {
      name: 'pw-evaluate',
      unit: 'ms',
      value: round(value),
      baseline: round(baseline),
      ratio: round(value / baseline, 2),
      target: 'ratio ≤ 1.5',
      ok: value / baseline <= 1.5,
      details: { calls: t.a.length, p95: round(percentile(t.a, 95)), baselineP95: round(percentile(t.b, 95)) },
    };
  } finally {
    await viaRelay.close();
    await direct.close();
  }
}
