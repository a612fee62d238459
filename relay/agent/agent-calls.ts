// What every agent call does around its work, in one place: find the tab's page the call names
// (its profile, tab, agent session and bound: one lookup for every operation), keep the whole
// call within the caller's bound (a crash or a lost browser named as such), and read what the page
// says of how an action went.

import type { Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { seconds, within } from '../time-limit';
import { browserGone, crashed, type AgentPage, type PageFinder } from './tabs/page-finder';
import type { Snapshots } from './snapshots/snapshots';
import { tabOfKey } from './tabs/tab-key';

/** How far past its `timeoutMs` a call may run before the outer bound answers for Playwright's own. */
const BOUND_GRACE_MS = 300;
/** How long an answer waits to read the page's messages: they are extra, the call is done. */
export const MESSAGES_MS = 2_000;

/** The page's title, or '' when the page does not answer in time (it is informational). */
export const titleOf = (page: Page, ms = 5_000): Promise<string> =>
  within(page.title(), Math.max(1, ms), () => new Error('no title')).catch(() => '');

/** How a call names its tab: the tab (none: the profile's last), the agent session, the call's bound. */
export interface TabCall {
  targetId?: string | undefined;
  session?: string | undefined;
  timeoutMs?: number | undefined;
}

/** The profile a found page belongs to. */
const profileOf = (found: AgentPage): string => tabOfKey(found.tab).profile;

export class AgentCalls {
  constructor(
    readonly pages: PageFinder,
    private readonly snapshots: Snapshots,
  ) {}

  /** The page a call acts on (`remember`: it becomes the profile's last tab, as an agent's call does). */
  page(profile: string, call: TabCall, remember = true): Promise<AgentPage> {
    return this.pages.find(profile, call.targetId, remember, call.session, call.timeoutMs);
  }

  /**
   * A whole agent call within the caller's bound (Playwright's own timeouts cover only part of
   * it: a ref check or an evaluation in a page whose script is stuck waits as long as the page).
   * Playwright's more precise timeout wins when it comes first; a crash is named as one.
   */
  async bounded<T>(found: AgentPage, what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    try {
      return await within(
        work(),
        timeoutMs + BOUND_GRACE_MS,
        () =>
          new ClawdError(
            'action_timeout',
            `${what}: timed out after ${seconds(timeoutMs)} waiting for the page to answer (is a script stuck in it?)`,
          ),
      );
    } catch (error) {
      if (found.state.crashed) throw crashed(found.targetId);
      if (this.pages.lost(found))
        throw browserGone(profileOf(found), found.targetId, found.driver.describeBrowser?.(found.endpoint));
      throw error;
    }
  }

  /** The page's status and alert messages and refused fields, as an answer's `messages` (none: no field). */
  async messages(page: Page, timeoutMs: number): Promise<{ messages?: string[] }> {
    const messages = await this.snapshots.messages(page, Math.min(MESSAGES_MS, timeoutMs));
    return messages.length > 0 ? { messages } : {};
  }
}
