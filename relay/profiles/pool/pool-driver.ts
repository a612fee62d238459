// A pool profile: a fresh browser per agent session (its `session` name; calls without one share
// the profile's own), taken from a few kept warm — launched, served and waiting — so a session's
// first call does not wait for Chromium to start, and a browser is never used by a second session
// (pooled-browser.ts). A session's browser is given back (stopped, its folder removed) when its
// last tab is closed, after `idleMs` unused, or on `stop`; the pool is topped up behind each
// take. Bounded by `maxBrowsers` (warm ones included; past it: 429 naming the bound).
// Kept whole (under the 400-line cap): taking, topping up and giving back all change the one
// table of warm and given browsers.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CdpTarget, CdpVersion, TabEndpoint } from '../../browser/tab-endpoint';
import { findExecutable } from '../../browser/executable';
import { decideLaunch, type LaunchChoice } from '../../browser/launch-args';
import { portRangeFromEnv } from '../../browser/ports';
import { ClawdError } from '../../errors';
import type { BrowserConfig } from '../../home/config-schema';
import type { Logger } from '../../log';
import { within } from '../../time-limit';
import type { BrowserEndpoint, PagePolicy, ProfileDriver, ProfileStatus } from '../profile-driver';
import { holderAmong, SessionTabs, type SessionBrowsers } from '../session-tabs';
import { PooledBrowser, type PooledBrowserOptions } from './pooled-browser';

/** A pool profile's settings, parsed (pool-config.ts). */
export interface PoolProfileConfig {
  /** Browsers kept warm, waiting for a session (0: each is launched when a session asks). */
  size: number;
  maxBrowsers: number;
  idleMs: number;
  color: string;
}

/** How long a session may wait for a browser launched for it when the caller set no bound. */
const NEW_BROWSER_MS = 30_000;
/** How long after a warm browser is taken the pool launches its replacement. */
const TOP_UP_DELAY_MS = 500;
/** How often idle browsers are looked for. */
const SWEEP_MS = 15_000;

interface Warm {
  ready: Promise<PooledBrowser>;
  /** Set once it is up: the guard may hold it before a session takes it. */
  up?: PooledBrowser;
  /** Guarded and connected ahead of its first call (or tried): from then on it is counted warm. */
  warming?: Promise<void>;
  warmedUp?: boolean;
}

export class PoolDriver implements ProfileDriver, SessionBrowsers<PooledBrowser> {
  readonly driver = 'pool' as const;
  readonly policyEnforcement = 'interception' as const;
  // Its browsers are launched for the pool and taken per agent session, not by a start.
  readonly startsOnUse = false;
  readonly personsBrowser = false;
  readonly perSession = true;
  readonly pages: PagePolicy;
  readonly ownFolder: string;
  readonly cdp: TabEndpoint;
  readonly #choice: LaunchChoice;
  readonly #warm: Warm[] = [];
  // Per agent session: the browser being taken for it, and the ones given.
  readonly #asked = new Map<string, Promise<PooledBrowser>>();
  readonly #given = new Map<string, PooledBrowser>();
  #sweep: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    readonly name: string,
    private readonly config: PoolProfileConfig,
    private readonly settings: BrowserConfig,
    home: string,
    private readonly log: Logger,
    private readonly access: PooledBrowserOptions['access'],
    /** A warm browser is up: guarded and connected ahead of its first call (DriverContext.warmed). */
    private readonly warmed: (endpoint: BrowserEndpoint) => Promise<void> = async () => {},
  ) {
    this.ownFolder = path.join(home, 'profiles', name);
    this.#choice = decideLaunch(settings);
    this.pages = {
      unarmedDialogs: 'dismiss',
      captureFront: this.#choice.headless ? 'always' : 'when-stalled',
      cancelsDownloads: true,
      evaluateRefusal: () => undefined,
      noTabs: 'this browser has no open tab: open one first (POST /tabs/open, clawd open URL)',
    };
    this.cdp = new SessionTabs(this);
  }

  get base(): string {
    return `pool ${this.name}`;
  }

  /** Never connected to: every call gets its browser from browserFor (PageFinder asks it first). */
  get playwright(): BrowserEndpoint {
    return { url: `pool://${this.name}#shared` };
  }

  held(): PooledBrowser[] {
    return [...this.#given.values()];
  }

  /**
   * The browser a call works in: the one holding `targetId` when it names a tab, else its agent
   * session's, taken from the warm ones on first use (or launched within `timeoutMs`).
   */
  async browserFor(
    session: string | undefined,
    targetId?: string,
    timeoutMs = NEW_BROWSER_MS,
  ): Promise<BrowserEndpoint> {
    if (targetId !== undefined) {
      const holder = await this.holderOf(targetId);
      if (holder) return this.#use(holder);
    }
    const key = session ?? '';
    // The session's browser while it holds one: taking another for it left the first running,
    // known to nothing (a session's second tab, opened by /tabs/open, did that).
    const given = this.#given.get(key);
    if (given) return this.#use(given);
    let pending = this.#asked.get(key);
    if (!pending) {
      if (this.#given.size + this.#asked.size >= this.config.maxBrowsers)
        throw new ClawdError(
          'too_many_browsers',
          `profile ${this.name} holds ${this.#given.size} browsers for agent sessions, its bound (maxBrowsers ${this.config.maxBrowsers}): close a session's last tab, or raise maxBrowsers in its config`,
        );
      pending = this.#take(key, timeoutMs);
      this.#asked.set(key, pending);
      pending.then(
        () => this.#asked.delete(key),
        () => this.#asked.delete(key),
      );
    }
    return this.#use(await pending);
  }

  #use(browser: PooledBrowser): BrowserEndpoint {
    browser.lastUsed = Date.now();
    return browser.endpoint;
  }

  /** A warm browser for the session (or one launched for it), the pool topped up behind it. */
  async #take(session: string, timeoutMs: number): Promise<PooledBrowser> {
    this.#stopped = false;
    const warm = this.#warm.shift();
    const next = warm ? warm.ready : this.#launch();
    // Behind a warm take the next launch waits a moment: on a small machine Chromium starting
    // takes the cores the session's first page needs. An empty pool fills at once.
    if (warm) setTimeout(() => this.#topUp(), TOP_UP_DELAY_MS).unref();
    else this.#topUp();
    const browser = await within(next, timeoutMs, () => {
      return new ClawdError('command_timeout', `no browser of pool ${this.name} was ready within ${timeoutMs} ms`);
    });
    browser.session = session;
    this.#given.set(session, browser);
    this.#sweep ??= setInterval(() => this.#giveBackIdle(), SWEEP_MS).unref();
    this.log.info(
      `profile ${this.name}: browser pid ${browser.pid} for ${session ? `agent session ${session}` : 'calls without a session'}`,
    );
    return browser;
  }

  /** Launches warm browsers until the pool holds `size` (within maxBrowsers). */
  #topUp(): void {
    while (
      !this.#stopped &&
      this.#warm.length < this.config.size &&
      this.#warm.length + this.#given.size + this.#asked.size < this.config.maxBrowsers
    ) {
      const warm: Warm = { ready: this.#launch() };
      warm.ready.then(
        (browser) => {
          warm.up = browser;
          // Still waiting in the pool: guarded and connected now, not on its session's first call.
          // (Taken while it started, its session's call does both; stopped meanwhile, stop ends it.)
          if (this.#warm.includes(warm))
            warm.warming = Promise.resolve()
              .then(() => this.warmed(browser.endpoint))
              .catch(() => {}) // said by the guard's own warning; the first call tries again
              .finally(() => (warm.warmedUp = true));
        },
        (error: Error) => {
          this.log.warn(`profile ${this.name}: a warm browser did not start: ${error.message}`);
          const at = this.#warm.indexOf(warm);
          if (at >= 0) this.#warm.splice(at, 1);
        },
      );
      this.#warm.push(warm);
    }
  }

  async #launch(): Promise<PooledBrowser> {
    const options: PooledBrowserOptions = {
      profile: this.name,
      folder: this.ownFolder,
      range: portRangeFromEnv() ?? this.settings.cdpPortRange,
      taken: () =>
        new Set(Object.values(this.settings.profiles).flatMap((p) => (p.cdpPort === undefined ? [] : [p.cdpPort]))),
      color: this.config.color,
      choice: this.#choice,
      extraArgs: this.settings.extraArgs,
      log: this.log,
      access: this.access,
    };
    await mkdir(this.ownFolder, { recursive: true });
    const port = await PooledBrowser.port(options);
    try {
      return await PooledBrowser.launch(options, findExecutable(this.settings.executablePath), port, (browser) =>
        this.#exited(browser),
      );
    } catch (error) {
      PooledBrowser.release(port);
      throw error;
    }
  }

  /** The browser whose tabs include `targetId`, if one does. */
  holderOf(targetId: string): Promise<PooledBrowser | undefined> {
    return holderAmong(this.held(), targetId);
  }

  /**
   * Closing a session's last tab gives its browser back, without the close Chrome took 25–80 ms
   * to answer (pool-ready's release): the browser goes with the session anyway (unload handlers
   * do not run, as for any giving back). Not while a tab is being opened in it.
   */
  async givesBack(browser: PooledBrowser, id: string): Promise<boolean> {
    if (browser.opening > 0) return false;
    const tabs = await browser.tabs.list().catch(() => undefined);
    if (browser.opening > 0 || tabs === undefined || tabs.some((t) => t.id !== id) || !tabs.some((t) => t.id === id))
      return false;
    this.#endBehind(browser, 'its last tab was closed');
    return true;
  }

  /** A session's last tab closed: its browser is given back (a browser is one session's, once). */
  async tabClosed(browser: PooledBrowser, id: string): Promise<void> {
    // Chrome answers the close while the page is still closing (and may list it a while): the
    // other tabs are what count. Given back behind the answer: stopping takes a while.
    const left = await browser.tabs.list().catch(() => undefined);
    if (left !== undefined && browser.opening === 0 && !left.some((t) => t.id !== id))
      this.#endBehind(browser, 'its last tab was closed');
  }

  #giveBackIdle(): void {
    for (const b of this.held()) if (Date.now() - b.lastUsed >= this.config.idleMs) this.#endBehind(b, 'idle');
  }

  /** Gives a browser back behind the answer; what goes wrong in its stop is logged, not thrown. */
  #endBehind(browser: PooledBrowser, why: string): void {
    this.#end(browser, why).catch((error: Error) =>
      this.log.warn(`profile ${this.name}: giving a browser back (${why}): ${error.message}`),
    );
  }

  async #end(browser: PooledBrowser, why: string): Promise<void> {
    const session = browser.session;
    if (session === undefined || this.#given.get(session) !== browser) return; // already ended
    this.#given.delete(session);
    if (this.#given.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
    await browser.end();
    this.log.info(`profile ${this.name}: browser of ${session || 'calls without a session'} given back (${why})`);
  }

  describeBrowser(url: string): string | undefined {
    const browser = this.held().find((b) => b.endpoint.url === url);
    return browser && `the pool's browser of ${browser.session || 'calls without a session'} (pid ${browser.pid})`;
  }

  /** One exited: a session's is given back; a warm one leaves the pool, which is topped up. */
  #exited(browser: PooledBrowser): void {
    const at = this.#warm.findIndex((w) => w.up === browser);
    if (at >= 0) {
      this.#warm.splice(at, 1);
      void browser.end();
      this.#topUp();
      return;
    }
    this.browserLost(browser.endpoint.url);
  }

  /** It exited by itself (a crash, a kill): forgotten, so the session's next call gets a new one. */
  browserLost(url: string): void {
    const browser = this.held().find((b) => b.endpoint.url === url);
    if (browser) this.#endBehind(browser, 'gone');
  }

  /** Every browser, warm ones too: held to the policy before a session takes it. */
  guardedBrowsers(): BrowserEndpoint[] {
    const warm = this.#warm.flatMap((w) => (w.up ? [w.up] : []));
    return [...this.held(), ...warm].map((b) => b.endpoint);
  }

  /** What a browser of it answered when it was up (no browser asked again: each is one of many). */
  async version(): Promise<CdpVersion> {
    return (
      this.#anyUp()?.version ?? {
        Browser: 'clawd pool',
        'Protocol-Version': '1.3',
        'User-Agent': '',
        webSocketDebuggerUrl: '',
      }
    );
  }

  /** Ready while a browser of it is up (a warm one, or a session's). */
  async isReady(): Promise<CdpVersion | undefined> {
    return this.#anyUp()?.version;
  }

  #anyUp(): PooledBrowser | undefined {
    return this.held()[0] ?? this.#warm.find((w) => w.up)?.up;
  }

  async status(enabled: boolean): Promise<ProfileStatus> {
    // Counted warm once guarded and connected: what is still being made ready is not yet.
    const warm = this.#warm.filter((w) => w.up && w.warmedUp).length;
    const held = this.held();
    const running = held.length + this.#warm.filter((w) => w.up).length > 0;
    return {
      enabled,
      profile: this.name,
      driver: 'pool',
      role: "clawd's own browsers, a fresh one per agent session",
      state: `${warm} warm of ${this.config.size}, ${held.length} held by agent sessions (at most ${this.config.maxBrowsers})`,
      clawdStops: true,
      running,
      cdpReady: running,
      pid: null,
      cdpPort: null,
      cdpUrl: this.base,
      executablePath: null,
      browser: null,
      headless: this.#choice.headless,
      userDataDir: null,
      color: this.config.color,
      attachedTabs: null,
      details: [
        ...held.map(
          (b) => `browser of ${b.session || '(no session)'}: pid ${b.pid ?? '-'}, CDP port ${b.port} (served by clawd)`,
        ),
        ...this.#warm.flatMap((w) =>
          w.up ? [`${w.warmedUp ? 'warm' : 'warming'}: pid ${w.up.pid ?? '-'}, CDP port ${w.up.port}`] : [],
        ),
      ],
    };
  }

  /** Its browsers are launched here: reachable while Chromium is found. */
  async ensureReachable(): Promise<void> {
    findExecutable(this.settings.executablePath);
  }

  /** Fills the pool and waits for its warm browsers (a failed launch is said). */
  async start(progress?: (message: string) => void): Promise<CdpVersion | undefined> {
    this.#stopped = false;
    this.#topUp();
    progress?.(`starting ${this.#warm.length} warm browser(s)`);
    const ready = await Promise.all(this.#warm.map((w) => w.ready));
    // Warm once guarded and connected too: a first call then finds nothing left to do but its own.
    await Promise.all(this.#warm.map((w) => w.warming));
    return ready[0]?.version;
  }

  /** Ends every browser of the pool, warm ones and sessions' alike; the next call fills it again. */
  async stop(): Promise<boolean> {
    this.#stopped = true;
    const warm = this.#warm.splice(0);
    const held = this.held();
    await Promise.all([
      ...held.map((b) => this.#end(b, 'stopped')),
      ...warm.map((w) =>
        w.ready.then(
          (b) => b.end(),
          () => {},
        ),
      ),
    ]);
    return held.length + warm.length > 0;
  }

  /** A tab in the agent session's own browser. */
  async openTab(url: string, session: string | undefined): Promise<CdpTarget> {
    await this.browserFor(session);
    const browser = this.#given.get(session ?? '');
    if (!browser)
      throw new ClawdError('browser_gone', 'the browser was given back as the tab was opened (its last tab closed)');
    browser.opening++;
    try {
      const tab = await browser.tabs.open(url);
      browser.tabIds.add(tab.id);
      return tab;
    } finally {
      browser.opening--;
    }
  }
}
