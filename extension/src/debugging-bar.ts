// Chrome's "clawd started debugging this browser" bar, as a tab's viewport feels it. Measured
// (Chromium 150 and 156, headed and --headless=new alike): it comes 124–214 ms after the first
// debugger session of the extension and takes 56 px off the visible tab's height; it lingers
// ~5.1 s after the last one goes, and a session attached within that time keeps it (nothing
// moves); a capture sent right after the attach returns the old height. A hidden tab is resized
// only when shown. A tab woken from a rest (tab-attachments.ts) while the bar is gone lets it come
// before its first command runs, so a screenshot's viewport is the page's, not one the bar is changing.

/** How long the bar stays after the last session goes (measured ~5.1 s), with a margin. */
const LINGERS_MS = 5_500;
/** Attached this long after the last session went, the bar never went: nothing moves. */
const STILL_UP_MS = 4_500;
/** A visible page is resized when the bar comes: waited for at most this long. */
const COMES_MS = 1_500;
/** A hidden page is resized only when shown: the bar is given this long. */
const HIDDEN_MS = 300;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DebuggingBar {
  /** When the extension's last session went (the bar is going or gone), or undefined while one is attached. */
  #quietSince: number | undefined = Date.now();

  /** How many of the extension's tab sessions there are now, after a change. */
  sessions(count: number): void {
    if (count > 0) this.#quietSince = undefined;
    else this.#quietSince ??= Date.now();
  }

  /**
   * A tab was just attached (the first session, when nothing else was): returns once the bar it
   * brings has come, when it had gone. Bounded: a page that keeps its promise never holds the wake.
   */
  async came(tabId: number, quietSince: number | undefined): Promise<void> {
    if (quietSince === undefined) return;
    const gone = Date.now() - quietSince;
    if (gone < STILL_UP_MS) return;
    // It may be going right now: let it go first, then come again.
    if (gone < LINGERS_MS) await sleep(LINGERS_MS - gone);
    const resized = chrome.debugger
      .sendCommand({ tabId }, 'Runtime.evaluate', {
        expression: `new Promise((done) => { if (document.visibilityState !== 'visible') return setTimeout(done, ${HIDDEN_MS}); addEventListener('resize', () => done(), { once: true }); setTimeout(done, ${COMES_MS}); })`,
        awaitPromise: true,
        returnByValue: true,
      })
      .catch(() => {});
    await Promise.race([resized, sleep(COMES_MS + 100)]);
  }

  /** When the extension's last session went, if none is attached now. */
  get quietSince(): number | undefined {
    return this.#quietSince;
  }
}
