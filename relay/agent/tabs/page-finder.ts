// Which Playwright page an agent request is about: the profile's driver must be up (a clear
// error when a managed profile is stopped or the extension is away), then the tab the request
// names (an id or unique prefix), else the tab the profile last acted on, else its first tab.
// Each page's tracker state is installed on the way, so console and dialogs are recorded from
// the first request on.

import type { Page } from 'playwright-core';
import { noteForCaller } from '../../call-notes';
import { ClawdError } from '../../errors';
import type { Logger } from '../../log';
import type { BrowserEndpoint, ProfileDriver } from '../../profiles/profile-driver';
import type { ProfileService } from '../../profiles/profile-service';
import { browserSocket } from '../../profiles/browser-socket';
import { PopupHolds } from '../actions/popup-holds';
import { PageTracker, type PageState } from './page-tracker';
import { PlaywrightConnections } from './pw-connections';
import { tabKey, type TabKey } from './tab-key';

/** The page a request acts on, and who it belongs to. */
export interface AgentPage {
  page: Page;
  targetId: string;
  driver: ProfileDriver;
  /** The tab as this profile sees it: where its refs, holds and hand-overs are kept. */
  tab: TabKey;
  /** Its console, errors and armed dialog. */
  state: PageState;
  /** The browser it is in (a profile may have one per agent session). */
  endpoint: string;
}

/**
 * What an agent hears when the profile's browser went away under it; `browser` names which one
 * when a profile has several (a Grid session and its node).
 */
export function browserGone(profile: string, targetId?: string, browser?: string): ClawdError {
  return new ClawdError(
    'browser_gone',
    `the browser of profile ${profile}${browser ? ` (${browser})` : ''} went away (${browser ? 'its node stopped, or it was' : 'stopped,'} killed or crashed)${targetId ? `, and tab ${targetId} with it` : ''}: the next call ${browser ? 'gets a new one' : 'starts it again'}${targetId ? '; open a tab (POST /tabs/open) or call without a tab id' : ''}`,
  );
}

/** What an agent hears about a tab whose page crashed (the tab itself stays, showing Chrome's "Aw, Snap!"). */
export function crashed(targetId: string): ClawdError {
  return new ClawdError(
    'target_crashed',
    `tab ${targetId} crashed (its page stopped working): close it (DELETE /tabs/${targetId}) and open a new tab (POST /tabs/open)`,
  );
}

/** How long a browser may take to say where its socket is (for the pop-up hold's connection). */
const SOCKET_READY_MS = 5_000;

export class PageFinder {
  readonly #connections: PlaywrightConnections;
  readonly #tracker: PageTracker;
  readonly #popups: PopupHolds;
  /** The tab each profile last acted on: the default when a request names none. */
  readonly #lastTarget = new Map<string, string>();

  constructor(
    private readonly profiles: ProfileService,
    log: Logger,
    /** Called for each page found, after its state is installed (the downloads watch). */
    private readonly onPage: (page: Page, driver: ProfileDriver, profile: string) => void = () => {},
  ) {
    this.#connections = new PlaywrightConnections(log);
    this.#tracker = new PageTracker(log);
    this.#popups = new PopupHolds(log);
  }

  /**
   * `remember`: the found tab becomes the default (not when a person merely watches it);
   * `session`: the agent session calling — on a profile with a browser per session (grid), the
   * call works in its own (made on first use, within `timeoutMs`: the call's bound), and its
   * default tab is its own.
   */
  async find(
    profile: string,
    targetId: string | undefined,
    remember = true,
    session?: string,
    timeoutMs?: number,
    again = false,
  ): Promise<AgentPage> {
    const driver = this.profiles.driver(profile);
    let endpoint = await driver.browserFor(session, targetId, timeoutMs);
    const defaultKey = driver.perSession ? `${profile}\n${session ?? ''}` : profile;
    // The browser went away since the last call: this call starts it again (a managed profile,
    // saying so), and a tab it names that is not in the new one went with the old one (the answer
    // names the profile, not "no such tab").
    const lost = this.#connections.takeLost(endpoint.url);
    // One of several browsers (a Grid's) went away: the session gets a new one.
    const gone = lost ? driver.describeBrowser?.(endpoint.url) : undefined;
    if (lost && driver.browserLost) {
      driver.browserLost(endpoint.url);
      // The tab it names went with that browser: said at once; a call naming none gets a new one.
      if (targetId !== undefined) throw browserGone(profile, targetId, gone);
      endpoint = await driver.browserFor(session, undefined, timeoutMs);
    }
    if (lost) noteForCaller(`the browser of profile ${profile} had gone away (stopped, killed or crashed)`);
    // Reachable (a stopped managed profile started) and held to the profile's origin policy
    // before the agent does anything in it.
    if (!this.#connections.isConnected(endpoint.url)) await this.profiles.ensureRunning(profile);
    try {
      await this.profiles.policies.guard(profile, endpoint.url, timeoutMs);
    } catch (error) {
      // The guard found no browser because it has just gone, before its connection heard so: once
      // it has, the call starts over (the browser is started again, and the caller told).
      if (!again && (error as ClawdError).code === 'policy_not_enforced')
        if (await this.#connections.goneWithin(endpoint.url, 1_000))
          return this.find(profile, targetId, remember, session, timeoutMs, true);
      throw error;
    }
    const browser = await this.#connections.browser(endpoint);
    let found: { page: Page; targetId: string };
    try {
      found = await this.#tracker.find(browser, targetId, this.#lastTarget.get(defaultKey), driver.pages.noTabs);
    } catch (error) {
      const notFound = (error as ClawdError).code === 'target_not_found';
      if (lost && targetId !== undefined && notFound) throw browserGone(profile, targetId, gone);
      // The browser went while its tabs were looked for (its connection closed, so no tab was
      // seen): the call starts over once, as a call after it would (a Grid's browser anew).
      if (!again && notFound && this.#connections.lost(endpoint.url))
        return this.find(profile, targetId, remember, session, timeoutMs, true);
      throw error;
    }
    const state = this.#tracker.state(found.page, driver.pages.unarmedDialogs);
    if (state.crashed) throw crashed(found.targetId);
    // The first time: its requests are recorded before the agent's call loads anything (bounded).
    await state.network.started;
    this.onPage(found.page, driver, profile);
    if (remember) this.#lastTarget.set(defaultKey, found.targetId);
    return { ...found, driver, tab: tabKey(profile, found.targetId), state, endpoint: endpoint.url };
  }

  /** Whether the page's browser went away under the connection (a call in flight then answers browser_gone). */
  lost(found: AgentPage): boolean {
    return this.#connections.lost(found.endpoint);
  }

  /** Connects to a browser made ahead of its first call (a pool's warm one): that call finds it connected. */
  prepare(endpoint: BrowserEndpoint): Promise<void> {
    // Failing, the call that needs it connects again, and says why.
    return this.#connections.browser(endpoint).then(
      () => {},
      () => {},
    );
  }

  /** From now on the pop-ups the found page's browser opens are held until their opener's watch says (popup-holds.ts). */
  holdPopups(found: AgentPage): Promise<void> {
    // On the person's own tabs chrome.debugger cannot pause a new tab before it loads: the
    // extension holds its loads instead, for the relay's connection that says it is the pop-up
    // hold (relay/cdp/held-tabs.ts), which is shown a held pop-up paused. An extension that does
    // not hold them shows a pop-up only once attached, its first request gone: adopted late.
    const late = found.driver.policyEnforcement !== 'interception';
    const socket = async () => {
      const endpoint = await browserSocket(found.driver, found.endpoint, SOCKET_READY_MS);
      if (!late) return endpoint;
      const said = new URL(endpoint.url);
      said.searchParams.set('clawd', 'popups');
      return { ...endpoint, url: said.toString() };
    };
    return this.#popups.hold(found.endpoint, socket, late);
  }

  /** The tab the profile last acted on, if any. */
  lastTarget(profile: string): string | undefined {
    return this.#lastTarget.get(profile);
  }

  close(): Promise<void> {
    this.#popups.close();
    return this.#connections.close();
  }
}
