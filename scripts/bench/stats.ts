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
  return alternateSides(rounds, warmup, { a, b });
}

/** The same for any number of sides, taken in turn (A B C A B C …). */
export async function alternateSides<K extends string>(
  rounds: number,
  warmup: number,
  sides: Record<K, () => Promise<unknown>>,
): Promise<Record<K, number[]>> {
  const entries = Object.entries(sides) as Array<[K, () => Promise<unknown>]>;
  const times = Object.fromEntries(entries.map(([side]) => [side, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [side, fn] of entries) {
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
