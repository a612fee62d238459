// The tabs of a profile with a browser per agent session (grid, pool): listed together over all
// its browsers, each focused or closed in the browser holding it, and a tab opened without a
// session in the profile's own. What the kinds differ in (how a browser is had, what "ready"
// means) stays with their drivers: this only walks their browsers.

import { ClawdError } from '../errors';
import { within } from '../time-limit';
import type { CdpTarget, CdpVersion, TabEndpoint } from '../browser/tab-endpoint';

/** One browser of an agent session: its tabs, and the ones known to be in it. */
export interface SessionBrowser {
  tabs: Pick<TabEndpoint, 'list' | 'open' | 'activate' | 'close'>;
  /**
   * Tabs known to be in it (opened through it, or found in it): a call naming one goes there at
   * once. A tab never moves between browsers, so a closed one still known here only leads to the
   * browser that says it has no such tab.
   */
  tabIds: Set<string>;
}

/** What the tabs need of the driver. */
export interface SessionBrowsers<B extends SessionBrowser> {
  readonly name: string;
  /** Where the browsers come from, for messages. */
  readonly base: string;
  /** The browsers agent sessions hold now. */
  held(): B[];
  /** The browser holding `targetId`, if one does. */
  holderOf(targetId: string): Promise<B | undefined>;
  openTab(url: string, session: undefined): Promise<CdpTarget>;
  version(): Promise<CdpVersion>;
  isReady(handshakeMs?: number): Promise<CdpVersion | undefined>;
  /** Tab `id` of `browser` was closed (a pool gives a browser back with its last tab). */
  tabClosed?(browser: B, id: string): Promise<void>;
  /** Before a tab is closed: true when the driver gave its browser back instead (it was the session's last tab). */
  givesBack?(browser: B, id: string): Promise<boolean>;
}

/**
 * Which of `browsers` holds tab `targetId`: one known to, else the one whose list has it (a tab
 * opened another way: by the page, or by a raw client), each asked briefly — a browser whose
 * machine died may leave its socket waiting.
 */
export async function holderAmong<B extends SessionBrowser>(browsers: B[], targetId: string): Promise<B | undefined> {
  const known = browsers.find((b) => b.tabIds.has(targetId));
  if (known) return known;
  const lists = await Promise.all(
    browsers.map((b) => within(b.tabs.list(), 3_000, () => new Error('no answer')).catch(() => [] as CdpTarget[])),
  );
  const holder = browsers.find((_, i) => lists[i]!.some((t) => t.id === targetId));
  holder?.tabIds.add(targetId);
  return holder;
}

function notHeld(id: string, profile: string): ClawdError {
  return new ClawdError('target_not_found', `no tab ${id} in the browsers of profile ${profile}`);
}

export class SessionTabs<B extends SessionBrowser> implements TabEndpoint {
  constructor(private readonly driver: SessionBrowsers<B>) {}

  get base(): string {
    return this.driver.base;
  }

  version(): Promise<CdpVersion> {
    return this.driver.version();
  }

  async list(): Promise<CdpTarget[]> {
    const browsers = this.driver.held();
    return (await Promise.all(browsers.map((b) => b.tabs.list().catch(() => [] as CdpTarget[])))).flat();
  }

  open(url: string): Promise<CdpTarget> {
    return this.driver.openTab(url, undefined);
  }

  async #holder(id: string): Promise<B> {
    const holder = await this.driver.holderOf(id);
    if (!holder) throw notHeld(id, this.driver.name);
    return holder;
  }

  async activate(id: string): Promise<void> {
    await (await this.#holder(id)).tabs.activate(id);
  }

  async close(id: string): Promise<void> {
    const holder = await this.#holder(id);
    if (await this.driver.givesBack?.(holder, id)) return void holder.tabIds.delete(id);
    await holder.tabs.close(id);
    holder.tabIds.delete(id);
    await this.driver.tabClosed?.(holder, id);
  }

  isReady(handshakeMs = 2_000): Promise<CdpVersion | undefined> {
    return this.driver.isReady(handshakeMs);
  }
}
