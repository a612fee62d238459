// A remote profile: a CDP endpoint someone else runs (a browserless or Playwright server, or a
// tunnel). Attach only: clawd never launches or stops a remote browser.

import { CdpHttp, type CdpTarget, type CdpVersion } from '../browser/cdp-http';
import { ClawdError } from '../errors';
import type { ProfileConfig } from '../home/config-schema';
import type { PagePolicy, ProfileDriver, ProfileStatus } from './profile-driver';

export class RemoteDriver implements ProfileDriver {
  readonly driver = 'remote' as const;
  readonly policyEnforcement = 'interception' as const;
  readonly cdp: CdpHttp;
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
    this.cdp = new CdpHttp(profile.cdpUrl.replace(/^ws/, 'http'), {}, 5_000);
    this.playwright = { url: profile.cdpUrl };
  }

  readonly playwright: { url: string };

  /** Someone else's browser: no tab groups of the person's, a tab is a tab. */
  openTab(url: string): Promise<CdpTarget> {
    return this.cdp.open(url);
  }

  async status(enabled: boolean, confirmed?: CdpVersion): Promise<ProfileStatus> {
    const version = confirmed ?? (await this.cdp.isReady(2_000));
    return {
      enabled,
      profile: this.name,
      driver: 'remote',
      running: version !== undefined,
      cdpReady: version !== undefined,
      pid: null,
      cdpPort: null,
      cdpUrl: this.profile.cdpUrl,
      executablePath: null,
      browser: version?.Browser ?? null,
      headless: null,
      userDataDir: null,
      color: this.profile.color,
      attachedTabs: null,
      ...(version
        ? {}
        : {
            hint: `nothing answers CDP at ${this.profile.cdpUrl}: clawd only attaches to remote profiles, start that browser yourself`,
          }),
    };
  }

  async ensureReachable(): Promise<void> {
    if (!(await this.cdp.isReady(2_000)))
      throw new ClawdError(
        'not_running',
        `remote profile ${this.name}: nothing answers CDP at ${this.profile.cdpUrl}; start that browser (clawd only attaches to remote profiles)`,
      );
  }

  async start(): Promise<CdpVersion> {
    const version = await this.cdp.isReady();
    if (version) return version;
    throw new ClawdError(
      'attach_only',
      `remote profile ${this.name}: nothing answers CDP at ${this.profile.cdpUrl}, and clawd never launches a remote browser`,
    );
  }

  async stop(): Promise<boolean> {
    return false;
  }
}
