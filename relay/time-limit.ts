// A bound for promises that have none of their own: some Playwright calls (locator.count,
// page.evaluate, page.title, a CDP session's send) wait as long as the page does, and a page can
// wait forever. The work itself cannot be cancelled; the caller stops waiting and says why.

/** Settles like `work`, or rejects with `onTimeout()` after `ms`; the timer never outlives it. */
export function within<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  // A rejection that loses the race must not surface as an unhandled one.
  work.catch(() => {});
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** True if `promise` fulfils within `ms`; false if it rejects or is still pending then. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return within(
    promise.then(
      () => true,
      () => false,
    ),
    ms,
    () => new Error('timed out'),
  ).catch(() => false);
}

export const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
