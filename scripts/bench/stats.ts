// Numbers for the benchmark: medians and percentiles, and the A B A B runner that makes a
// ratio between two sides fair on a noisy shared machine (both sides see the same noise).

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: number[]) => percentile(values, 50);

/** Runs `a` and `b` alternately `rounds` times after `warmup` rounds, returning each side's timings in ms. */
export async function alternate(
  rounds: number,
  warmup: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  const times = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [side, fn] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const start = performance.now();
      await fn();
      const elapsed = performance.now() - start;
      if (i >= warmup) times[side].push(elapsed);
    }
  }
  return times;
}

export interface CaseResult {
  name: string;
  unit: string;
  value: number;
  baseline?: number;
  ratio?: number;
  target: string;
  ok: boolean;
  /** Further numbers worth printing (p95, counts, throughput). */
  details?: Record<string, number | string>;
}

export const round = (value: number, digits = 3) => Number(value.toFixed(digits));
