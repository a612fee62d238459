// What the control API needs of a profile, whatever drives it: managed (we launch Chromium),
// extension (tabs of the user's own browser through our relay), remote (someone else's CDP
// endpoint, attach only). Tab operations go through each driver's tab endpoint (`/json/*`, or
// CDP's Target domain on a bare WebSocket), so they are one code path for all. What differs by
// whose browser it is (may evaluate run, what happens to an unasked dialog, may a tab be brought
// to the front, is it started on first use) is a member of the driver, never a branch on its
// kind elsewhere; the kinds themselves are plug-ins (driver-kinds.ts).

import type { CdpTarget, CdpVersion, TabEndpoint } from '../browser/tab-endpoint';
import type { ClawdError } from '../errors';
import type { Driver } from '../home/config-schema';

export interface ProfileStatus {
  enabled: boolean;
  profile: string;
  driver: Driver;
  /** Whose browser it is, in a few words ("clawd's own browser", "the person's own browser: …"). */
  role: string;
  /** Its state in a few words ("running, CDP ready", "connected, 2 tab(s) attached"). */
  state: string;
  /** clawd starts and stops this browser (else it only attaches: the person's, someone else's). */
  clawdStops: boolean;
  running: boolean;
  cdpReady: boolean;
  pid: number | null;
  cdpPort: number | null;
  cdpUrl: string;
  executablePath: string | null;
  /** e.g. "Chromium 156" or the product the endpoint reports. */
  browser: string | null;
  headless: boolean | null;
  /** Why headless, when we chose it: "config" or "no display". */
  headlessReason?: string;
  noSandbox?: boolean;
  noSandboxReason?: string;
  userDataDir: string | null;
  color: string;
  /** Extension profile: tabs the user has handed over. */
  attachedTabs: number | null;
  /** A profile whose browsers are per agent session (grid): each one, and where it runs. */
  browsers?: Array<{ session: string; gridSession: string; node: string | null }>;
  /** Extension profile: is the extension connected, and which version. */
  extension?: { connected: boolean; version: string | null };
  /**
   * What the profile's kind says of it beyond the fields every kind has, a line each (a Grid's
   * browser per agent session): `clawd status` prints them as they are, so a new kind needs no
   * change to the status text.
   */
  details?: string[];
  /** What to do next, when something is missing. */
  hint?: string;
}

/** How the agent layer treats this driver's pages. */
export interface PagePolicy {
  /** Dialogs no hook was armed for: dismissed (our own headless browser would hang on them) or left to the person. */
  readonly unarmedDialogs: 'dismiss' | 'leave';
  /** Bring a tab to the front for a screenshot: always (our own browser), or only when its capture stalls (someone's own). */
  readonly captureFront: 'always' | 'when-stalled';
  /**
   * Is a download past the size limit cancelled in the browser (not in the person's own: there
   * only our copy is dropped)? One the person refused is cancelled on every driver.
   */
  readonly cancelsDownloads: boolean;
  /** Why evaluate is refused on this profile, when it is. */
  evaluateRefusal(): ClawdError | undefined;
  /** What to do when the agent finds no tab: open one (our own browser), or ask the person for one. */
  readonly noTabs: string;
}

/** A browser's CDP endpoint as Playwright connects to it. */
export interface BrowserEndpoint {
  url: string;
  headers?: Record<string, string>;
  /**
   * A browser that may vanish without its socket closing (a Grid's: its proxy keeps the socket
   * open when a node dies): the connection asks it every few seconds and drops it when it is silent.
   */
  watch?: true;
  /**
   * Asked when a watched browser is silent: whether what runs it is still there (a Grid node's
   * port still taking connections). True keeps it — a loaded machine is slow, not gone.
   */
  stillThere?: () => Promise<boolean>;
}

export interface ProfileDriver {
  readonly name: string;
  readonly driver: Driver;
  readonly pages: PagePolicy;
  /**
   * Before connecting to the browser: resolves when it can be reached, else a clear error saying
   * what to do (start a managed profile, load the extension, start the remote browser).
   */
  ensureReachable(): Promise<void>;
  /** The folder under the home that is this profile's own, removed with it (managed profiles). */
  readonly ownFolder?: string;
  /** An agent's call starts it when it is not running (and browser.autoStart is on): clawd's own browser. */
  readonly startsOnUse: boolean;
  /** The person's own browser, reached through this server's relay (their tabs, their say). */
  readonly personsBrowser: boolean;
  /**
   * The browser a call works in: a one-browser driver's own (`playwright`); with a browser per
   * agent session (grid), the one holding `targetId`, else the session's own, made on first use
   * within `timeoutMs`.
   */
  browserFor(session: string | undefined, targetId?: string, timeoutMs?: number): Promise<BrowserEndpoint>;
  /**
   * A browser per agent session (grid): a session's default tab is its own, and a tab it opens is
   * opened in its browser, guarded first.
   */
  readonly perSession: boolean;
  /**
   * The browser's socket when clawd serves it itself (a managed browser over its pipe, running):
   * known without asking the endpoint. Absent or undefined: ask `cdp` (browser-socket.ts).
   */
  ownSocket?(): BrowserEndpoint | undefined;
  /** The browsers the origin policy guards, when there are several (else the endpoint's own). */
  guardedBrowsers?(): BrowserEndpoint[];
  /** Which of its browsers is at `url`, in words for an error ("Grid session 8e98… on node http://…"). */
  describeBrowser?(url: string): string | undefined;
  /** The browser at `url` went away (its node died): forget it, so the session's next call gets a new one. */
  browserLost?(url: string): void;
  /** Stops stray processes of clawd's own browser (`clawd reset`); absent where nothing is clawd's. */
  reset?(): Promise<{ stopped: number[]; portFree: boolean; note?: string }>;
  /**
   * Who holds the browser to the origin policy: the relay, intercepting every target's requests
   * over CDP (managed and remote browsers), or the extension, through Chrome's own rules (the
   * person's tabs).
   */
  readonly policyEnforcement: 'interception' | 'extension';
  /** The endpoint tab operations use. */
  readonly cdp: TabEndpoint;
  /** Opens a tab; in a person's browser it joins the clawd tab group of `session` (or plain `clawd`). */
  openTab(url: string, session: string | undefined): Promise<CdpTarget>;
  /** Where Playwright connects (connectOverCDP), with any headers it needs. */
  readonly playwright: { url: string; headers?: Record<string, string> };
  /** `confirmed`: what a `start` just now got from the endpoint, so status need not ask again. */
  status(enabled: boolean, confirmed?: CdpVersion): Promise<ProfileStatus>;
  /**
   * Makes the browser available; `progress` receives steps worth showing on a long wait.
   * Resolves with the endpoint's version when it checked it on the way.
   */
  start(progress?: (message: string) => void): Promise<CdpVersion | undefined>;
  /** Stops what we started; false when there was nothing of ours to stop. */
  stop(): Promise<boolean>;
}
