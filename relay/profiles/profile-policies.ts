// Each profile's origin policy (which sites agents may reach) and what the person is asked
// before on it, as the profile service keeps them: read from the config the service holds,
// written through the locked updateConfig and in force at once — its listeners told (the relay,
// the person's pages), the browsers' guards made anew (policy-guards.ts). clawd's own addresses
// are always among the rules.

import { OriginPolicy, type PolicyConfig } from '../../shared/origin-policy';
import { ownOrigins } from '../../shared/own-origins';
import type { AskKind } from '../../shared/ask-kinds';
import { askOf, parsePolicy, policyOf, type BrowserConfig } from '../home/config-schema';
import type { KindSchemas } from '../home/profile-kinds';
import { updateConfig, type ClawdConfig } from '../home/config-store';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type { ProfileDriver } from './profile-driver';
import type { GuardBlock } from './policy-guard';
import { PolicyGuards } from './policy-guards';

/** The origin policy in force for a profile, and where it comes from. */
export interface PolicyInForce {
  profile: string;
  /** The profile's own policy, the global one, or none at all. */
  source: 'profile' | 'global' | 'none';
  allow?: string[];
  block?: string[];
  /** What the person is asked before on this profile. */
  ask: AskKind[];
}

/** What the policies need of the profile service: its config (read and saved), its drivers. */
export interface PolicyHost {
  readonly home: string;
  /** The kinds of profile the server runs: their own keys checked, their default asks. */
  readonly kinds: KindSchemas;
  settings(): BrowserConfig;
  /** The config written by a change, kept by the service from now on. */
  saved(config: ClawdConfig): void;
  driver(name: string): ProfileDriver;
}

export class ProfilePolicies {
  // Told when any policy changes (the enforcers re-read theirs); removed by the returned function.
  readonly #listeners = new Set<() => void | Promise<void>>();
  // The relay's interception of a managed or remote browser, while its profile's policy has rules.
  readonly #guards: PolicyGuards;
  /** A request a guard refused (the action log listens). */
  onGuardBlock: (profile: string, block: GuardBlock) => void = () => {};
  /** The ports this server listens on (relay, control API): with the profiles' CDP ports, clawd's own addresses. */
  serverPorts: () => number[] = () => [];

  constructor(
    private readonly host: PolicyHost,
    log: Logger,
  ) {
    this.#guards = new PolicyGuards(
      (name) => this.policy(name),
      log,
      (name, block) => this.onGuardBlock(name, block),
    );
  }

  policyInForce(name: string): PolicyInForce {
    const { source, config } = policyOf(this.host.settings(), name);
    return { profile: name, source, ...config, ask: this.askOf(name) };
  }

  /** The profile's policy as a matcher, clawd's own addresses always blocked first. */
  policy(name: string): OriginPolicy {
    return new OriginPolicy({ ...policyOf(this.host.settings(), name).config, own: this.ownOrigins() });
  }

  /** clawd's own addresses (shared/own-origins.ts): its listeners and every profile's CDP port. */
  ownOrigins(): string[] {
    const cdpPorts = Object.values(this.host.settings().profiles).flatMap((p) =>
      p.cdpPort !== undefined ? [p.cdpPort] : [],
    );
    return ownOrigins([...this.serverPorts(), ...cdpPorts]);
  }

  /** Refuses a URL the profile's policy blocks: 403 origin_blocked naming the rule, nothing loaded. */
  checkUrl(name: string, url: string): void {
    const verdict = this.policy(name).check(url);
    if (!verdict.allowed)
      throw new ClawdError(
        'origin_blocked',
        `${verdict.reason} (the origin policy of profile ${name}); nothing was loaded`,
      );
  }

  /** What the person asked to be asked before on the profile (browser.profiles.<name>.ask, or its driver's default). */
  askOf(name: string): AskKind[] {
    return askOf(this.host.settings(), name, this.host.kinds);
  }

  /**
   * Sets a profile's own policy (or, with `global`, browser.policy), written to config.json and
   * in force at once. An empty policy removes the profile's own, so the global one applies again.
   */
  async setPolicy(name: string, policy: PolicyConfig, global: boolean): Promise<PolicyInForce> {
    const checked = parsePolicy(policy, global ? 'browser.policy' : `browser.profiles.${name}.policy`, 'the request');
    const empty = checked.allow === undefined && checked.block === undefined;
    this.host.saved(
      await updateConfig(
        this.host.home,
        (config) => {
          if (global) {
            if (empty) delete config.browser.policy;
            else config.browser.policy = checked;
          } else {
            const profile = config.browser.profiles[name];
            if (!profile) throw new ClawdError('profile_not_found', `no profile named ${JSON.stringify(name)}`);
            if (empty) delete profile.policy;
            else profile.policy = checked;
          }
          return config;
        },
        this.host.kinds,
      ),
    );
    // Answered once every enforcer has the new rules in force: the guards are made anew (what they
    // put in pages was made from the old rules, and goes with their connection).
    await Promise.all([...this.#listeners].map((listener) => listener()));
    // A browser that cannot be guarded now refuses its next call (guard() again, from PageFinder).
    await this.#guards.renew(async () => {
      await Promise.all(
        Object.keys(this.host.settings().profiles).map((profile) => this.guard(profile).catch(() => {})),
      );
    });
    return this.policyInForce(name);
  }

  /** What the person is asked before on the profile, written to config.json and in force at once (the person's: never an MCP tool). */
  async setAsk(name: string, kinds: AskKind[]): Promise<PolicyInForce> {
    this.host.saved(
      await updateConfig(
        this.host.home,
        (config) => {
          const profile = config.browser.profiles[name];
          if (!profile) throw new ClawdError('profile_not_found', `no profile named ${JSON.stringify(name)}`);
          profile.ask = [...kinds];
          return config;
        },
        this.host.kinds,
      ),
    );
    await Promise.all([...this.#listeners].map((listener) => listener()));
    return this.policyInForce(name);
  }

  /** Calls `listener` whenever a policy changes; returns its removal. */
  onPolicyChange(listener: () => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Holds the profile's browser to its policy (policy-guards.ts); policy_not_enforced when it cannot be. */
  guard(name: string, browserUrl?: string, startMs?: number): Promise<void> {
    return this.#guards.hold(name, this.host.driver(name), browserUrl, startMs);
  }

  /** What a raw client's word to run a new target of the profile's browser waits for (PolicyGuards.whenSetUp). */
  whenSetUp(name: string, targetId: string, type?: string): Promise<void> | undefined {
    return this.#guards.whenSetUp(name, targetId, type);
  }

  /** The profile's browsers stopped: their guards go. */
  release(name: string): Promise<void> {
    return this.#guards.release(name);
  }

  /** The server stops. */
  close(): void {
    this.#guards.close();
  }
}
