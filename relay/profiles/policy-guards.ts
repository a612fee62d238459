// The relay's hold on managed, remote and grid browsers to their profiles' origin policies: one
// guard (policy-guard.ts: the browser's own request interception) per browser while its policy
// has rules, started on first use, made anew when a policy changes (what a guard put in pages was
// made from the old rules), ended when the browser stops. Keyed by profile, and by profile and
// socket where a profile has a browser per agent session (grid).

import type { OriginPolicy } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import { AGENT_KEY_HEADER } from '../browser/cdp-endpoint';
import type { Logger } from '../log';
import { browserSocket } from './browser-socket';
import { GUARD_START_MS, PolicyGuard, type GuardBlock } from './policy-guard';
import type { BrowserEndpoint, ProfileDriver } from './profile-driver';

/** How long a profile's browser may take to answer before its guard is started (a loaded machine is slow). */
const GUARD_READY_MS = 5_000;

/**
 * The guard's connection to a browser. Said to clawd's own CDP port (a managed or pool browser's:
 * its key is in the headers) as the guard's, so its own commands in a new target are not held for
 * its own walls (held, each new target's set-up waited its whole bound: a pool's every new browser
 * took 5 s more); a remote browser's port is Chrome's, asked as it is.
 */
export function asTheGuard(browser: BrowserEndpoint): BrowserEndpoint {
  if (browser.headers?.[AGENT_KEY_HEADER] === undefined) return browser;
  const said = new URL(browser.url);
  said.searchParams.set('clawd', 'guard');
  return { ...browser, url: said.toString() };
}

export class PolicyGuards {
  readonly #guards = new Map<string, Promise<PolicyGuard | undefined>>();

  constructor(
    private readonly policy: (profile: string) => OriginPolicy,
    private readonly log: Logger,
    private readonly onBlock: (profile: string, block: GuardBlock) => void,
  ) {}

  /**
   * Holds the profile's browser to its policy, when the relay is the one to (managed, remote and
   * grid browsers) and the policy has rules: a guard of its own on the browser, kept while it lives.
   * Idempotent. A browser that cannot be guarded (it does not answer, or refuses the guard's
   * connection) fails the call with `policy_not_enforced`: an agent never works in a browser its
   * policy does not hold, and the next call tries again. A profile with a browser per agent session
   * (grid) guards the one at `browserUrl` so, and the others it holds as far as they let it.
   * `startMs`: the calling agent's bound, which a new guard's connection may take (a Grid's browser
   * is reached through its hub, and that is slow on a loaded Grid); never under GUARD_START_MS.
   */
  async hold(name: string, driver: ProfileDriver, browserUrl?: string, startMs?: number): Promise<void> {
    const empty = this.policy(name).empty;
    if (driver.policyEnforcement !== 'interception' || empty) {
      await this.release(name);
      return;
    }
    const browsers = driver.guardedBrowsers?.();
    // The call goes on once its browser's guard has walled what was open when it started (ready).
    if (browsers === undefined) {
      const guard = await this.#guardOne(name, name, startMs, async () =>
        asTheGuard(await browserSocket(driver, undefined, GUARD_READY_MS)),
      );
      return guard.ready;
    }
    // Each browser's guard on its own: one that cannot be guarded refuses only its own calls, and
    // only the call's own browser's set-up is waited for.
    await Promise.all(
      browsers.map((browser) => {
        const guarding = this.#guardOne(name, `${name}\n${browser.url}`, startMs, async () => asTheGuard(browser));
        return browser.url === browserUrl ? guarding.then((guard) => guard.ready) : guarding.catch(() => {});
      }),
    );
  }

  /**
   * What a raw client's first command on a new target of the profile's browsers, and its word to
   * run it, wait for: the guard's walls in it (PolicyGuard.whenSetUp); nothing while no guard holds
   * them. A pool's browsers have a guard each, and only the target's own hears of it: the first
   * to say it is set up ends the wait, or every one past its bound for a target none heard of.
   */
  whenSetUp(name: string, targetId: string, type?: string): Promise<void> | undefined {
    const guards = [...this.#guards].filter(([key]) => key === name || key.startsWith(`${name}\n`));
    if (guards.length === 0) return undefined;
    return Promise.all(guards.map(([, guard]) => guard.catch(() => undefined))).then((found) => {
      const open = found.filter((g): g is PolicyGuard => g?.open === true);
      if (open.length === 0) return;
      // One that set it up and holds it answers at once (undefined); the others wait for a target
      // they will never see, up to their bound.
      return Promise.race(open.map((g) => g.whenSetUp(targetId, type) ?? Promise.resolve()));
    });
  }

  async #guardOne(
    name: string,
    key: string,
    startMs: number | undefined,
    browser: () => Promise<BrowserEndpoint>,
  ): Promise<PolicyGuard> {
    // The guard in force, or the one being started by another call, is used; a closed or failed
    // one is replaced. No await between looking and setting: two calls never start two guards
    // for one browser (a second one, unclosed, would keep the old rules in force).
    for (;;) {
      const existing = this.#guards.get(key);
      if (!existing) break;
      const guard = await existing;
      if (this.#guards.get(key) !== existing) continue;
      if (guard?.open) return guard;
      break;
    }
    const starting = (async () =>
      PolicyGuard.start(
        await browser(),
        () => this.policy(name),
        this.log,
        (block) => this.onBlock(name, block),
        Math.max(GUARD_START_MS, startMs ?? 0),
      ))();
    // A failed start is kept as nothing: whoever waits on it starts another.
    const kept = starting.catch(() => undefined);
    this.#guards.set(key, kept);
    try {
      const guard = await starting;
      // Forgotten once its browser is gone (a pool's browsers come and go: one entry each otherwise).
      void guard.gone.then(() => {
        if (this.#guards.get(key) === kept) this.#guards.delete(key);
      });
      return guard;
    } catch (error) {
      if (this.#guards.get(key) === kept) this.#guards.delete(key);
      this.log.warn(`the origin policy of ${name} cannot be enforced in its browser: ${(error as Error).message}`);
      throw new ClawdError(
        'policy_not_enforced',
        `the connection that holds profile ${name}'s browser to its origin policy (and keeps its pages off clawd's own addresses) failed (${(error as Error).message}): nothing was done in it. Check that the browser answers, its address and credentials`,
      );
    }
  }

  /** Ends the profile's guards (its browsers stopped, or its policy is empty now). */
  async release(name: string): Promise<void> {
    for (const [key, guard] of [...this.#guards]) {
      if (key !== name && !key.startsWith(`${name}\n`)) continue;
      this.#guards.delete(key);
      (await guard)?.close();
    }
  }

  /**
   * A policy changed: every guard is made anew by `remake` (what the old ones put in pages was made
   * from the old rules), and the old ones close only once it is done. Closed first, there was a
   * moment with no guard: a target started then ran unheld (the old guard's holds go with its
   * connection), and a client's word to run one waited for nothing. Both judge by the policy in
   * force meanwhile (a guard reads it at each request).
   */
  async renew(remake: () => Promise<void>): Promise<void> {
    const old = [...this.#guards.values()];
    this.#guards.clear();
    try {
      await remake();
    } finally {
      await Promise.all(old.map((guard) => guard.then((g) => g?.close())));
    }
  }

  /** The server stops. */
  close(): void {
    for (const guard of this.#guards.values()) void guard.then((g) => g?.close());
    this.#guards.clear();
  }
}
