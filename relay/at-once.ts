// Work over a list, a few items at a time: where running all at once would make each item's own
// time limit a race against the others (a snapshot's child frames, each given 2 s to answer).

/**
 * `work` on each item, at most `atOnce` running at a time; the results in the items' order. Once
 * one throws, no more are started (the answer is that error; those running are not waited for).
 */
export async function mapAtOnce<T, R>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  return results;
}
