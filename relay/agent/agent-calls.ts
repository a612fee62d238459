// What every agent call does around its work, in one place: the one record of the call (its
// profile, tab, agent session, bound, the elements it names and the page the gate found — made
// once by the invoker, control/operation-handlers.ts), the page it acts on (found once: the
// gate's, else one lookup), the whole call within the caller's bound (a crash or a lost browser
// named as such), and what the page says of how an action went.

import type { Page } from 'playwright-core';
import { ClawdError } from '../errors';
import type { ElementRef } from '../operations/element-refs';
import type { LocatedElement } from '../../shared/element-locator';
import { seconds, within } from '../time-limit';
import { browserGone, crashed, type AgentPage, type PageFinder } from './tabs/page-finder';
import type { Snapshots } from './snapshots/snapshots';
import type { ActTarget } from './snapshots/snapshot-engine';
import { locatorTarget } from './actions/locator-target';
import { tabOfKey } from './tabs/tab-key';
import { refusedLoadsEnded } from './actions/refused-loads';

/** How far past its `timeoutMs` a call may run before the outer bound answers for Playwright's own. */
const BOUND_GRACE_MS = 300;
/** How long an answer waits to read the page's messages: they are extra, the call is done. */
export const MESSAGES_MS = 2_000;

/** The page's title, or '' when the page does not answer in time (it is informational). */
export const titleOf = (page: Page, ms = 5_000): Promise<string> =>
  within(page.title(), Math.max(1, ms), () => new Error('no title')).catch(() => '');

/**
 * One agent call, as every part of it reads it: the handler, the action log, the trace's label
 * and the person's question. Made once per call at the door's invoker; the gate adds the page it
 * found (and the whole id of the tab it checked), so nothing finds the page twice.
 */
/** Runs `work` (a new tab's load, within `leftMs`) on the tab `targetId` with its requests watched. */
export type WatchNew = <T>(targetId: string, work: (found: AgentPage, leftMs: number) => Promise<T>) => Promise<T>;

export interface AgentCall {
  readonly profile: string;
  /** Whether the caller named the profile (else it is the configured default). */
  readonly named: boolean;
  /** The tab (none: the profile's last), as the caller named it or as the gate resolved it. */
  readonly targetId?: string | undefined;
  readonly session?: string | undefined;
  /** What is left of the caller's bound once the gate let the call through. */
  readonly timeoutMs?: number | undefined;
  /** The elements the call names by ref (operations/element-refs.ts). */
  readonly refs: readonly ElementRef[];
  /** The page the gate found for the call (a call that changes a tab). */
  readonly found?: AgentPage | undefined;
  /**
   * For a call that opens a tab, when the person asks about what only the requests tell: runs
   * `work` (its load) on the new tab with its requests watched (tab-gate.ts `opened`).
   */
  readonly watchNew?: WatchNew | undefined;
  /**
   * How a script finds each element the call acted on (by ref), read by the action before it ran
   * (actions/locate-element.ts); the action log keeps them for the session export.
   */
  readonly located?: Map<string, LocatedElement>;
  /**
   * A recipe's step: its elements by ref, found by their locators instead of a snapshot's refs
   * (the recipe runner fills it; no agent can: it is no field of any input).
   */
  readonly recipeElements?: ReadonlyMap<string, LocatedElement>;
}

/** The profile a found page belongs to. */
const profileOf = (found: AgentPage): string => tabOfKey(found.tab).profile;

export class AgentCalls {
  constructor(
    readonly pages: PageFinder,
    private readonly snapshots: Snapshots,
  ) {}

  /**
   * The page a call acts on: the one the gate found while it is still there, else found now
   * (`remember`: it becomes the profile's last tab, as an agent's call does).
   */
  page(call: AgentCall, remember = true): Promise<AgentPage> {
    const { found } = call;
    if (found && !found.page.isClosed() && !this.pages.lost(found)) return Promise.resolve(found);
    return this.pages.find(call.profile, call.targetId, remember, call.session, call.timeoutMs);
  }

  /**
   * A whole agent call within the caller's bound (Playwright's own timeouts cover only part of
   * it: a ref check or an evaluation in a page whose script is stuck waits as long as the page).
   * Playwright's more precise timeout wins when it comes first; a crash is named as one.
   */
  async bounded<T>(found: AgentPage, what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    try {
      return await within(
        // A load the person refused may still be ending in its error page: the call waits for it.
        refusedLoadsEnded(found.page).then(work),
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

  /** The element a call's ref names: a recipe step's by its locator, else the snapshot's ref. */
  target(call: AgentCall, found: AgentPage, ref: string, leftMs: number): Promise<ActTarget> {
    const element = call.recipeElements?.get(ref);
    return element ? locatorTarget(found.page, element, leftMs) : this.snapshots.resolve(found.page, found.tab, ref);
  }

  /** The page's status and alert messages and refused fields, as an answer's `messages` (none: no field). */
  async messages(page: Page, timeoutMs: number): Promise<{ messages?: string[] }> {
    const messages = await this.snapshots.messages(page, Math.min(MESSAGES_MS, timeoutMs));
    return messages.length > 0 ? { messages } : {};
  }
}
