// A grid profile: browsers from a Selenium Grid 4, one per agent session (its `session` name;
// calls without one share the profile's own), asked for on first use over W3C WebDriver and
// driven over the session's `se:cdp` — so N agents spread over the Grid's nodes. Bounded by
// `maxBrowsers` per profile (past it: 429 naming the bound); a browser idle for `idleMs` is given
// back; `stop` (and the server's exit) ends every Grid session of the profile.
// Kept whole (under the 400-line cap): asking, sharing, bounding and giving back browsers all
// change the one table of the profile's Grid sessions.

import net from 'node:net';
import { CdpSocketTabs } from '../../browser/cdp-socket-tabs';
import type { CdpTarget, CdpVersion, TabEndpoint } from '../../browser/tab-endpoint';
import { ClawdError } from '../../errors';
import type { Logger } from '../../log';
import type { BrowserEndpoint as Endpoint, PagePolicy, ProfileDriver, ProfileStatus } from '../profile-driver';
import { GridClient, type GridSession, type GridStatus } from './grid-client';
import { holderAmong, SessionTabs, type SessionBrowser, type SessionBrowsers } from '../session-tabs';

/** A grid profile's settings, parsed (grid-config.ts). */
export interface GridProfileConfig {
  url: string;
  /** W3C capabilities of every browser (alwaysMatch). */
  capabilities: Record<string, unknown>;
  maxBrowsers: number;
  idleMs: number;
  color: string;
}

/** How long the Grid may take to give a browser when the caller set no bound (a node starts one in seconds). */
const NEW_BROWSER_MS = 60_000;
/** How often idle browsers are looked for. */
const SWEEP_MS = 15_000;

interface GridBrowser extends SessionBrowser {
  /** The agent session it is for ('' for calls without one). */
  session: string;
  grid: GridSession;
  /** The node it runs on, as the Grid said when it was made (null when it did not say). */
  node: string | null;
  tabs: CdpSocketTabs;
  lastUsed: number;
}

export class GridDriver implements ProfileDriver, SessionBrowsers<GridBrowser> {
  readonly driver = 'grid' as const;
  readonly policyEnforcement = 'interception' as const;
  // Its browsers are made per agent session when a call needs one, not by a start.
  readonly startsOnUse = false;
  readonly personsBrowser = false;
  readonly perSession = true;
  // Browsers of the Grid's, headless on its nodes: a dialog would hang one, a tab behind another paints nothing.
  readonly pages: PagePolicy = {
    unarmedDialogs: 'dismiss',
    captureFront: 'always',
    cancelsDownloads: true,
    evaluateRefusal: () => undefined,
    noTabs: 'this browser has no open tab: open one first (POST /tabs/open, clawd open URL)',
  };
  readonly grid: GridClient;
  readonly cdp: TabEndpoint;
  // Per agent session: the browser being asked for, and the ones the Grid gave.
  readonly #browsers = new Map<string, Promise<GridBrowser>>();
  readonly #given = new Map<string, GridBrowser>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    private readonly config: GridProfileConfig,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.grid = new GridClient(config.url);
    this.cdp = new SessionTabs(this);
  }

  get base(): string {
    return this.grid.url;
  }

  async version(): Promise<CdpVersion> {
    return gridVersion(await this.grid.status());
  }

  async isReady(handshakeMs = 2_000): Promise<CdpVersion | undefined> {
    const grid = await this.grid.status(handshakeMs).catch(() => undefined);
    return grid && serving(grid) ? gridVersion(grid) : undefined;
  }

  /** Never connected to: every call gets its browser from browserFor (PageFinder asks it first). */
  get playwright(): Endpoint {
    return { url: `${this.grid.url}#shared`, headers: this.grid.headers };
  }

  /** The browsers the Grid gave and the profile holds now. */
  held(): GridBrowser[] {
    return [...this.#given.values()];
  }

  /**
   * The browser a call works in: the one holding `targetId` when it names a tab, else its agent
   * session's, asked of the Grid on first use (within `timeoutMs`, its queue included).
   */
  async browserFor(session: string | undefined, targetId?: string, timeoutMs = NEW_BROWSER_MS): Promise<Endpoint> {
    if (targetId !== undefined) {
      const holder = await this.holderOf(targetId);
      if (holder) return this.#use(holder);
    }
    const key = session ?? '';
    let pending = this.#browsers.get(key);
    if (!pending) {
      if (this.#browsers.size >= this.config.maxBrowsers)
        throw new ClawdError(
          'too_many_browsers',
          `profile ${this.name} holds ${this.#browsers.size} browsers of its Grid, its bound (maxBrowsers ${this.config.maxBrowsers}): end one (clawd stop --profile ${this.name}) or raise maxBrowsers in its config`,
        );
      pending = this.#newBrowser(key, timeoutMs);
      this.#browsers.set(key, pending);
      pending.catch(() => this.#browsers.delete(key));
    }
    return this.#use(await pending);
  }

  #use(browser: GridBrowser): Endpoint {
    browser.lastUsed = this.now();
    const node = browser.node;
    return {
      url: browser.grid.cdp,
      headers: this.grid.headers,
      watch: true,
      // A silent browser whose node still takes connections is slow (a loaded node), not gone;
      // one given back is gone (the Grid may leave its socket open).
      ...(node
        ? { stillThere: async () => this.#given.get(browser.session) === browser && takesConnections(node) }
        : {}),
    };
  }

  async #newBrowser(session: string, timeoutMs: number): Promise<GridBrowser> {
    const grid = await this.#askGrid(timeoutMs);
    this.log.info(
      `profile ${this.name}: Grid session ${grid.id} for ${session ? `agent session ${session}` : 'calls without a session'}`,
    );
    this.#sweep ??= setInterval(() => void this.#giveBackIdle(), SWEEP_MS).unref();
    const node = await this.grid.status(2_000).then(
      (s) => s.nodes.find((n) => n.sessions.includes(grid.id))?.uri ?? null,
      () => null,
    );
    const browser = {
      session,
      grid,
      node,
      tabs: new CdpSocketTabs(grid.cdp, this.grid.headers, 10_000),
      lastUsed: this.now(),
      tabIds: new Set<string>(),
    };
    this.#given.set(session, browser);
    return browser;
  }

  /**
   * A new Grid session within `timeoutMs`. A Grid that sent the request to a node it cannot reach
   * (one that just died, not yet taken out by its health check) is asked again, once a second,
   * while the bound lasts: it takes the node out and picks another.
   */
  async #askGrid(timeoutMs: number): Promise<GridSession> {
    const deadline = this.now() + timeoutMs;
    for (;;) {
      try {
        return await this.grid.newSession(this.config.capabilities, Math.max(1, deadline - this.now()));
      } catch (error) {
        const nodeUnreachable = /connection (error|refused)|unable to (connect|execute request)/i.test(
          (error as Error).message,
        );
        if (!nodeUnreachable || deadline - this.now() < 2_000) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  /** The browser whose tabs include `targetId`, if one does. */
  holderOf(targetId: string): Promise<GridBrowser | undefined> {
    return holderAmong(this.held(), targetId);
  }

  async #giveBackIdle(): Promise<void> {
    const idle = this.held().filter((b) => this.now() - b.lastUsed >= this.config.idleMs);
    await Promise.all(idle.map((b) => this.#end(b, 'idle')));
  }

  async #end(browser: GridBrowser, why: string): Promise<void> {
    if (this.#given.get(browser.session) !== browser) return; // already ended
    this.#browsers.delete(browser.session);
    this.#given.delete(browser.session);
    if (this.#browsers.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
    await this.grid.deleteSession(browser.grid.id);
    this.log.info(`profile ${this.name}: gave Grid session ${browser.grid.id} back (${why})`);
  }

  describeBrowser(url: string): string | undefined {
    const browser = this.held().find((b) => b.grid.cdp === url);
    return browser && `Grid session ${browser.grid.id}${browser.node ? ` on node ${browser.node}` : ''}`;
  }

  /** Its node died, or the Grid ended it: forgotten (and given back, in case the Grid still counts it). */
  browserLost(url: string): void {
    const browser = this.held().find((b) => b.grid.cdp === url);
    if (browser) void this.#end(browser, 'gone');
  }

  /** Every browser's socket, for the origin policy's guard. */
  guardedBrowsers(): Endpoint[] {
    return this.held().map((b) => ({ url: b.grid.cdp, headers: this.grid.headers }));
  }

  /** Where each browser is: for status. */
  async #placed(): Promise<Array<{ session: string; gridSession: string; node: string | null }>> {
    const browsers = this.held();
    if (browsers.length === 0) return [];
    const nodes = await this.grid.status(2_000).then(
      (s) => s.nodes,
      () => [],
    );
    return browsers.map((b) => ({
      session: b.session || '(no session)',
      gridSession: b.grid.id,
      node: nodes.find((n) => n.sessions.includes(b.grid.id))?.uri ?? b.node,
    }));
  }

  async status(enabled: boolean): Promise<ProfileStatus> {
    const grid = await this.grid.status(2_000).catch((error: Error) => error);
    const up = !(grid instanceof Error) && serving(grid);
    const browsers = up ? await this.#placed() : [];
    return {
      enabled,
      profile: this.name,
      driver: 'grid',
      role: 'browsers from a Selenium Grid, one per agent session',
      state: up
        ? `Grid ready, ${browsers.length} browser(s) held (at most ${this.config.maxBrowsers})`
        : 'Grid not answering',
      clawdStops: true,
      running: up,
      cdpReady: up,
      pid: null,
      cdpPort: null,
      cdpUrl: this.grid.url,
      executablePath: null,
      browser: null,
      headless: null,
      userDataDir: null,
      color: this.config.color,
      attachedTabs: null,
      browsers,
      details: browsers.map(
        (b) => `browser of ${b.session}: Grid session ${b.gridSession}${b.node ? ` on ${b.node}` : ''}`,
      ),
      ...(up
        ? {}
        : {
            hint:
              grid instanceof Error
                ? `${grid.message}: start the Grid, or check the URL`
                : `the Grid at ${this.grid.url} is not ready: ${grid.message}`,
          }),
    };
  }

  async ensureReachable(): Promise<void> {
    const grid = await this.grid.status(5_000);
    if (!serving(grid))
      throw new ClawdError('not_running', `the Selenium Grid at ${this.grid.url} is not ready: ${grid.message}`);
  }

  /** The Grid is someone's service: starting is checking it answers. */
  async start(): Promise<CdpVersion | undefined> {
    await this.ensureReachable();
    return undefined;
  }

  /** Ends every Grid session of the profile. */
  async stop(): Promise<boolean> {
    const browsers = this.held();
    await Promise.all(browsers.map((b) => this.#end(b, 'stopped')));
    return browsers.length > 0;
  }

  /** A tab in the agent session's own browser. */
  async openTab(url: string, session: string | undefined): Promise<CdpTarget> {
    await this.browserFor(session);
    const browser = this.#given.get(session ?? '')!;
    const tab = await browser.tabs.open(url);
    browser.tabIds.add(tab.id);
    return tab;
  }
}

/**
 * Whether something listens at the node's address: a killed node's port refuses at once, and a
 * loaded one's is still answered by the kernel. A node only the hub reaches (its own network)
 * counts as gone, as before this look.
 */
function takesConnections(nodeUri: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(nodeUri);
  return new Promise((resolve) => {
    const socket = net.connect({
      host: hostname.replace(/^\[|\]$/g, ''),
      port: Number(port || (protocol === 'https:' ? 443 : 80)),
    });
    const done = (there: boolean) => {
      socket.destroy();
      resolve(there);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(2_000, () => done(false));
  });
}

/** A Grid gives browsers while a node of it is up (it says "not ready" while one of several is down). */
function serving(grid: GridStatus): boolean {
  return grid.ready || grid.nodes.some((node) => node.availability === 'UP');
}

/** A Grid's version and readiness, as the profile's tab endpoint says them. */
function gridVersion(grid: GridStatus): CdpVersion {
  return { Browser: 'Selenium Grid', 'Protocol-Version': '1.3', 'User-Agent': grid.message, webSocketDebuggerUrl: '' };
}
