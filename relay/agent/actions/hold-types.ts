// What a hold on a tab's document requests (fetch-hold.ts) and its watches (action-watch.ts) say
// to each other: where a paused request is, what a watch is told of the tab and its new tabs,
// and the session a hold works on. Apart from the hold, so its file stays the hold's workings.

import type { Page } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import type { PopupSession } from './popup-page';

export type PausedRequest = Protocol.Fetch.RequestPausedEvent;

/** Where a paused request is: in the main frame of its page (a load of it is a new page), in a pop-up of the watched tab. */
export interface Place {
  mainFrame: boolean;
  popup: boolean;
}

/** The CDP session a hold works on (Playwright's on the tab, or the pop-up hold's own). */
export interface HoldSession extends PopupSession {
  detach(): Promise<void>;
}

/** A watch in the hold: it sees every paused request of the tab, in order. */
export interface Judge {
  /** Its verdict: undefined lets the request go; a promise lets it go when it resolves, fails it when it rejects. */
  judge(paused: PausedRequest, place: Place): Promise<void> | undefined;
  /** The request failed on another watch's refusal (`error`): it will not be answered. */
  failed(paused: PausedRequest, error: Error): void;
  /** A frame of the tab asked to load a page in itself (a link, a form, a script): its request comes next. */
  requested(frameId: string): void;
  /**
   * A frame moved within its document (its ask answered) or stopped loading (`loads`: nothing
   * more comes of the loads it had in flight either).
   */
  stopped(frameId: string, loads: boolean): void;
  /** The tab is opening a new tab or window (its hold comes next: `adopted`). */
  opening(): void;
  /**
   * A new tab the tab opened is held for it now too (its main frame `mainFrame` loads next, unless
   * undefined: it is loaded; `madeAgain`: the load the extension held is made again, and what its
   * page showed meanwhile ends no wait). False: the watch has ended and does not hold it.
   */
  adopted(member: HoldMember, mainFrame: string | undefined, madeAgain: boolean): boolean | void;
  /**
   * A held new tab's main frame shows the relay's /blocked page (a form sent into it, which is
   * not sent again; a site the policy blocks): the load made again that was waited for never comes.
   */
  blocked?(frameId: string): void;
}

/** A watch's place in the hold. */
export interface HoldMember {
  /**
   * Resolves once the page has run what was due at once when asked (its zero-delay timers, a
   * form's submission task), within `ms`: a load those ask for has been told by then.
   */
  caughtUp(ms: number): Promise<void>;
  /** The watch is done: interception ends with the last one. */
  leave(): Promise<void>;
  /** It no longer holds for the watch: its page went, or a watch of the pop-up's own took it over. */
  readonly gone: boolean;
}

/** The tab a watch holds: its page, its target, and the browser it is in (its endpoint). */
export interface HeldTab {
  page: Page;
  targetId: string;
  browser: string;
}
