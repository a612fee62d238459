// A remote profile: a CDP endpoint someone else runs (a browserless or Playwright server, a
// Selenium Grid session's `se:cdp`, a tunnel). Attach only: clawd never launches or stops a
// remote browser. An http(s) URL is asked over Chrome's `/json/*`; a ws(s) URL is the browser's
// CDP WebSocket itself, often with nothing beside it, so its tabs go over CDP's Target domain.

import { CdpHttp } from '../browser/cdp-http';
import { CdpSocketTabs, redacted } from '../browser/cdp-socket-tabs';
import type { CdpTarget, CdpVersion, TabEndpoint } from '../browser/tab-endpoint';
import { ClawdError } from '../errors';
import { parseCdpUrl, type ProfileConfig } from '../home/config-schema';
import type { DriverKind } from './driver-kinds';
import { checkedCdpUrl } from './extension-driver';
import type { BrowserEndpoint, PagePolicy, ProfileDriver, ProfileStatus } from './profile-driver';

export class RemoteDriver implements ProfileDriver {
  readonly driver = 'remote' as const;
  readonly policyEnforcement = 'interception' as const;
  readonly startsOnUse = false;
  readonly personsBrowser = false;
  readonly perSession = false;
  readonly cdp: TabEndpoint;
  // Someone else's browser, often a headless server: dialogs would hang it, but its windows are not ours to rearrange.
  readonly pages: PagePolicy = {
    unarmedDialogs: 'dismiss',
    captureFront: 'when-stalled',
    cancelsDownloads: true,
    evaluateRefusal: () => undefined,
    noTabs: 'this profile has no open tab: open one first (POST /tabs/open, clawd open URL)',
  };

  constructor(
    readonly name: string,
    private readonly profile: ProfileConfig & { cdpUrl: string },
  ) {
    this.cdp = /^wss?:/.test(profile.cdpUrl)
      ? new CdpSocketTabs(profile.cdpUrl, {}, 5_000)
      : new CdpHttp(profile.cdpUrl, {}, 5_000);
    this.playwright = { url: profile.cdpUrl };
  }

  readonly playwright: { url: string };

  /** One browser: every call works in it. */
  browserFor(): Promise<BrowserEndpoint> {
    return Promise.resolve(this.playwright);
  }

  /** Someone else's browser: no tab groups of the person's, a tab is a tab. */
  openTab(url: string): Promise<CdpTarget> {
    return this.cdp.open(url);
  }

  /** What the endpoint answered instead of CDP, when it can say (a bare socket's 401 or 404). */
  async #problem(): Promise<string> {
    const said = this.cdp instanceof CdpSocketTabs ? await this.cdp.problem(2_000) : undefined;
    return said ?? `nothing answers CDP at ${this.#where}`;
  }

  /** The URL as it may be said (its token and password left out). */
  get #where(): string {
    return redacted(this.profile.cdpUrl);
  }

  async status(enabled: boolean, confirmed?: CdpVersion): Promise<ProfileStatus> {
    const version = confirmed ?? (await this.cdp.isReady(2_000));
    return {
      enabled,
      profile: this.name,
      driver: 'remote',
      role: 'a remote browser',
      state: version !== undefined ? 'running, CDP ready' : 'not running',
      clawdStops: false,
      running: version !== undefined,
      cdpReady: version !== undefined,
      pid: null,
      cdpPort: null,
      cdpUrl: this.#where,
      executablePath: null,
      browser: version?.Browser ?? null,
      headless: null,
      userDataDir: null,
      color: this.profile.color,
      attachedTabs: null,
      ...(version
        ? {}
        : { hint: `${await this.#problem()}: clawd only attaches to remote profiles, start that browser yourself` }),
    };
  }

  async ensureReachable(): Promise<void> {
    if (!(await this.cdp.isReady(2_000)))
      throw new ClawdError(
        'not_running',
        `remote profile ${this.name}: ${await this.#problem()}; start that browser (clawd only attaches to remote profiles)`,
      );
  }

  async start(): Promise<CdpVersion> {
    const version = await this.cdp.isReady();
    if (version) return version;
    throw new ClawdError(
      'attach_only',
      `remote profile ${this.name}: ${await this.#problem()}, and clawd never launches a remote browser`,
    );
  }

  async stop(): Promise<boolean> {
    return false;
  }
}

/** Someone else's browser, attached by its CDP URL (http(s) with `/json/*`, or a bare ws(s) socket). */
export const remoteKind: DriverKind = {
  kind: 'remote',
  defaultAsk: [],
  chosenBy: 'cdpUrl',
  flags: { 'cdp-url': { input: 'cdpUrl', value: 'URL', help: 'a remote profile: the CDP endpoint to attach to' } },
  parseOwnKeys: (entry, key, fail) => ({ cdpUrl: parseCdpUrl(`${key}.cdpUrl`, entry.cdpUrl, fail) }),
  async newProfile(input) {
    if (input.cdpUrl === undefined) throw new ClawdError('invalid_profile', 'a remote profile needs cdpUrl');
    return { cdpUrl: checkedCdpUrl(input.cdpUrl) };
  },
  create: (name, profile) => new RemoteDriver(name, profile as ProfileConfig & { cdpUrl: string }),
};
