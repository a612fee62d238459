// Profiles and their browsers, as the control API and the CLI see them: resolve a profile by
// name (or the default), report status, start and stop, list/open/focus/close tabs, create and
// delete profiles, reset a managed profile's stray processes. Each profile's origin policy and
// asks are `policies` (profile-policies.ts), over the same config. Config changes go through the
// locked updateConfig; the service keeps the current config and one driver per profile.

import type { ClientGate } from '../cdp/client-gate';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isLoopbackUrl, nextColor, profileNameProblem, type BrowserConfig } from '../home/config-schema';
import type { DriverKinds, NewProfileInput } from './driver-kinds';
import type { BrowserEndpoint, ProfileDriver, ProfileStatus } from './profile-driver';
import { ProfilePolicies } from './profile-policies';
import type { CdpTarget } from '../browser/tab-endpoint';
import type { RelayServer } from '../cdp/relay-server';
import { noteForCaller } from '../call-notes';
import { ClawdError, isClawdError } from '../errors';
import { updateConfig, type ClawdConfig } from '../home/config-store';
import type { Logger } from '../log';
import { checkOpenUrl, matchTab, type Tab } from './tabs';

export interface CreateProfile extends NewProfileInput {
  name?: unknown;
  color?: unknown;
  driver?: unknown;
}

/** How long a closed tab may stay listed before DELETE /tabs answers anyway. */
const CLOSE_SETTLE_MS = 5_000;
/**
 * How often it is looked for meanwhile: Chrome still lists a closed tab at the first look about
 * half the time. Looked for every 50 ms, a close that needed a second look answered 55–115 ms
 * after Chrome's; every 10 ms, 20–70 ms (a managed profile, twelve closes each way).
 */
const CLOSE_POLL_MS = 10;
const toTab = (t: CdpTarget): Tab => ({ targetId: t.id, title: t.title, url: t.url, type: t.type });

export type { PolicyInForce } from './profile-policies';

export class ProfileService {
  #config: ClawdConfig;
  readonly #drivers = new Map<string, ProfileDriver>();
  /** Each profile's origin policy and asks, and the guards that hold its browsers to them. */
  readonly policies: ProfilePolicies;
  /** A profile was started on an agent's first use of it (/events listens). */
  onStartedOnUse: (profile: string) => void = () => {};
  /** A browser made ahead of its calls is up and guarded: the agent layer connects to it (server.ts). */
  onBrowserUp: (endpoint: BrowserEndpoint) => Promise<void> = async () => {};
  /** The gate a profile's raw CDP clients are held to, for its asks (the person's say: consent). */
  rawGate: (profile: string) => ClientGate | undefined = () => undefined;
  constructor(
    private readonly home: string,
    config: ClawdConfig,
    private readonly relay: RelayServer,
    private readonly log: Logger,
    /** The kinds of profile this server runs (kinds.ts, or a longer list). */
    readonly kinds: DriverKinds,
  ) {
    this.#config = config;
    this.policies = new ProfilePolicies(
      {
        home,
        kinds,
        settings: () => this.settings,
        saved: (next) => (this.#config = next),
        driver: (name) => this.driver(name),
      },
      log,
    );
  }

  get settings(): BrowserConfig {
    return this.#config.browser;
  }

  /** The profiles of the person's own browser, reached through this server's relay (its tabs belong to every one). */
  personsProfiles(): string[] {
    return Object.keys(this.#config.browser.profiles).filter((name) => this.driver(name).personsBrowser);
  }

  /** The profile a request names, or the default one; unknown → 404. Disabled → 503. */
  resolve(name: string | undefined): string {
    if (!this.settings.enabled)
      throw new ClawdError(
        'browser_disabled',
        'Browser disabled in settings (browser.enabled is false in config.json)',
      );
    const chosen = name === undefined || name === '' ? this.settings.defaultProfile : name;
    if (!this.settings.profiles[chosen]) {
      throw new ClawdError(
        'profile_not_found',
        `no profile named ${JSON.stringify(chosen)}: the profiles are ${Object.keys(this.settings.profiles).join(', ')}`,
      );
    }
    return chosen;
  }

  driver(name: string): ProfileDriver {
    let driver = this.#drivers.get(name);
    if (driver) return driver;
    const profile = this.settings.profiles[name];
    if (!profile) throw new ClawdError('profile_not_found', `no profile named ${JSON.stringify(name)}`);
    driver = this.kinds.kind(profile.driver).create(name, profile, {
      home: this.home,
      settings: this.settings,
      relay: this.relay,
      log: this.log,
      policy: () => this.policies.policy(name),
      rawGate: () => this.rawGate(name),
      targetSetUp: (targetId, type) => this.policies.whenSetUp(name, targetId, type),
      warmed: (endpoint) =>
        this.policies.guard(name, endpoint.url).then(
          () => this.onBrowserUp(endpoint),
          (error: Error) => this.log.warn(`profile ${name}: a browser made ahead is not guarded yet: ${error.message}`),
        ),
    });
    this.#drivers.set(name, driver);
    return driver;
  }

  status(name: string): Promise<ProfileStatus> {
    return this.driver(name).status(this.settings.enabled);
  }

  async list(): Promise<Array<ProfileStatus & { default: boolean }>> {
    const names = Object.keys(this.settings.profiles);
    const statuses = await Promise.all(names.map((n) => this.status(n)));
    return statuses.map((s) => ({ ...s, default: s.profile === this.settings.defaultProfile }));
  }

  /** Makes the profile's browser available; says whether it already was, and how long it took. */
  async start(
    name: string,
    progress?: (message: string) => void,
  ): Promise<ProfileStatus & { alreadyRunning: boolean; tookMs: number }> {
    const driver = this.driver(name);
    const began = performance.now();
    const before = await driver.cdp.isReady(500);
    const confirmed = await driver.start(progress);
    await this.policies.guard(name);
    const status = await driver.status(this.settings.enabled, confirmed);
    return { ...status, alreadyRunning: before !== undefined, tookMs: Math.round(performance.now() - began) };
  }

  async stop(name: string): Promise<{ stopped: boolean; status: ProfileStatus }> {
    await this.policies.release(name);
    const stopped = await this.driver(name).stop();
    return { stopped, status: await this.status(name) };
  }

  /**
   * Before an agent uses a profile: its browser reachable and held to the policy. A managed
   * profile that is not running is started as `POST /start` would (unless browser.autoStart is
   * false), and the caller is told; anything else unreachable says what to do.
   */
  async ensureRunning(name: string): Promise<ProfileDriver> {
    const driver = this.driver(name);
    try {
      await driver.ensureReachable();
    } catch (error) {
      if (!(isClawdError(error) && error.code === 'not_running' && driver.startsOnUse && this.settings.autoStart))
        throw error;
      const started = await this.start(name);
      if (!started.alreadyRunning) {
        noteForCaller(`started profile ${name} in ${(started.tookMs / 1000).toFixed(1)} s: it was not running`);
        this.onStartedOnUse(name);
      }
    }
    await this.policies.guard(name);
    return driver;
  }

  async tabs(name: string): Promise<Tab[]> {
    return (await (await this.ensureRunning(name)).cdp.list()).map(toTab);
  }

  /** The tabs the person handed over in their own browser (extension profiles other than `except`, connected). */
  async handedOver(except: string): Promise<Array<{ profile: string; tabs: Tab[] }>> {
    const found = await Promise.all(
      this.personsProfiles()
        .filter((name) => name !== except)
        .map(async (name) => ({ profile: name, tabs: await this.tabs(name).catch(() => []) })),
    );
    return found.filter((p) => p.tabs.length > 0);
  }

  async openTab(name: string, url: unknown, session?: string): Promise<Tab> {
    const target = checkOpenUrl(url);
    this.policies.checkUrl(name, target);
    const driver = await this.ensureRunning(name);
    // A browser per agent session: the session's own, guarded before the tab loads anything in it.
    if (driver.perSession) await this.policies.guard(name, (await driver.browserFor(session)).url);
    return toTab(await driver.openTab(target, session));
  }

  /** A tab by its id or a unique prefix (ambiguous → 409, unknown → 404). */
  async findTab(name: string, idOrPrefix: string): Promise<Tab> {
    return matchTab(await this.tabs(name), idOrPrefix);
  }

  async focusTab(name: string, idOrPrefix: string): Promise<Tab> {
    const tab = matchTab(await this.tabs(name), idOrPrefix);
    await this.driver(name).cdp.activate(tab.targetId);
    return tab;
  }

  /**
   * Closes the tab and answers once the browser no longer lists it: Chrome answers
   * `Target.closeTarget` (and `/json/close`) while the page is still closing, and a list asked
   * right after would show it. Bounded: a tab still listed after CLOSE_SETTLE_MS is answered as
   * closing (the browser took the word).
   */
  async closeTab(name: string, idOrPrefix: string): Promise<Tab> {
    const tab = matchTab(await this.tabs(name), idOrPrefix);
    const cdp = this.driver(name).cdp;
    await cdp.close(tab.targetId);
    const until = performance.now() + CLOSE_SETTLE_MS;
    while (performance.now() < until) {
      const listed = await cdp.list().catch(() => []);
      if (!listed.some((t) => t.id === tab.targetId)) break;
      await new Promise((resolve) => setTimeout(resolve, CLOSE_POLL_MS));
    }
    return tab;
  }

  /** A new profile of any kind (the one it names, or the one a field of it chooses, else the first: DriverKinds.chosenFor); its own keys are its kind's. */
  async create(input: CreateProfile): Promise<ProfileStatus> {
    const problem = profileNameProblem(input.name);
    if (problem) throw new ClawdError('invalid_profile', problem);
    const name = input.name as string;
    if (input.color !== undefined && (typeof input.color !== 'string' || !/^#[0-9A-Fa-f]{6}$/.test(input.color))) {
      throw new ClawdError('invalid_profile', `color must look like "#0066CC", got ${JSON.stringify(input.color)}`);
    }
    const kind = this.kinds.chosenFor(input);
    const written = await updateConfig(
      this.home,
      async (config) => {
        if (config.browser.profiles[name])
          throw new ClawdError('profile_exists', `a profile named ${name} already exists`);
        config.browser.profiles[name] = {
          driver: kind.kind,
          color: (input.color as string | undefined)?.toUpperCase() ?? nextColor(config.browser),
          ...(await kind.newProfile(input, config.browser, this.relay.url)),
        };
        return config;
      },
      this.kinds,
    );
    this.#config = written;
    const cdpUrl = written.browser.profiles[name]!.cdpUrl;
    if (cdpUrl !== undefined && !isLoopbackUrl(cdpUrl))
      this.log.info(`profile ${name} attaches to a browser elsewhere; clawd never launches it`);
    return this.status(name);
  }

  /** Stops the profile's browser and removes its entry and its own folder under the home (nothing else). */
  async remove(name: string): Promise<{ deleted: string; removed: string | null }> {
    if (name === this.settings.defaultProfile) {
      throw new ClawdError(
        'invalid_profile',
        `${name} is the default profile: make another one the default (browser.defaultProfile) before deleting it`,
      );
    }
    const driver = this.driver(name);
    await driver.stop();
    const written = await updateConfig(
      this.home,
      (config) => {
        delete config.browser.profiles[name];
        return config;
      },
      this.kinds,
    );
    this.#config = written;
    this.#drivers.delete(name);
    let removed: string | null = null;
    const dir = driver.ownFolder;
    // Only ever this profile's own folder: a name is validated, but check the path anyway.
    if (dir !== undefined && path.dirname(dir) === path.join(this.home, 'profiles') && path.basename(dir) === name) {
      await fs.rm(dir, { recursive: true, force: true });
      removed = dir;
    }
    return { deleted: name, removed };
  }

  async reset(name: string): Promise<{ profile: string; stopped: number[]; portFree: boolean; note?: string }> {
    const driver = this.driver(name);
    if (!driver.reset)
      throw new ClawdError('invalid_profile', `${name} is not a managed profile: there is nothing of clawd's to reset`);
    return { profile: name, ...(await driver.reset()) };
  }

  /** Stops the browsers this process launched (server shutdown). */
  async close(): Promise<void> {
    this.policies.close();
    // Only a managed driver has something of its own to stop; the others answer false.
    await Promise.all([...this.#drivers.values()].map((d) => d.stop().catch(() => false)));
  }
}
