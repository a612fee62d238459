// The `launched` kind's driver (launched-kind.ts): one Chromium it starts itself on first use,
// reached over its /json endpoints like a remote profile's, held to the origin policy by the
// relay's interception like every browser that is not the person's. Only what ProfileDriver asks.

import { CdpHttp } from '../../../relay/browser/cdp-http';
import type { CdpTarget, CdpVersion } from '../../../relay/browser/tab-endpoint';
import { ClawdError } from '../../../relay/errors';
import type { ProfileConfig } from '../../../relay/home/config-schema';
import type { PagePolicy, ProfileDriver, ProfileStatus } from '../../../relay/profiles/profile-driver';
import { TestBrowser } from '../chromium';

export class LaunchedDriver implements ProfileDriver {
  readonly driver = 'launched';
  readonly policyEnforcement = 'interception' as const;
  readonly startsOnUse = true;
  readonly personsBrowser = false;
  readonly perSession = false;
  readonly pages: PagePolicy = {
    unarmedDialogs: 'dismiss',
    captureFront: 'always',
    cancelsDownloads: true,
    evaluateRefusal: () => undefined,
    noTabs: 'this profile has no open tab: open one first (POST /tabs/open)',
  };
  #browser: TestBrowser | undefined;
  #starting: Promise<TestBrowser> | undefined;
  #endpoint: CdpHttp | undefined;

  constructor(
    readonly name: string,
    private readonly profile: ProfileConfig & { args: string[] },
  ) {}

  /** Its /json endpoint; before the browser is up, one that answers nothing (isReady: undefined). */
  get cdp(): CdpHttp {
    return this.#endpoint ?? new CdpHttp('http://127.0.0.1:1', {}, 500);
  }

  get playwright(): { url: string } {
    return { url: this.cdp.base };
  }

  browserFor(): Promise<{ url: string }> {
    return Promise.resolve(this.playwright);
  }

  openTab(url: string): Promise<CdpTarget> {
    return this.cdp.open(url);
  }

  async ensureReachable(): Promise<void> {
    if (!this.#browser) throw new ClawdError('not_running', `profile ${this.name} is not running: start it`);
  }

  async start(): Promise<CdpVersion> {
    this.#starting ??= TestBrowser.launch({ extension: false, args: this.profile.args });
    const browser = await this.#starting;
    this.#browser = browser;
    this.#endpoint = new CdpHttp(`http://${new URL(browser.wsEndpoint).host}`, {}, 5_000);
    const version = await this.#endpoint.isReady();
    if (!version) throw new ClawdError('not_running', `profile ${this.name}: the browser started but answers no CDP`);
    return version;
  }

  async stop(): Promise<boolean> {
    // A browser still starting is waited for, then stopped: none is left behind.
    await this.#starting?.catch(() => undefined);
    const browser = this.#browser ?? (await this.#starting?.catch(() => undefined));
    this.#browser = undefined;
    this.#starting = undefined;
    this.#endpoint = undefined;
    if (!browser) return false;
    await browser.close();
    return true;
  }

  async status(enabled: boolean, confirmed?: CdpVersion): Promise<ProfileStatus> {
    const version = confirmed ?? (this.#browser ? await this.cdp.isReady(2_000) : undefined);
    return {
      enabled,
      profile: this.name,
      driver: this.driver,
      role: "the tests' own browser",
      state: version ? 'running, CDP ready' : 'not running',
      clawdStops: true,
      running: version !== undefined,
      cdpReady: version !== undefined,
      pid: null,
      cdpPort: null,
      cdpUrl: this.cdp.base,
      executablePath: null,
      browser: version?.Browser ?? null,
      headless: true,
      userDataDir: this.#browser?.userDataDir ?? null,
      color: this.profile.color,
      attachedTabs: null,
      // What this kind says of itself, printed by `clawd status` as it is.
      details: [`started by the tests' own launcher (${this.profile.args.length} extra flag(s))`],
    };
  }
}
