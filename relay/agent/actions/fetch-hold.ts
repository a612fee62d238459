// One hold on a tab's document requests, shared by every watch on the tab (action-watch.ts: an
// agent call's, a raw client's). Through the relay a tab has one debugger session, so two watches'
// interception is one: each is shown every paused request, and the first to answer would let go
// one the other asks about. So a tab's watches share one CDP session and one Fetch.enable; a
// request goes only once every watch lets it, fails as soon as one refuses, and interception ends
// with the last watch (a new one waits for that end, which would otherwise end it too). The same
// session tells the watches when a frame asks to load a page (its request follows) and when it
// stops loading, so a watch waits for what an action started without a fixed grace.

import type { CDPSession, Page } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { within } from '../../time-limit';

export type PausedRequest = Protocol.Fetch.RequestPausedEvent;

/** A watch in the hold: it sees every paused request of the tab, in order. */
export interface Judge {
  /** Its verdict: undefined lets the request go; a promise lets it go when it resolves, fails it when it rejects. */
  judge(paused: PausedRequest): Promise<void> | undefined;
  /** The request failed on another watch's refusal (`error`): it will not be answered. */
  failed(paused: PausedRequest, error: Error): void;
  /** A frame of the tab asked to load a page in itself (a link, a form, a script): its request comes next. */
  requested(frameId: string): void;
  /**
   * A frame moved within its document (its ask answered) or stopped loading (`loads`: nothing
   * more comes of the loads it had in flight either).
   */
  stopped(frameId: string, loads: boolean): void;
}

/** A watch's place in the hold. */
export interface HoldMember {
  /** The page's main frame (a load of it is a new page). */
  readonly mainFrame: string;
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

const holds = new WeakMap<Page, FetchHold>();

export class FetchHold {
  readonly #judges = new Set<Judge>();
  readonly #ready: Promise<string>;
  #session: CDPSession | undefined;
  #closing: Promise<void> | undefined;

  private constructor(page: Page) {
    this.#ready = this.#setUp(page);
  }

  /** Joins the page's hold (set up by the first watch); rejects when the tab cannot be held. */
  static async join(page: Page, judge: Judge): Promise<HoldMember> {
    for (;;) {
      let hold = holds.get(page);
      // The last watch is leaving: its Fetch.disable would end a new interception too.
      const closing = hold ? hold.#closing : undefined;
      if (closing) {
        await closing;
        continue;
      }
      if (!hold) holds.set(page, (hold = new FetchHold(page)));
      const joined = hold;
      joined.#judges.add(judge);
      let mainFrame: string;
      try {
        mainFrame = await joined.#ready;
      } catch (error) {
        joined.#judges.delete(judge);
        if (holds.get(page) === joined) holds.delete(page);
        throw error;
      }
      return { mainFrame, caughtUp: (ms) => joined.#caughtUp(ms), leave: () => joined.#leave(page, judge) };
    }
  }

  async #setUp(page: Page): Promise<string> {
    const session = await page.context().newCDPSession(page);
    this.#session = session;
    session.on('Fetch.requestPaused', (paused) => this.#paused(paused));
    // Only a load in the tab itself: one in a new tab or window is that target's, not held here.
    session.on('Page.frameRequestedNavigation', (e) => {
      if (e.disposition === 'currentTab') for (const judge of this.#judges) judge.requested(e.frameId);
    });
    const stopped = (frameId: string, loads: boolean) => {
      for (const judge of this.#judges) judge.stopped(frameId, loads);
    };
    session.on('Page.frameStoppedLoading', (e) => stopped(e.frameId, true));
    session.on('Page.navigatedWithinDocument', (e) => stopped(e.frameId, false));
    try {
      return await within(
        (async () => {
          const { frameTree } = await session.send('Page.getFrameTree');
          await session.send('Page.enable');
          // Both stages: a load is judged when it goes (and at each redirect's hop), and known
          // answered (or a download) when its headers come.
          await session.send('Fetch.enable', {
            patterns: [
              { resourceType: 'Document', requestStage: 'Request' },
              { resourceType: 'Document', requestStage: 'Response' },
            ],
          });
          return frameTree.frame.id;
        })(),
        SETUP_MS,
        () => new Error('the browser did not let clawd watch the tab'),
      );
    } catch (error) {
      await session.detach().catch(() => {});
      throw error;
    }
  }

  #paused(paused: PausedRequest): void {
    const verdicts: Array<Promise<void>> = [];
    for (const judge of this.#judges) {
      const verdict = judge.judge(paused);
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
    const asked = this.#session!.send('Runtime.evaluate', {
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

  async #leave(page: Page, judge: Judge): Promise<void> {
    if (!this.#judges.delete(judge) || this.#judges.size > 0) return;
    const session = this.#session!;
    this.#closing = (async () => {
      await session.send('Fetch.disable').catch(() => {});
      await session.detach().catch(() => {});
    })();
    await this.#closing;
    if (holds.get(page) === this) holds.delete(page);
  }
}
