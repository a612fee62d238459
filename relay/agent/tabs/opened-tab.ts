// The load of a tab an agent opened while the person asks about what only the requests tell
// (tab-gate.ts `opened`): the tab opens blank and loads here, under the call's watch, so a
// redirect to another site or a form its page sends at once is asked about as after a navigation.

import { toAgentError } from '../agent-errors';
import type { AgentPage } from './page-finder';

/** How long the new tab's page may take to answer (an open names no bound of its own). */
const OPEN_LOAD_MS = 20_000;

/** Loads `url` in the new tab until its document commits; answers where the tab is then. */
export async function loadOpened(found: AgentPage, url: string): Promise<string> {
  try {
    await found.page.goto(url, { timeout: OPEN_LOAD_MS, waitUntil: 'commit' });
  } catch (error) {
    throw toAgentError(error, { what: `open ${url}`, timeoutMs: OPEN_LOAD_MS });
  }
  return found.page.url();
}
