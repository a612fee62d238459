// The load of a tab an agent opened while the person asks about what only the requests tell
// (tab-gate.ts `opened`): the tab opens blank and loads here, under the call's watch, so a
// redirect to another site or a form its page sends at once is asked about as after a navigation.

import type { WatchNew } from '../agent-calls';
import { toAgentError } from '../agent-errors';
import type { AgentPage } from './page-finder';

/** The least a load is given, whatever is left of the call's bound. */
const LEAST_MS = 1_000;

/**
 * Opens a blank tab (`open`) and loads `url` in it under the call's watch; answers the tab where
 * it is then. A load that fails (the person's Deny, the bound) closes the tab: the call's answer
 * is the failure, and no tab of it is left behind.
 */
export async function openWatched<T extends { targetId: string; url: string }>(
  watchNew: WatchNew,
  url: string,
  tab: { open(): Promise<T>; close(targetId: string): Promise<unknown> },
): Promise<T> {
  const blank = await tab.open();
  try {
    return { ...blank, url: await watchNew(blank.targetId, (found, leftMs) => loadOpened(found, url, leftMs)) };
  } catch (error) {
    await tab.close(blank.targetId).catch(() => {});
    throw error;
  }
}

/** Loads `url` in the new tab until its document commits, within what is left of the call's bound. */
async function loadOpened(found: AgentPage, url: string, leftMs: number): Promise<string> {
  const timeout = Math.max(LEAST_MS, leftMs);
  try {
    await found.page.goto(url, { timeout, waitUntil: 'commit' });
  } catch (error) {
    throw toAgentError(error, { what: `open ${url}`, timeoutMs: timeout });
  }
  return found.page.url();
}
