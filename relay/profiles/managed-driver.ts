// A managed profile: our own Chromium with its own user data dir under the home and its own CDP
// port, which clawd serves (the browser listens on none: managed-browser.ts), so clients reach it
// only with the token and held to its policy. `attachOnly` makes it connect-only (never launch):
// then it is a browser someone else started listening on that port itself, reached as it is.

import path from 'node:path';
import type { Logger } from '../log';
import { CdpHttp, type CdpTarget, type CdpVersion } from '../browser/cdp-http';
import { browserVersion } from '../browser/browser-version';
import { findExecutable } from '../browser/executable';
import { decideLaunch } from '../browser/launch-args';
import { ManagedBrowser, type ManagedBrowserOptions } from '../browser/managed-browser';
import { browserProcess, listeningPid, processesUsing, terminate } from '../browser/processes';
import { removeSingletonLeftovers } from '../browser/shutdown';
import { ClawdError } from '../errors';
import { RESERVED_PORTS, parsePort, type BrowserConfig, type ProfileConfig } from '../home/config-schema';
import { firstFreePort, isPortFree, portRangeFromEnv } from '../browser/ports';
import type { DriverKind } from './driver-kinds';
import type { BrowserEndpoint, PagePolicy, ProfileDriver, ProfileStatus } from './profile-driver';
import { guardWaits, rawClientRules } from './raw-client-rules';

function profileDir(home: string, name: string): string {
  return path.join(home, 'profiles', name);
}

export class ManagedDriver implements ProfileDriver {
  readonly driver = 'managed' as const;
  readonly policyEnforcement = 'interception' as const;
  readonly startsOnUse = true;
  readonly personsBrowser = false;
  readonly perSession = false;
  // The agent's own browser: headless pages would hang on a dialog, and a headless tab behind
  // another one paints nothing to capture, so it is brought to the front. A headed one (headless
  // false) has windows on the person's screen: it is brought to the front only when its capture
  // stalls, never raised over the person's work for every screenshot.
  readonly pages: PagePolicy;
  readonly ownFolder: string;
  readonly userDataDir: string;
  readonly cdp: CdpHttp;
  readonly #browser: ManagedBrowser;
  readonly #choice;

  constructor(
    readonly name: string,
    private readonly profile: ProfileConfig & { cdpPort: number },
    private readonly settings: BrowserConfig,
    home: string,
    log: Logger,
    access: ManagedBrowserOptions['access'],
  ) {
    this.ownFolder = profileDir(home, name);
    this.userDataDir = path.join(this.ownFolder, 'user-data');
    this.#choice = decideLaunch(settings);
    this.pages = {
      unarmedDialogs: 'dismiss',
      captureFront: this.#choice.headless ? 'always' : 'when-stalled',
      cancelsDownloads: true,
      evaluateRefusal: () => undefined,
      noTabs: 'this profile has no open tab: open one first (POST /tabs/open, clawd open URL)',
    };
    this.#browser = new ManagedBrowser({
      name,
      userDataDir: this.userDataDir,
      cdpPort: profile.cdpPort,
      color: profile.color,
      choice: this.#choice,
      extraArgs: settings.extraArgs,
      log,
      access,
    });
    if (settings.attachOnly) {
      this.cdp = new CdpHttp(`http://127.0.0.1:${profile.cdpPort}`, {}, 2_000);
      this.playwright = { url: this.cdp.base };
    } else {
      this.cdp = this.#browser.cdp;
      // clawd's own connections say who they are: the port clawd serves lets them past the raw clients' rules.
      this.playwright = { url: this.cdp.base, headers: this.#browser.ownHeaders };
    }
  }

  readonly playwright: { url: string; headers?: Record<string, string> };

  async ensureReachable(): Promise<void> {
    if (!(await this.status(true)).running)
      throw new ClawdError(
        'not_running',
        `profile ${this.name} is not running and browser.autoStart is false: start it first (POST /start, clawd start --profile ${this.name})`,
      );
  }

  #executable() {
    return findExecutable(this.settings.executablePath);
  }

  /** Served by clawd itself unless attached to a browser's own port (attachOnly). */
  ownSocket(): BrowserEndpoint | undefined {
    return this.settings.attachOnly ? undefined : this.#browser.ownSocket;
  }

  /** One browser: every call works in it. */
  browserFor(): Promise<BrowserEndpoint> {
    return Promise.resolve(this.playwright);
  }

  /** Our own browser has no tab groups: a tab is a tab. */
  openTab(url: string): Promise<CdpTarget> {
    return this.cdp.open(url);
  }

  async status(enabled: boolean, confirmed?: CdpVersion): Promise<ProfileStatus> {
    let executablePath: string | null = null;
    let browser: string | null = null;
    try {
      executablePath = this.#executable().path;
      browser = (await browserVersion(executablePath)) ?? null;
    } catch {
      // reported by start and doctor; status stays answerable
    }
    let pid = this.#browser.pid ?? null;
    // A browser that answered a moment ago while starting is still busy starting: asking it again
    // costs tens of milliseconds for nothing (measured by the managed-start bench).
    const version = confirmed && pid !== null ? confirmed : await this.cdp.isReady(1_000);
    if (pid === null && version) {
      // Running from an earlier `clawd serve`: ours if it uses this profile's user data dir.
      pid = (await browserProcess(this.userDataDir, this.profile.cdpPort))?.pid ?? null;
    }
    const running = pid !== null;
    return {
      enabled,
      profile: this.name,
      driver: 'managed',
      role: "clawd's own browser",
      clawdStops: true,
      state: running ? `running${version !== undefined ? ', CDP ready' : ', CDP not answering'}` : 'not running',
      running,
      cdpReady: running && version !== undefined,
      pid,
      cdpPort: this.profile.cdpPort,
      cdpUrl: this.cdp.base,
      executablePath,
      browser: version?.Browser ?? browser,
      headless: this.#choice.headless,
      ...(this.#choice.headlessReason ? { headlessReason: this.#choice.headlessReason } : {}),
      noSandbox: this.#choice.noSandbox,
      ...(this.#choice.noSandboxReason ? { noSandboxReason: this.#choice.noSandboxReason } : {}),
      userDataDir: this.userDataDir,
      color: this.profile.color,
      attachedTabs: null,
      ...(running ? {} : { hint: `not running: start it with \`clawd start --profile ${this.name}\`` }),
    };
  }

  async start(progress?: (message: string) => void): Promise<CdpVersion | undefined> {
    if (this.settings.attachOnly) {
      const version = await this.cdp.isReady();
      if (version) return version;
      throw new ClawdError(
        'attach_only',
        `attachOnly is set: clawd does not launch ${this.name}, and nothing answers on its CDP port ${this.profile.cdpPort}`,
      );
    }
    return (await this.#browser.start(this.#executable(), progress)).version;
  }

  stop(): Promise<boolean> {
    return this.#browser.stop();
  }

  /**
   * Stops only this profile's own browser processes (found by user data dir), never another
   * program on the port, and says whether the port is free now and who holds it if not.
   */
  async reset(): Promise<{ stopped: number[]; portFree: boolean; note?: string }> {
    await this.#browser.stop();
    const ours = await processesUsing(this.userDataDir);
    await Promise.all(ours.map((p) => terminate(p.pid, 2_500)));
    // Nothing uses the profile now: what killed processes left behind can go.
    if (ours.length > 0) await removeSingletonLeftovers(this.userDataDir).catch(() => {});
    const port = this.profile.cdpPort;
    if (await isPortFree(port)) return { stopped: ours.map((p) => p.pid), portFree: true };
    const holder = await listeningPid(port);
    return {
      stopped: ours.map((p) => p.pid),
      portFree: false,
      note: `CDP port ${port} is held by another program${holder ? ` (pid ${holder})` : ''}; clawd left it alone`,
    };
  }
}

/** clawd's own Chromium: a CDP port of its own from the range, taken once and kept. */
export const managedKind: DriverKind = {
  kind: 'managed',
  defaultAsk: [],
  parseOwnKeys(entry, key, fail) {
    const cdpPort = parsePort(`${key}.cdpPort`, entry.cdpPort, fail);
    if (RESERVED_PORTS.has(cdpPort))
      fail(`${key}.cdpPort`, 'must not be 9222 (reserved for ad-hoc debugging)', cdpPort);
    return { cdpPort };
  },
  async newProfile(input, config) {
    if (input.cdpUrl !== undefined)
      throw new ClawdError(
        'invalid_profile',
        'a managed profile gets its own port: leave cdpUrl out, or use driver "remote" to attach to an existing browser',
      );
    const taken = new Set(Object.values(config.profiles).flatMap((p) => (p.cdpPort === undefined ? [] : [p.cdpPort])));
    const range = portRangeFromEnv() ?? config.cdpPortRange;
    const port = await firstFreePort(range, taken, RESERVED_PORTS);
    if (port === undefined)
      throw new ClawdError(
        'port_in_use',
        `no free CDP port left in ${range.from}–${range.to}: delete a profile or widen browser.cdpPortRange`,
      );
    return { cdpPort: port };
  },
  create: (name, profile, { settings, home, log, relay, policy, rawGate, targetSetUp }) =>
    new ManagedDriver(name, profile as ProfileConfig & { cdpPort: number }, settings, home, log, {
      token: relay.token,
      agentKey: relay.agentKey,
      rules: (client) => rawClientRules({ policy, profile: name, gate: rawGate(), identity: client, targetSetUp }),
      ownRules: () => guardWaits(targetSetUp, policy),
    }),
};
