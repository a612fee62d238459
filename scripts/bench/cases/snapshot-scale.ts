// snapshot-scale: GET /snapshot of generated pages with 1k, 5k and 20k interactive elements on a
// managed profile, for the default `agent` format and Playwright's `ai` beside it: time and size.
// Targets for the default (#50): 5k within 80 ms, 20k within 300 ms, growth no worse than linear,
// and the diff after a one-field change on the largest page (`since` the snapshot before the
// fill) within 40 ms. The default is also taken on `before`, a server whose walk leaves out the
// rules of what a person cannot see (CLAWD_BENCH_SEE_ALL=1), turn about with ours: what the rules
// cost, in the same run (target: no more than 10%).
import { controlApi, type RelayProcess } from '../fixture';
import { alternateSides, median, round, type CaseResult } from '../stats';

export function manyPage(n: number): string {
  const items = Array.from({ length: n }, (_, i) =>
    i % 2 ? `<a href="#i${i}">link ${i}</a>` : `<button>button ${i}</button>`,
  );
  // One field besides: the diff after a one-field change fills it.
  return `<!doctype html><title>many</title><main><h1>Many</h1><label>Note <input></label><ul>${items.map((item) => `<li><div><span>${item}</span></div></li>`).join('')}</ul></main>`;
}

export async function snapshotScale(
  relay: RelayProcess,
  before: RelayProcess,
  pageUrl: (n: number) => string,
  quick: boolean,
): Promise<CaseResult> {
  const [onOurs, onBefore] = [controlApi(relay), controlApi(before)];
  const api = (method: string, route: string, body?: unknown, server = relay) =>
    (server === relay ? onOurs : onBefore)(method, route, body);
  await api('POST', '/start');
  await api('POST', '/start', undefined, before);
  const { targetId } = await api('POST', '/tabs/open', { url: 'about:blank' });
  const beforeTab = (await api('POST', '/tabs/open', { url: 'about:blank' }, before)).targetId as string;
  const sizes = quick ? [1_000, 5_000] : [1_000, 5_000, 20_000];
  const times: Record<string, number> = {};
  const chars: Record<string, number> = {};
  const rulesCost: Record<string, number> = {};
  // No budget: the whole page, so sizes compare.
  // The longest bound: Playwright's first `ai` walk of the 20k page has taken over 30 s.
  const snapshot = (format: string, server = relay, tab = targetId) =>
    api('GET', `/snapshot?targetId=${tab}&format=${format}&maxChars=10000000&timeoutMs=60000`, undefined, server);
  // The `agent` sides first, over all sizes, so both browsers have done the same when measured
  // (Playwright's `ai` walks leave a page's renderer busier); then `ai`.
  for (const n of sizes) {
    await api('POST', '/navigate', { url: pageUrl(n), targetId, timeoutMs: 60_000 });
    await api('POST', '/navigate', { url: pageUrl(n), targetId: beforeTab, timeoutMs: 60_000 }, before);
    const agent = await alternateSides(quick ? 1 : 5, 1, {
      ours: async () => (chars[`agent${n}`] = (await snapshot('agent')).stats.chars),
      before: () => snapshot('agent', before, beforeTab),
    });
    times[`agent${n}`] = median(agent.ours);
    times[`before${n}`] = median(agent.before);
    rulesCost[n] = median(agent.ours) / median(agent.before);
  }
  for (const n of sizes) {
    await api('POST', '/navigate', { url: pageUrl(n), targetId, timeoutMs: 60_000 });
    const runs: number[] = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      const started = performance.now();
      chars[`ai${n}`] = (await snapshot('ai')).stats.chars;
      runs.push(performance.now() - started);
    }
    times[`ai${n}`] = median(runs);
  }
  const diff = await diffAfterFill(api, targetId, pageUrl(sizes.at(-1)!), quick);
  await api('POST', '/stop');
  await api('POST', '/stop', undefined, before);
  const perElement = (key: string, n: number) => times[key]! / n;
  // Linear: the per-element cost at the largest size is within 1.5× of the cost at 1k.
  const largest = sizes.at(-1)!;
  const linear = perElement(`agent${largest}`, largest) <= perElement('agent1000', 1_000) * 1.5;
  const value = times.agent5000!;
  const within20k = quick || times.agent20000! <= 300;
  const diffWithin = diff.ms <= 40;
  // Over all sizes together: at 1k a snapshot takes tens of milliseconds, and two browsers differ
  // by more than that from round to round.
  const sum = (prefix: string) => sizes.reduce((total, n) => total + times[`${prefix}${n}`]!, 0);
  const rulesAll = sum('agent') / sum('before');
  const rulesWithin = rulesAll <= 1.1;
  return {
    name: 'snapshot-scale',
    unit: 'ms (5k, agent)',
    value: round(value, 1),
    target: '5k ≤ 80 ms, 20k ≤ 300 ms, linear, hiding rules ≤ +10%, diff after a one-field change ≤ 40 ms',
    ok: value <= 80 && within20k && linear && rulesWithin && diffWithin,
    details: Object.fromEntries([
      ...Object.entries(times).map(([k, v]) => [`${k}ms`, round(v, 0)]),
      [`diff${sizes.at(-1)! / 1000}kMs`, round(diff.ms, 0)],
      ['diffLines', diff.lines],
      ['rulesCost', round(rulesAll, 2)],
      ...Object.entries(rulesCost).map(([n, r]) => [`rulesCost${Number(n) / 1000}k`, round(r, 2)]),
      ...Object.entries(chars).map(([k, v]) => [`${k}chars`, v]),
      ['linear', String(linear)],
    ]),
  };
}

/**
 * The diff an agent reads after filling one field of the largest page: a snapshot, a fill (no view
 * with it), then `since` that snapshot, timed alone. It must say the one change it is.
 */
async function diffAfterFill(
  api: (method: string, route: string, body?: unknown) => Promise<any>,
  targetId: string,
  url: string,
  quick: boolean,
): Promise<{ ms: number; lines: number }> {
  await api('POST', '/navigate', { url, targetId, timeoutMs: 60_000 });
  const runs: number[] = [];
  let lines = 0;
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    const base = await api('GET', `/snapshot?targetId=${targetId}&maxChars=10000000&timeoutMs=60000`);
    const note = Object.entries(base.refs as Record<string, { role: string; name: string }>).find(
      ([, shown]) => shown.role === 'textbox' && shown.name === 'Note',
    )?.[0];
    if (!note) throw new Error('snapshot-scale: the page has no Note field');
    await api('POST', '/act', {
      targetId,
      kind: 'fill',
      fields: [{ ref: note, value: `note ${i}` }],
      snapshot: 'none',
    });
    const started = performance.now();
    const changed = await api(
      'GET',
      `/snapshot?targetId=${targetId}&since=${base.id}&maxChars=10000000&timeoutMs=60000`,
    );
    runs.push(performance.now() - started);
    if (changed.diff?.changed !== 1)
      throw new Error(`snapshot-scale: the diff after one fill is ${JSON.stringify(changed.diff)}`);
    lines = changed.stats.lines;
  }
  return { ms: median(runs), lines };
}
