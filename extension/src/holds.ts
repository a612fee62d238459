// What the extension holds paused in Chrome for a moment of its own — a tab's new service worker
// until its WebSocket rules are in (tab-auto-attach.ts), a worker script's request while its shared
// worker is caught (tab-fetch.ts), a worker of ours at its start or first line (worker-sockets.ts)
// — kept in the worker's state while held. Chrome keeps such a pause when the extension's worker
// stops (its debugger sessions outlive it; measured on 150 and 156: nothing lets the paused worker
// or request go), so the next worker lets go of what the last one left (`left`), each owner its kind.

import type { HeldPause, WorkerState } from './worker-state';

/** What an owner of pauses needs: say when one starts and when it ends. */
export interface PauseBook {
  add(pause: HeldPause): void;
  done(pause: HeldPause): void;
}

/** For an owner with no book (a unit test): nothing is kept. */
export const NO_BOOK: PauseBook = { add: () => {}, done: () => {} };

const keyOf = (pause: HeldPause): string =>
  'targetId' in pause
    ? `target ${pause.targetId}`
    : 'sessionId' in pause
      ? `child ${pause.tabId} ${pause.sessionId}`
      : `request ${pause.tabId} ${pause.requestId}`;

export class Holds implements PauseBook {
  readonly #now = new Map<string, HeldPause>();
  /** What the last worker left held (kept until its owner is done with it, should this one stop too). */
  readonly left: Promise<HeldPause[]>;

  constructor(private readonly state: WorkerState) {
    this.left = state.loaded.then(({ held }) => {
      for (const pause of held) this.#now.set(keyOf(pause), pause);
      return held;
    });
  }

  add(pause: HeldPause): void {
    this.#now.set(keyOf(pause), pause);
    this.#save();
  }

  done(pause: HeldPause): void {
    if (this.#now.delete(keyOf(pause))) this.#save();
  }

  // Once the last worker's are in: a list written before would drop them.
  #save(): void {
    void this.left.then(() => this.state.save('held', [...this.#now.values()]));
  }
}
