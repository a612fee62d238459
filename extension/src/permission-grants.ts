// Permissions an agent grants on the person's own browser (Browser.grantPermissions through the
// relay), as chrome.contentSettings allows them: set to "allow" for the origins asked, and put
// back when the last attached tab is released or the agent resets them. Measured on Chromium
// 150 and 156: a content setting takes effect at once (no reload; navigator.permissions says
// granted), and `clear({})` removes only what this extension set, so the person's own choices
// come back as they were. What was granted is kept in the worker's state (worker-state.ts,
// storage.local): a worker or extension restart still knows what to undo.

import type { WorkerState } from './worker-state';

type ContentType = 'location' | 'notifications' | 'clipboard' | 'camera' | 'microphone';

/** CDP permission names (Playwright's, browser-use's) → the content setting that grants them. */
const CONTENT_TYPE: Record<string, ContentType> = {
  geolocation: 'location',
  notifications: 'notifications',
  'clipboard-read': 'clipboard',
  'clipboard-write': 'clipboard',
  clipboardReadWrite: 'clipboard',
  clipboardSanitizedWrite: 'clipboard',
  camera: 'camera',
  videoCapture: 'camera',
  microphone: 'microphone',
  audioCapture: 'microphone',
};

/** What the person's browser lets an extension grant and take back without a trace. */
export const GRANTABLE = Object.keys(CONTENT_TYPE);

/** A content settings pattern for an origin: `https://example.com:8443/*`. */
function patternOf(origin: string): string {
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`permissions can be granted to http(s) origins only, not ${origin}`);
  return `${url.protocol}//${url.host}/*`;
}

export class PermissionGrants {
  readonly ready: Promise<void>;
  // Content type → patterns set to allow; mirrored in storage.local.
  #granted = new Map<ContentType, Set<string>>();

  constructor(private readonly state: WorkerState) {
    this.ready = state.loaded.then(({ grantedPermissions }) => {
      for (const [type, patterns] of Object.entries(grantedPermissions))
        if (Object.values(CONTENT_TYPE).includes(type as ContentType))
          this.#granted.set(type as ContentType, new Set(patterns));
    });
  }

  /** Grants each permission to each origin, or refuses before changing anything, naming what cannot be granted and why. */
  async grant(origins: string[], permissions: string[]): Promise<void> {
    await this.ready;
    const refused = permissions.filter((p) => !(p in CONTENT_TYPE));
    if (refused.length > 0) {
      throw new Error(
        `${refused.join(', ')} cannot be granted on your own browser through clawd: Chrome lets an extension grant (and take back) only ${GRANTABLE.join(', ')}; anything else would change your settings for good. Use a managed clawd profile for it`,
      );
    }
    if (origins.length === 0)
      throw new Error('no origin to grant permissions to: give one, or attach a tab on that site first');
    const patterns = origins.map(patternOf);
    for (const type of new Set(permissions.map((p) => CONTENT_TYPE[p]!))) {
      const setting = chrome.contentSettings[type] as chrome.contentSettings.ContentSetting<string>;
      for (const primaryPattern of patterns) await setting.set({ primaryPattern, setting: 'allow' });
      this.#granted.set(type, new Set([...(this.#granted.get(type) ?? []), ...patterns]));
    }
    await this.#persist();
  }

  /** Everything this extension granted is taken back: the person's own settings apply again. */
  async reset(): Promise<void> {
    await this.ready;
    if (this.#granted.size === 0) return;
    for (const type of this.#granted.keys())
      await (chrome.contentSettings[type] as chrome.contentSettings.ContentSetting<string>).clear({});
    this.#granted.clear();
    await this.#persist();
  }

  #persist(): Promise<void> {
    return this.state.save(
      'grantedPermissions',
      Object.fromEntries([...this.#granted].map(([type, patterns]) => [type, [...patterns]])),
    );
  }
}
