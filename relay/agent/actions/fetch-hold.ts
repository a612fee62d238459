// One hold on a tab's document requests, shared by every watch on the tab (action-watch.ts): a
// request goes once every watch lets it, fails when one refuses; a new tab the tab opens is held
// too, adopted by its watches (popup-holds.ts says how it is caught before it runs).
//
// Through the relay a tab has one debugger session, so two watches' interception is one: each is
// shown every paused request, and the first to answer would let go one the other asks about. So
// a tab's watches share one CDP session and one Fetch.enable, and interception ends with the last
// watch (a new one waits for that end, which would otherwise end it too). The same session tells
// the watches when a frame asks to load a page and when it stops loading, so a watch waits for
// what an action started without a fixed grace.
// Kept whole (under the 400-line cap): a tab's hold, the holds of the new tabs it opens and the
// table that finds one from the other are one piece; split, each would reach into the others'.

import type { Page } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { within } from '../../time-limit';
import type { HeldTab, HoldMember, HoldSession, Judge, PausedRequest } from './hold-types';
import { PopupPage, showsBlockedPage } from './popup-page';
import { loadRefused } from './refused-loads';

export type { HeldTab, HoldMember, HoldSession, Judge, PausedRequest, Place } from './hold-types';

/** How long setting the hold up may take. */
const SETUP_MS = 5_000;
/**
 * How long a new tab the page asked for may take to show; how long its tab's catch-up may take
 * (a few milliseconds but on a stuck page, or one reached through a loaded extension worker:
 * docs/architecture.md says why not 250 ms).
 */
const NEW_TAB_MS = 2_000;
const CATCH_UP_MS = 1_000;
/** How many asks for a new tab a tab keeps (a page asking for many is not kept). */
const ASKED_KEPT = 8;

// By target id, across browsers (ids are unique): a pop-up's hold is found by its opener's, and
// by a watch on the pop-up later. An entry goes with its last watch or its page.
const holds = new Map<string, FetchHold>();
/** Told when a browser has no hold left (popup-holds.ts ends its connection there a while later). */
const idle = new Set<(browser: string) => void>();
/** Held tabs whose page went while watched, and when: a new tab one opened as it went is no one else's. */
const gone = new Map<string, number>();
const GONE_KEPT_MS = 5_000;
/** How a refused request fails: not BlockedByClient, which the extension reads as its own hold's (new-tabs.ts). */
export const REFUSED = 'AccessDenied';

export class FetchHold {
  readonly #judges = new Set<Judge>();
  /** A pop-up's: the opener's watches that hold it, until a watch of its own joins. */
  readonly #adopters = new Set<Judge>();
  /** When the tab asked for a new tab with no opener link (a Ctrl or middle click): its page comes unnamed. */
  readonly #asked: number[] = [];
  readonly #ready: Promise<string>;
  #session: HoldSession | undefined;
  #closing: Promise<void> | undefined;
  #gone = false;
  /**
   * A tab Chrome opened on its own (a Ctrl or middle click, a script's Ctrl-click): its first
   * load went before its own interception could, so it is judged at the browser (`judgeFirst`),
   * that load's network id kept here, and not judged twice.
   */
  #early = false;
  #firstLoad: string | undefined;
  /** A pop-up's page (a tab's is its Playwright page). */
  #popupPage: PopupPage | undefined;

  private constructor(
    private readonly targetId: string,
    private readonly browser: string,
    session: () => Promise<HoldSession>,
    /** A pop-up paused before it runs: nothing its page answers only once it runs is waited for. */
    private readonly paused: boolean,
    /** The tab's page (a pop-up's hold has none): a refusal in its main frame is waited out by its next call. */
    private readonly page?: Page,
  ) {
    this.#ready = this.#setUp(session);
  }

  /**
   * Joins the tab's hold (set up by the first watch); rejects when the tab cannot be held. A
   * pop-up's own watch takes it over from the opener's watches that held it.
   */
  static async join(tab: HeldTab, judge: Judge): Promise<HoldMember> {
    for (;;) {
      let hold = holds.get(tab.targetId);
      // The last watch is leaving: its Fetch.disable would end a new interception too.
      const closing = hold ? hold.#closing : undefined;
      if (closing) {
        await closing;
        continue;
      }
      if (!hold) {
        hold = new FetchHold(tab.targetId, tab.browser, () => playwrightSession(tab.page), false, tab.page);
        holds.set(tab.targetId, hold);
      }
      const joined = hold;
      joined.#judges.add(judge);
      try {
        await joined.#ready;
      } catch (error) {
        joined.#judges.delete(judge);
        FetchHold.#forget(joined);
        throw error;
      }
      // One judge of each request: the person is not asked twice, as the tab's and as the opener's.
      for (const adopter of joined.#adopters) if (adopter !== judge) joined.#judges.delete(adopter);
      joined.#adopters.clear();
      return joined.#member(judge);
    }
  }

  /**
   * A new page `targetId` opened by `openerId`, paused before it runs: when the opener is held,
   * the opener's watches hold it too, on `session` (true once its interception is on; false: not
   * a new tab of a held tab). Rejects when it cannot be held; the session is then still attached,
   * the page still paused.
   */
  static async adopt(
    openerId: string,
    targetId: string,
    session: HoldSession,
    /**
     * `paused` before it runs; `early`: Chrome opened it on its own, its first load held at the
     * browser; `held`: the extension holds its loads (relay/cdp/held-tabs.ts), the first one made
     * again once it is let run; `late`: it runs, loaded.
     */
    how: 'paused' | 'early' | 'held' | 'late' = 'paused',
  ): Promise<boolean> {
    const opener = holds.get(openerId);
    if (!opener || opener.#closing || opener.#judges.size === 0 || holds.has(targetId)) return false;
    const hold = new FetchHold(targetId, opener.browser, async () => session, true);
    hold.#early = how === 'early';
    holds.set(targetId, hold);
    const judges = [...opener.#judges];
    for (const judge of judges) {
      hold.#judges.add(judge);
      hold.#adopters.add(judge);
    }
    try {
      const mainFrame = await hold.#ready;
      // Held by the extension, it runs already: shown blank, it may be on the relay's /blocked
      // page by now (a form written into a new window and sent), with no load made again to come.
      const loaded = how === 'late' || (how === 'held' && (await showsBlockedPage(session)));
      // A watch that ended meanwhile (its call answered, its page closed) declines it, and is
      // taken out here: left through the hold, the last one would detach the session, and a
      // pop-up still paused would run unjudged. With none left it is closed, still paused.
      for (const judge of judges) {
        const member = hold.#member(judge);
        if (judge.adopted(member, loaded ? undefined : mainFrame, how === 'held' && !loaded) === false) {
          hold.#judges.delete(judge);
          hold.#adopters.delete(judge);
        }
      }
      if (hold.#judges.size === 0) throw new Error('the watch that opened it ended');
    } catch (error) {
      FetchHold.#forget(hold);
      throw error;
    }
    return true;
  }

  /**
   * Which held tab of `browser` a new page with no opener is (a Ctrl, Shift or middle click on a
   * link or a form's button opens one so, measured on 156): the one that asked for a new tab
   * first and has not had it, once every held tab there has caught up (the ask comes from its
   * page, the new page from the browser). Undefined at once while none of the browser's tabs is held.
   */
  static async expected(browser: string): Promise<string | undefined> {
    const held = [...holds.values()].filter(
      (h) => h.browser === browser && !h.#closing && h.#judges.size > 0 && h.#session !== undefined,
    );
    if (held.length === 0) return undefined;
    await Promise.all(held.map((hold) => hold.#roundTrip(CATCH_UP_MS)));
    const now = Date.now();
    let first: FetchHold | undefined;
    for (const hold of held) {
      while (hold.#asked.length > 0 && now - hold.#asked[0]! > NEW_TAB_MS) hold.#asked.shift();
      if (hold.#asked.length > 0 && (!first || hold.#asked[0]! < first.#asked[0]!)) first = hold;
    }
    if (!first) return undefined;
    first.#asked.shift();
    return first.targetId;
  }

  /**
   * The first load of a tab Chrome opened on its own, paused at the browser (popup-holds.ts):
   * judged by its hold's watches, answered by `go` or `fail`; false when it is not that load.
   */
  static judgeFirst(paused: PausedRequest, go: () => void, fail: () => void): boolean {
    const hold = holds.get(paused.frameId);
    const load = paused.networkId ?? paused.requestId;
    if (!hold || !hold.#early || hold.#judges.size === 0) return false;
    hold.#firstLoad ??= load;
    if (hold.#firstLoad !== load) return false;
    hold.#judged(paused, true, go, fail);
    return true;
  }

  #member(judge: Judge): HoldMember {
    const gone = () => this.#gone || !this.#judges.has(judge);
    return {
      caughtUp: (ms) => this.#caughtUp(ms),
      leave: () => this.#leave(judge),
      get gone() {
        return gone();
      },
    };
  }

  async #setUp(open: () => Promise<HoldSession>): Promise<string> {
    const session = await open();
    this.#session = session;
    let mainFrame = this.targetId;
    session.on('Fetch.requestPaused', (paused: PausedRequest) => this.#paused(paused, paused.frameId === mainFrame));
    // A load in the tab itself is waited for; a new tab asked for with no opener link is expected
    // as this tab's (`expected`); one with an opener (window.open, target=_blank) is named so.
    session.on('Page.frameRequestedNavigation', (e: Protocol.Page.FrameRequestedNavigationEvent) => {
      if (e.disposition === 'currentTab') for (const judge of this.#judges) judge.requested(e.frameId);
      if (e.disposition !== 'newTab' && e.disposition !== 'newWindow') return;
      // A page asking for many is not kept asking: the newest few count.
      this.#asked.push(Date.now());
      if (this.#asked.length > ASKED_KEPT) this.#asked.shift();
      for (const judge of this.#judges) judge.opening();
    });
    session.on('Page.windowOpen', () => {
      for (const judge of this.#judges) judge.opening();
    });
    const stopped = (frameId: string, loads: boolean) => {
      for (const judge of this.#judges) judge.stopped(frameId, loads);
    };
    // A pop-up's hold goes with its page, or with the connection that held it.
    session.on('Target.detachedFromTarget', () => {
      this.#gone = true;
      FetchHold.#forget(this);
    });
    session.on('Page.frameStoppedLoading', (e: { frameId: string }) => stopped(e.frameId, true));
    if (!this.page)
      this.#popupPage = new PopupPage(session, (frameId) => {
        for (const judge of this.#judges) judge.blocked?.(frameId);
      });
    session.on('Page.navigatedWithinDocument', (e: { frameId: string }) => stopped(e.frameId, false));
    try {
      return await within(
        (async () => {
          // Both stages: a load is judged when it goes (and at each redirect's hop), and known
          // answered (or a download) when its headers come. The browser answers it at once, for
          // a pop-up still paused before it runs too.
          await session.send('Fetch.enable', {
            patterns: [
              { resourceType: 'Document', requestStage: 'Request' },
              { resourceType: 'Document', requestStage: 'Response' },
            ],
          });
          // A paused pop-up's page answers only once it runs (which waits for this): its main
          // frame is its target's id, and its frames' events are asked for on the way.
          if (this.paused) {
            session.send('Page.enable').catch(() => {});
            return mainFrame;
          }
          const { frameTree } = await session.send('Page.getFrameTree');
          await session.send('Page.enable');
          return (mainFrame = frameTree.frame.id);
        })(),
        SETUP_MS,
        () => new Error('the browser did not let clawd watch the tab'),
      );
    } catch (error) {
      // A paused pop-up's session stays: detached, its page would run before it is closed.
      if (!this.paused) await session.detach().catch(() => {});
      throw error;
    }
  }

  #paused(paused: PausedRequest, mainFrame: boolean): void {
    const session = this.#session!;
    const go = () => void session.send('Fetch.continueRequest', { requestId: paused.requestId }).catch(() => {});
    // Judged at the browser already (its first load, if Chrome opened the tab on its own).
    if (this.#firstLoad !== undefined && (paused.networkId ?? paused.requestId) === this.#firstLoad) return go();
    const fail = () =>
      void session.send('Fetch.failRequest', { requestId: paused.requestId, errorReason: REFUSED }).catch(() => {});
    this.#judged(paused, mainFrame, go, fail);
  }

  #judged(paused: PausedRequest, mainFrame: boolean, go: () => void, fail: () => void): void {
    const verdicts: Array<Promise<void>> = [];
    for (const judge of this.#judges) {
      const verdict = judge.judge(paused, { mainFrame, popup: this.#adopters.has(judge) });
      if (verdict) verdicts.push(verdict);
    }
    if (verdicts.length === 0) return go();
    Promise.all(verdicts).then(go, (error: unknown) => {
      if (mainFrame) this.#popupPage?.refused();
      fail();
      if (mainFrame && this.page) loadRefused(this.page, () => this.#session!.send('Page.stopLoading'));
      const refusal = error instanceof Error ? error : new Error(String(error));
      for (const judge of this.#judges) judge.failed(paused, refusal);
    });
  }

  async #caughtUp(ms: number): Promise<void> {
    // On the session the page's events come on: an event it sent before answering comes first.
    // The page's own setTimeout: a page that broke it only shortens the wait (the watch stays on).
    const asked: Promise<unknown> = this.#session!.send('Runtime.evaluate', {
      expression: 'new Promise((resolve) => setTimeout(resolve, 0))',
      awaitPromise: true,
    });
    const from = Date.now();
    await within(asked, ms, () => new Error('not caught up')).catch(() => {});
    // Through the relay an event may be held until the command in flight when it came has
    // answered (cdp/event-fence.ts): one more round trip puts any such event before its answer.
    const left = ms - (Date.now() - from);
    if (left > 0) await this.#roundTrip(left);
  }

  /** One round trip to the page, within `ms`: what it said before has come. */
  async #roundTrip(ms: number): Promise<void> {
    const trip: Promise<unknown> = this.#session!.send('Runtime.evaluate', { expression: '0' });
    await within(trip, ms, () => new Error('late')).catch(() => {});
  }

  async #leave(judge: Judge): Promise<void> {
    this.#adopters.delete(judge);
    if (!this.#judges.delete(judge) || this.#judges.size > 0) return;
    const session = this.#session!;
    this.#closing = (async () => {
      await session.send('Fetch.disable').catch(() => {});
      await session.detach().catch(() => {});
    })();
    await this.#closing;
    FetchHold.#forget(this);
  }

  /** Whether any tab of `browser` is held. */
  static holding(browser: string): boolean {
    return [...holds.values()].some((hold) => hold.browser === browser);
  }

  /** Calls `listener` whenever a browser's last hold goes; answers how to stop. */
  static whenIdle(listener: (browser: string) => void): () => void {
    idle.add(listener);
    return () => idle.delete(listener);
  }

  /** Whether `targetId`'s page went a moment ago while it was watched. */
  static wentWatched(targetId: string): boolean {
    const at = gone.get(targetId);
    return at !== undefined && Date.now() - at < GONE_KEPT_MS;
  }

  static #forget(hold: FetchHold): void {
    if (holds.get(hold.targetId) !== hold) return;
    holds.delete(hold.targetId);
    if (hold.#gone && hold.#judges.size > 0) {
      gone.set(hold.targetId, Date.now());
      for (const [targetId, at] of gone) if (Date.now() - at >= GONE_KEPT_MS) gone.delete(targetId);
    }
    if (!FetchHold.holding(hold.browser)) for (const listener of idle) listener(hold.browser);
  }
}

async function playwrightSession(page: Page): Promise<HoldSession> {
  const session = await page.context().newCDPSession(page);
  return {
    send: (method, params) => session.send(method as 'Runtime.evaluate', params as Protocol.Runtime.EvaluateRequest),
    on: (event, listener) => void session.on(event as 'Fetch.requestPaused', listener),
    detach: () => session.detach(),
  };
}
