// One hold on a tab's document requests, shared by every watch on the tab (action-watch.ts: an
// agent call's, a raw client's). Through the relay a tab has one debugger session, so two watches'
// interception is one: each is shown every paused request, and the first to answer would let go
// one the other asks about. So a tab's watches share one CDP session and one Fetch.enable; a
// request goes only once every watch lets it, fails as soon as one refuses, and interception ends
// with the last watch (a new one waits for that end, which would otherwise end it too). The same
// session tells the watches when a frame asks to load a page (its request follows) and when it
// stops loading, so a watch waits for what an action started without a fixed grace. A pop-up
// the tab opens is held too before it runs (popup-holds.ts): its hold is `adopt`ed by the tab's
// watches, on a session of clawd's browser-level connection, and judged as the tab's own loads.

import type { Page } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { within } from '../../time-limit';

export type PausedRequest = Protocol.Fetch.RequestPausedEvent;

/** Where a paused request is: in the main frame of its page (a load of it is a new page), in a pop-up of the watched tab. */
export interface Place {
  mainFrame: boolean;
  popup: boolean;
}

/** The CDP session a hold works on (Playwright's on the tab, or the pop-up hold's own). */
export interface HoldSession {
  send(method: string, params?: object): Promise<any>;
  on(event: string, listener: (params: any) => void): void;
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
  /** The tab is opening a new window (a pop-up's hold comes next: `adopted`). */
  opening(): void;
  /** A pop-up of the tab is held for it now too (its main frame `mainFrame` loads next): it leaves it with the rest. */
  adopted(member: HoldMember, mainFrame: string): void;
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
}

/** How long setting the hold up may take. */
const SETUP_MS = 5_000;

// By target id: a pop-up's hold is found by its opener's, and by a watch on the pop-up later.
const holds = new Map<string, FetchHold>();

export class FetchHold {
  readonly #judges = new Set<Judge>();
  readonly #ready: Promise<string>;
  #session: HoldSession | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    private readonly targetId: string,
    session: () => Promise<HoldSession>,
    /** A pop-up of a watched tab: its requests are asked about as the tab's. */
    private readonly popup: boolean,
  ) {
    this.#ready = this.#setUp(session);
  }

  /** Joins the page's hold (set up by the first watch); rejects when the tab cannot be held. */
  static async join(page: Page, targetId: string, judge: Judge): Promise<HoldMember> {
    for (;;) {
      let hold = holds.get(targetId);
      // The last watch is leaving: its Fetch.disable would end a new interception too.
      const closing = hold ? hold.#closing : undefined;
      if (closing) {
        await closing;
        continue;
      }
      if (!hold) holds.set(targetId, (hold = new FetchHold(targetId, () => playwrightSession(page), false)));
      const joined = hold;
      joined.#judges.add(judge);
      try {
        await joined.#ready;
      } catch (error) {
        joined.#judges.delete(judge);
        if (holds.get(targetId) === joined) holds.delete(targetId);
        throw error;
      }
      return joined.#member(judge);
    }
  }

  /**
   * A new page `targetId` opened by `openerId`, paused before it runs: when the opener is held,
   * the opener's watches hold it too, on `session` (true once its interception is on; false: not
   * the pop-up of a watched tab). Rejects when it cannot be held.
   */
  static async adopt(openerId: string, targetId: string, session: HoldSession): Promise<boolean> {
    const opener = holds.get(openerId);
    if (!opener || opener.#closing || opener.#judges.size === 0 || holds.has(targetId)) return false;
    const hold = new FetchHold(targetId, async () => session, true);
    holds.set(targetId, hold);
    const judges = [...opener.#judges];
    for (const judge of judges) hold.#judges.add(judge);
    try {
      const mainFrame = await hold.#ready;
      for (const judge of judges) judge.adopted(hold.#member(judge), mainFrame);
    } catch (error) {
      if (holds.get(targetId) === hold) holds.delete(targetId);
      throw error;
    }
    return true;
  }

  #member(judge: Judge): HoldMember {
    return { caughtUp: (ms) => this.#caughtUp(ms), leave: () => this.#leave(judge) };
  }

  async #setUp(open: () => Promise<HoldSession>): Promise<string> {
    const session = await open();
    this.#session = session;
    let mainFrame = this.targetId;
    session.on('Fetch.requestPaused', (paused: PausedRequest) =>
      this.#paused(paused, { mainFrame: paused.frameId === mainFrame, popup: this.popup }),
    );
    // Only a load in the tab itself: one in a new tab or window is that target's, held as a pop-up.
    session.on('Page.frameRequestedNavigation', (e: Protocol.Page.FrameRequestedNavigationEvent) => {
      if (e.disposition === 'currentTab') for (const judge of this.#judges) judge.requested(e.frameId);
    });
    session.on('Page.windowOpen', () => {
      for (const judge of this.#judges) judge.opening();
    });
    const stopped = (frameId: string, loads: boolean) => {
      for (const judge of this.#judges) judge.stopped(frameId, loads);
    };
    // A pop-up's hold is forgotten when its page goes (its watches leave it with the tab's).
    session.on('Target.detachedFromTarget', () => {
      if (holds.get(this.targetId) === this) holds.delete(this.targetId);
    });
    session.on('Page.frameStoppedLoading', (e: { frameId: string }) => stopped(e.frameId, true));
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
          if (this.popup) {
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
      await session.detach().catch(() => {});
      throw error;
    }
  }

  #paused(paused: PausedRequest, place: Place): void {
    const verdicts: Array<Promise<void>> = [];
    for (const judge of this.#judges) {
      const verdict = judge.judge(paused, place);
      if (verdict) verdicts.push(verdict);
    }
    const session = this.#session!;
    const go = () => void session.send('Fetch.continueRequest', { requestId: paused.requestId }).catch(() => {});
    if (verdicts.length === 0) return go();
    Promise.all(verdicts).then(go, (error: unknown) => {
      void session
        .send('Fetch.failRequest', { requestId: paused.requestId, errorReason: 'BlockedByClient' })
        .catch(() => {});
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
    if (left > 0)
      await within(this.#session!.send('Runtime.evaluate', { expression: '0' }), left, () => new Error('late')).catch(
        () => {},
      );
  }

  async #leave(judge: Judge): Promise<void> {
    if (!this.#judges.delete(judge) || this.#judges.size > 0) return;
    const session = this.#session!;
    this.#closing = (async () => {
      await session.send('Fetch.disable').catch(() => {});
      await session.detach().catch(() => {});
    })();
    await this.#closing;
    if (holds.get(this.targetId) === this) holds.delete(this.targetId);
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
