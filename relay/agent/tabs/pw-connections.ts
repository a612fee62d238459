// One Playwright connection per CDP endpoint (a managed profile's port, the relay, a remote
// browser), reused across requests. A connection that drops is forgotten and the next request
// reconnects, with up to three attempts of growing timeouts; one that drops without being closed
// here (the browser was killed, crashed, or closed by hand) is remembered as lost until asked.

import type { Browser } from 'playwright-core';
import { ClawdError } from '../../errors';
import { within } from '../../time-limit';
import type { Logger } from '../../log';

export interface Endpoint {
  url: string;
  headers?: Record<string, string>;
  /** Asked every WATCH_MS and dropped when silent (a browser that may vanish with its socket left open). */
  watch?: true;
  /** Asked when it is silent: true keeps it (what runs it is there, only slow). */
  stillThere?: () => Promise<boolean>;
}

/** How often a watched browser is asked whether it is there. */
const WATCH_MS = 2_000;
/**
 * How long it may take to say so: three times its slowest recent answer, within these bounds; then
 * `stillThere` is asked. A Grid's browser answers through its hub and node, and on a loaded Grid
 * live ones were silent over 3 s (measured: browsers starting on a Grid sharing two cores with a
 * test run), while a dead node's must be said within 10 s.
 */
const WATCH_SILENCE_MS = { least: 3_000, most: 6_000 };
/** How long `stillThere` may take: no answer is an answer (a machine gone answers nothing). */
const STILL_THERE_MS = 2_000;
/** Answers remembered for that. */
const WATCH_HISTORY = 5;

export class PlaywrightConnections {
  readonly #browsers = new Map<string, Promise<Browser>>();

  constructor(private readonly log: Logger) {}

  #connected = new Set<string>();
  // Endpoints whose browser went away under a live connection; removed when asked (takeLost).
  readonly #lost = new Set<string>();
  #closing = false;

  /** A live connection exists to this endpoint (so the browser is up). */
  isConnected(url: string): boolean {
    return this.#connected.has(url);
  }

  /**
   * Whether the connection to `url` turns out to be gone within `ms` (its browser just went away,
   * and the socket's close is still on its way to Playwright).
   */
  async goneWithin(url: string, ms: number): Promise<boolean> {
    if (this.#lost.has(url)) return true;
    if (!this.#connected.has(url)) return false; // no connection to lose
    const deadline = Date.now() + ms;
    for (;;) {
      if (this.#lost.has(url) || !this.#connected.has(url)) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  browser(endpoint: Endpoint): Promise<Browser> {
    let pending = this.#browsers.get(endpoint.url);
    if (!pending) {
      const began = performance.now();
      pending = this.#connect(endpoint);
      this.#browsers.set(endpoint.url, pending);
      pending.then(
        (browser) => {
          this.#connected.add(endpoint.url);
          const watch = endpoint.watch ? this.#watch(browser, endpoint, performance.now() - began) : undefined;
          browser.on('disconnected', () => {
            if (watch) clearInterval(watch);
            if (this.#browsers.get(endpoint.url) !== pending) return;
            this.#browsers.delete(endpoint.url);
            this.#connected.delete(endpoint.url);
            if (!this.#closing) this.#lost.add(endpoint.url);
            this.log.debug(`playwright: disconnected from ${endpoint.url}`);
          });
        },
        () => this.#browsers.delete(endpoint.url),
      );
    }
    return pending;
  }

  /**
   * Asks the browser for its version every WATCH_MS; silent (WATCH_SILENCE_MS) and not said to be
   * still there, it is dropped: the calls in flight fail at once (and answer browser_gone) instead
   * of waiting out their bound.
   */
  #watch(browser: Browser, { url, stillThere }: Endpoint, connectMs: number): NodeJS.Timeout {
    const session = browser.newBrowserCDPSession();
    // A browser that goes before the first look fails this at once: the look says so, not the process.
    session.catch(() => {});
    // The connection's own time stands for the first answers: a loaded Grid is slow from the start.
    const answers = [connectMs / 2];
    let asking = false;
    /** An answer's time (or a silence found to be load), the last WATCH_HISTORY of them kept. */
    const heard = (ms: number) => {
      answers.push(ms);
      if (answers.length > WATCH_HISTORY) answers.shift();
      asking = false;
    };
    const timer = setInterval(() => {
      if (asking) return;
      asking = true;
      const asked = performance.now();
      const silence = Math.min(WATCH_SILENCE_MS.most, Math.max(WATCH_SILENCE_MS.least, 3 * Math.max(...answers)));
      void within(
        session.then((s) => s.send('Browser.getVersion')),
        silence,
        () => new Error('silent'),
      ).then(
        () => heard(performance.now() - asked),
        async () => {
          const there =
            stillThere && (await within(stillThere(), STILL_THERE_MS, () => new Error('no answer')).catch(() => false));
          if (there) {
            this.log.debug(`playwright: the browser at ${url} said nothing for ${silence} ms, but is there`);
            return heard(silence);
          }
          clearInterval(timer);
          this.log.info(`playwright: the browser at ${url} said nothing for ${silence} ms; dropping it`);
          void browser.close().catch(() => {});
        },
      );
    }, WATCH_MS);
    timer.unref();
    return timer;
  }

  async #connect(endpoint: Endpoint): Promise<Browser> {
    // Loaded on first use: every `clawd` command shares this bundle, and only the server drives pages.
    const { chromium } = await import('playwright-core');
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const browser = await chromium.connectOverCDP(endpoint.url, {
          timeout: 5_000 + attempt * 2_000,
          ...(endpoint.headers ? { headers: endpoint.headers } : {}),
        });
        this.log.debug(`playwright: connected to ${endpoint.url}`);
        return browser;
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
      }
    }
    throw new ClawdError(
      'not_running',
      `could not connect Playwright to ${endpoint.url} after 3 attempts: ${(lastError as Error).message.split('\n')[0]}`,
      { cause: lastError },
    );
  }

  /** Whether the endpoint's browser went away under a live connection (now, or since last asked). */
  lost(url: string): boolean {
    return this.#lost.has(url);
  }

  /** As `lost`, and forgets it: the next connection is a new browser. */
  takeLost(url: string): boolean {
    return this.#lost.delete(url);
  }

  /** Disconnects every browser (it stays running: connectOverCDP's close only disconnects). */
  async close(): Promise<void> {
    this.#closing = true;
    const all = [...this.#browsers.values()];
    this.#browsers.clear();
    this.#connected.clear();
    await Promise.all(
      all.map((pending) =>
        pending.then(
          (b) => b.close(),
          () => undefined,
        ),
      ),
    );
  }
}
