// snapshot-scale: GET /snapshot of generated pages with 1k, 5k and 20k interactive elements on a
// managed profile, for the default `agent` format and Playwright's `ai` beside it: time and size.
// Targets for the default: 5k within 300 ms, 20k within 1.2 s, growth no worse than linear.
import type { RelayProcess } from '../fixture';
import { median, round, type CaseResult } from '../stats';

export function manyPage(n: number): string {
  const items = Array.from({ length: n }, (_, i) =>
    i % 2 ? `<a href="#i${i}">link ${i}</a>` : `<button>button ${i}</button>`,
  );
  return `<!doctype html><title>many</title><main><h1>Many</h1><ul>${items.map((item) => `<li><div><span>${item}</span></div></li>`).join('')}</ul></main>`;
}

export async function snapshotScale(
  relay: RelayProcess,
  pageUrl: (n: number) => string,
  quick: boolean,
): Promise<CaseResult> {
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(relay.controlUrl + route, {
      method,
      headers: { Authorization: `Bearer ${relay.token}`, 'Content-Type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  await api('POST', '/start');
  const { targetId } = await api('POST', '/tabs/open', { url: 'about:blank' });
  const sizes = quick ? [1_000, 5_000] : [1_000, 5_000, 20_000];
  const times: Record<string, number> = {};
  const chars: Record<string, number> = {};
  for (const n of sizes) {
    await api('POST', '/navigate', { url: pageUrl(n), targetId, timeoutMs: 60_000 });
    for (const format of ['agent', 'ai'] as const) {
      const runs: number[] = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        const started = performance.now();
        // No budget: the whole page, so sizes compare.
        const snap = await api('GET', `/snapshot?targetId=${targetId}&format=${format}&maxChars=10000000`);
        runs.push(performance.now() - started);
        chars[`${format}${n}`] = snap.stats.chars;
      }
      times[`${format}${n}`] = median(runs);
    }
  }
  await api('POST', '/stop');
  const perElement = (key: string, n: number) => times[key]! / n;
  // Linear: the per-element cost at the largest size is within 1.5× of the cost at 1k.
  const largest = sizes.at(-1)!;
  const linear = perElement(`agent${largest}`, largest) <= perElement('agent1000', 1_000) * 1.5;
  const value = times.agent5000!;
  const within20k = quick || times.agent20000! <= 1_200;
  return {
    name: 'snapshot-scale',
    unit: 'ms (5k, agent)',
    value: round(value, 1),
    target: '5k ≤ 300 ms, 20k ≤ 1.2 s, linear',
    ok: value <= 300 && within20k && linear,
    details: Object.fromEntries([
      ...Object.entries(times).map(([k, v]) => [`${k}ms`, round(v, 0)]),
      ...Object.entries(chars).map(([k, v]) => [`${k}chars`, v]),
      ['linear', String(linear)],
    ]),
  };
}
