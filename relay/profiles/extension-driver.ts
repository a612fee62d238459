// The extension profile: the tabs of the user's own browser, handed over with the toolbar button
// and reached through this process's relay. There is nothing to launch or stop: the browser is
// the user's. Status says whether the extension is connected and what to do if not.

import { CdpHttp } from '../browser/cdp-http';
import type { RelayServer } from '../cdp/relay-server';
import type { ProfileConfig } from '../home/config-schema';
import type { ProfileDriver, ProfileStatus } from './profile-driver';

export class ExtensionDriver implements ProfileDriver {
  readonly driver = 'extension' as const;
  readonly cdp: CdpHttp;

  constructor(
    readonly name: string,
    private readonly profile: ProfileConfig,
    private readonly relay: RelayServer,
    token: string,
  ) {
    this.cdp = new CdpHttp(relay.url, { Authorization: `Bearer ${token}` }, 10_000);
    this.playwright = { url: relay.url, headers: { Authorization: `Bearer ${token}` } };
  }

  readonly playwright: { url: string; headers: Record<string, string> };

  async status(enabled: boolean): Promise<ProfileStatus> {
    const switchboard = this.relay.switchboard;
    const connected = switchboard.extensionConnected;
    const tabs = switchboard.tabs().length;
    return {
      enabled,
      profile: this.name,
      driver: 'extension',
      running: connected,
      cdpReady: connected,
      pid: null,
      cdpPort: this.relay.port,
      cdpUrl: this.relay.url,
      executablePath: null,
      browser: switchboard.browserInfo()?.product ?? null,
      headless: null,
      userDataDir: null,
      color: this.profile.color,
      attachedTabs: tabs,
      extension: { connected, version: switchboard.extensionVersion ?? null },
      ...(!connected
        ? { hint: `the clawd extension is not connected: load dist/extension in Chrome and set its relay port (${this.relay.port}) and token in its options` }
        : tabs === 0
          ? { hint: 'no tab is attached: click the clawd toolbar button on a tab to hand it to the agent' }
          : {}),
    };
  }

  /** The relay runs in this process: there is nothing to start. */
  async start(): Promise<undefined> {
    return undefined;
  }

  /** The user's browser is theirs: clawd never stops it. */
  async stop(): Promise<boolean> {
    return false;
  }
}
