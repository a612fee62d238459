// One browser of a pool profile: a fresh Chromium in a user data folder of its own, made for one
// agent session and never used by another — its folder is removed when it ends, so nothing of a
// session (cookies, storage, cache, history) reaches the next. Launched like a managed profile's
// (managed-browser.ts: over its pipe, its CDP port served by clawd, token-checked), on a port
// of the profile range that no profile holds.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import type { CdpVersion } from '../../browser/cdp-http';
import { type Executable } from '../../browser/executable';
import { ManagedBrowser, type ManagedBrowserOptions } from '../../browser/managed-browser';
import { firstFreePort } from '../../browser/ports';
import { processesUsing } from '../../browser/processes';
import { ClawdError } from '../../errors';
import { RESERVED_PORTS } from '../../home/config-schema';
import type { SessionBrowser } from '../session-tabs';

export interface PooledBrowserOptions extends Omit<ManagedBrowserOptions, 'name' | 'userDataDir' | 'cdpPort'> {
  profile: string;
  /** The profile's own folder: each browser's user data folder is made under it. */
  folder: string;
  range: { from: number; to: number };
  /** Ports held otherwise (the profiles', the pool's other browsers'). */
  taken: () => Set<number>;
}

// Chromium's network process can still be writing into the profile just after the browser
// process has exited (ENOTEMPTY): the removal is tried again for a short while.
const REMOVE_PROFILE = { recursive: true, force: true, maxRetries: 5, retryDelay: 100 } as const;
/**
 * How long an ended browser's folder is tried again while a process of it still runs: a browser
 * slow to stop (on a slow machine it outlived stop's signals once) wrote into the folder after it
 * was removed.
 */
const REMOVE_MS = 10_000;

// The ports pools' browsers hold in this process, and the claim under way.
const claimedPorts = new Set<number>();
let claiming: Promise<unknown> = Promise.resolve();

export class PooledBrowser implements SessionBrowser {
  /** The agent session it is given to ('' for calls without one); undefined while it waits warm. */
  session: string | undefined;
  lastUsed = Date.now();
  /** Tabs being opened in it now: closing its last tab then is no giving back (pool-driver.ts `givesBack`). */
  opening = 0;
  readonly tabIds = new Set<string>();
  #ended: Promise<void> | undefined;

  private constructor(
    readonly browser: ManagedBrowser,
    readonly port: number,
    readonly dir: string,
    /** What it answered when it was ready (its WebSocket on the port clawd serves among it). */
    readonly version: CdpVersion,
  ) {}

  get tabs(): ManagedBrowser['cdp'] {
    return this.browser.cdp;
  }

  /**
   * Where clawd's own connections reach it (its key in the headers): one URL for the agent and
   * the guard, so the guard a call waits for is the one on the browser it works in.
   */
  get endpoint(): { url: string; headers: Record<string, string> } {
    return { url: this.version.webSocketDebuggerUrl, headers: this.browser.ownHeaders };
  }

  get pid(): number | undefined {
    return this.browser.pid;
  }

  /** A fresh browser, ready over its served port; a failed launch leaves no folder behind. */
  static async launch(
    options: PooledBrowserOptions,
    executable: Executable,
    port: number,
    exited: (browser: PooledBrowser) => void,
  ): Promise<PooledBrowser> {
    const dir = await mkdtemp(path.join(options.folder, 'browser-'));
    let made: PooledBrowser | undefined;
    const browser = new ManagedBrowser({
      ...options,
      name: `${options.profile} (${path.basename(dir)})`,
      userDataDir: dir,
      cdpPort: port,
      onExit: () => made && exited(made),
      access: {
        ...options.access,
        // A raw client with the token may not act in a browser still waiting warm: what it left
        // there (a cookie, a service worker) would reach the session that takes it. clawd's own
        // connections (the guard, the agent layer) pass by their key, not these rules.
        rules: (client) => {
          const rules = options.access.rules(client);
          return {
            ...rules,
            refuse: (method, params) =>
              made?.session === undefined
                ? new ClawdError(
                    'not_running',
                    `${method}: this browser of pool ${options.profile} waits warm for an agent session; connect once a session holds it`,
                  )
                : rules.refuse?.(method, params),
          };
        },
      },
    });
    let version: CdpVersion;
    try {
      ({ version } = await browser.start(executable));
    } catch (error) {
      await rm(dir, REMOVE_PROFILE);
      throw error;
    }
    made = new PooledBrowser(browser, port, dir, version);
    return made;
  }

  /**
   * A port of the range for the next browser, claimed for it until `release` (one claim at a
   * time in the process, every pool's browsers alike: two never pick the same free port), or
   * port_in_use saying the range is full.
   */
  static port(options: PooledBrowserOptions): Promise<number> {
    const claimed = claiming.then(async () => {
      const port = await firstFreePort(options.range, new Set([...options.taken(), ...claimedPorts]), RESERVED_PORTS);
      if (port === undefined)
        throw new ClawdError(
          'port_in_use',
          `no free CDP port left in ${options.range.from}–${options.range.to} for a browser of pool ${options.profile}: end a session's browser or widen browser.cdpPortRange`,
        );
      claimedPorts.add(port);
      return port;
    });
    claiming = claimed.catch(() => {});
    return claimed;
  }

  /** The port is no browser's any more. */
  static release(port: number): void {
    claimedPorts.delete(port);
  }

  /** Stops it and removes its folder (once, however often asked). */
  end(): Promise<void> {
    this.#ended ??= this.browser
      .stop()
      .catch(() => false)
      .then(() => removeFolder(this.dir))
      .finally(() => PooledBrowser.release(this.port));
    return this.#ended;
  }
}

/** Removes a browser's folder once no process runs with it (tried again within REMOVE_MS). */
async function removeFolder(dir: string): Promise<void> {
  for (const end = Date.now() + REMOVE_MS; ; await sleep(250)) {
    const running = await processesUsing(dir);
    await rm(dir, REMOVE_PROFILE);
    if (running.length === 0 && !existsSync(dir)) return;
    if (Date.now() > end)
      throw new Error(
        `${dir} still ${running.length > 0 ? `used by pid ${running[0]!.pid}` : 'there'} after ${REMOVE_MS} ms`,
      );
  }
}
