// The extension profile: the tabs of the user's own browser, handed over with the toolbar button
// and reached through this process's relay. There is nothing to launch or stop: the browser is
// the user's. Status says whether the extension is connected and what to do if not.

import { CdpHttp, type CdpTarget } from '../browser/cdp-http';
import type { RelayServer } from '../cdp/relay-server';
import { ClawdError } from '../errors';
import { DEFAULT_EXTENSION_ASK } from '../../shared/ask-kinds';
import { parseCdpUrl, type BrowserConfig, type ProfileConfig } from '../home/config-schema';
import type { DriverKind } from './driver-kinds';
import type { BrowserEndpoint, PagePolicy, ProfileDriver, ProfileStatus } from './profile-driver';

export class ExtensionDriver implements ProfileDriver {
  readonly driver = 'extension' as const;
  readonly policyEnforcement = 'extension' as const;
  readonly startsOnUse = false;
  readonly personsBrowser = true;
  readonly perSession = false;
  readonly cdp: CdpHttp;
  // The person's own, logged-in browser: their dialogs stay theirs, their window is not rearranged
  // unless a capture stalls, their downloads are not cancelled (but for one they refused), and evaluate needs their say-so.
  readonly pages: PagePolicy = {
    unarmedDialogs: 'leave',
    captureFront: 'when-stalled',
    cancelsDownloads: false,
    noTabs:
      'no tab of this browser is handed to the agent: ask the person to click the clawd toolbar button on the tab to use (its badge then reads ON), then try again',
    evaluateRefusal: () =>
      this.settings.evaluateEnabled
        ? undefined
        : new ClawdError(
            'evaluate_disabled',
            // Said to the agent: what it can do instead, not how to lift the person's gate.
            `evaluate is off for the ${this.name} profile (the person's own, logged-in browser; only the person can allow it): use snapshot, find, content or the actions instead`,
          ),
  };

  constructor(
    readonly name: string,
    private readonly profile: ProfileConfig,
    private readonly relay: RelayServer,
    private readonly settings: BrowserConfig,
  ) {
    // The token as it is when each request or connection is made (it may be rotated while the server runs).
    const authorization = {
      get Authorization() {
        return `Bearer ${relay.token.value}`;
      },
    };
    this.cdp = new CdpHttp(relay.url, authorization, 10_000);
    this.playwright = {
      url: relay.url,
      headers: {
        get Authorization() {
          return authorization.Authorization;
        },
        'X-Clawd-Agent': relay.agentKey,
      },
    };
  }

  readonly playwright: { url: string; headers: Record<string, string> };

  /** One browser: every call works in it. */
  browserFor(): Promise<BrowserEndpoint> {
    return Promise.resolve(this.playwright);
  }

  /**
   * In the person's browser, a tab an agent opens joins its session's clawd tab group (the
   * extension groups it) in the background: the tab the person is in keeps the keyboard.
   */
  async openTab(url: string, session: string | undefined): Promise<CdpTarget> {
    const tab = await this.relay.switchboard.createTab(url, false, session ?? '');
    return { id: tab.targetId, type: 'page', title: tab.info.title, url: tab.info.url };
  }

  async status(enabled: boolean): Promise<ProfileStatus> {
    const switchboard = this.relay.switchboard;
    const connected = switchboard.extensionConnected;
    const tabs = switchboard.tabs().length;
    return {
      enabled,
      profile: this.name,
      driver: 'extension',
      role: `the person's own browser: only the tabs they handed over${tabs ? `, ${tabs} now` : ''}; name it to use them`,
      state: connected ? `connected, ${tabs} tab(s) attached` : 'extension not connected',
      clawdStops: false,
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
        ? {
            hint: `the clawd extension is not connected: load dist/extension in Chrome and set its relay port (${this.relay.port}) and token in its options`,
          }
        : tabs === 0
          ? { hint: 'no tab is attached: click the clawd toolbar button on a tab to hand it to the agent' }
          : {}),
    };
  }

  async ensureReachable(): Promise<void> {
    const status = await this.status(true);
    if (!status.running)
      throw new ClawdError(
        'extension_not_connected',
        status.hint ?? 'the clawd extension is not connected to the relay',
      );
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

/** The person's own browser, through this server's relay: its URL is the relay's. */
export const extensionKind: DriverKind = {
  kind: 'extension',
  defaultAsk: DEFAULT_EXTENSION_ASK,
  parseOwnKeys: (entry, key, fail) => ({ cdpUrl: parseCdpUrl(`${key}.cdpUrl`, entry.cdpUrl, fail) }),
  async newProfile(input, _config, relayUrl) {
    return { cdpUrl: input.cdpUrl === undefined ? relayUrl : checkedCdpUrl(input.cdpUrl) };
  },
  create: (name, profile, { relay, settings }) => new ExtensionDriver(name, profile, relay, settings),
};

/** A cdpUrl given to create-profile: an http(s) or ws(s) URL, else invalid_profile. */
export function checkedCdpUrl(url: unknown): string {
  if (typeof url !== 'string' || !/^(https?|wss?):\/\/[^/]+/.test(url))
    throw new ClawdError('invalid_profile', `cdpUrl must be an http(s) or ws(s) URL, got ${JSON.stringify(url)}`);
  return url;
}
