// mapAtOnce: the results in order, never more running than asked, and no new work once one threw.

import { describe, expect, it } from 'vitest';
import { mapAtOnce } from '../../relay/at-once';

describe('mapAtOnce', () => {
  it('runs at most the number asked at a time and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const results = await mapAtOnce([5, 1, 4, 2, 3, 0], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setImmediate(resolve, n));
      for (let i = 0; i < n; i++) await Promise.resolve();
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('starts nothing more once one throws, and answers its error', async () => {
    const started: number[] = [];
    const work = mapAtOnce([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await Promise.resolve();
      if (n === 1) throw new Error('one failed');
      await new Promise((resolve) => setImmediate(resolve));
      return n;
    });
    await expect(work).rejects.toThrow('one failed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2]);
  });

  it('answers an empty list at once', async () => {
    expect(await mapAtOnce([], 4, async () => 1)).toEqual([]);
  });
});
