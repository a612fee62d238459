// What the control API needs of a profile, whatever drives it: managed (we launch Chromium),
// extension (tabs of the user's own browser through our relay), remote (someone else's CDP
// endpoint, attach only). Tab operations go through each driver's CDP HTTP endpoint, so they are
// one code path for all three.

import type { CdpHttp, CdpVersion } from '../browser/cdp-http';
import type { Driver } from '../home/config-schema';

export interface ProfileStatus {
  enabled: boolean;
  profile: string;
  driver: Driver;
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
  /** Extension profile: is the extension connected, and which version. */
  extension?: { connected: boolean; version: string | null };
  /** What to do next, when something is missing. */
  hint?: string;
}

export interface ProfileDriver {
  readonly name: string;
  readonly driver: Driver;
  /** The endpoint tab operations use. */
  readonly cdp: CdpHttp;
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
