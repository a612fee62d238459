// A raw client's new tab on the person's browser (Target.createTarget, /json/new): in the
// background, in the client's tab group, and opened blank and loaded once watched while the
// person asks about what only requests tell (browser/client-new-tabs.ts).

import { openForClient, type TabOpener } from '../browser/client-new-tabs';
import type { ClientGate, GateClient } from './client-gate';
import { clientLoadRefused } from './client-loads';
import type { RelayPolicy } from './relay-policy';
import type { TabRecord } from './target-registry';

/** What the person's browser (the relay's switchboard) opens a client's tab with. */
export interface PersonsBrowser {
  readonly gate: ClientGate | undefined;
  readonly policy: RelayPolicy;
  createTab(url: string, active: boolean, session: string): Promise<TabRecord>;
  closeTab(tab: TabRecord): Promise<void>;
  tabCommand(tab: TabRecord, method: string, params: Record<string, unknown>): Promise<unknown>;
}

/**
 * A raw client's new tab in the person's browser: in the background (a tab in front would take
 * the keys the person types into theirs), in tab group `session` ('' for the plain `clawd` one).
 */
export async function openPersonsTab(
  browser: PersonsBrowser,
  client: GateClient,
  url: string,
  session: string,
): Promise<TabRecord> {
  const scheme = clientLoadRefused('opening a tab', url);
  if (scheme) throw scheme;
  browser.policy.check(url, 'opening a tab');
  const opener: TabOpener<TabRecord> = {
    create: (at) => browser.createTab(at, false, session),
    close: (tab) => browser.closeTab(tab),
    load: (tab, at) => browser.tabCommand(tab, 'Page.navigate', { url: at }),
  };
  return openForClient(opener, url, browser.gate?.opensWatched(client, url));
}
