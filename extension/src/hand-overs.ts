// The tabs the agent has handed to the person (log in, solve a CAPTCHA), with the reason, kept
// in the worker's state (worker-state.ts, storage.session) so a restarted worker still knows
// them: while a tab is here its badge says YOU, and a toolbar click gives the tab back instead
// of detaching it.

import type { WorkerState } from './worker-state';

export class HandOvers {
  // tab id → the agent's reason; added on the relay's showHandoff, removed when it ends either way.
  readonly #reasons = new Map<number, string>();
  readonly ready: Promise<void>;

  constructor(
    private readonly state: WorkerState,
    /** What the tab's badge is drawn from changed. */
    private readonly repaint: (tabId: number) => void = () => {},
  ) {
    this.ready = state.loaded.then(({ handOvers }) => {
      for (const [tabId, reason] of handOvers) this.#reasons.set(tabId, reason);
    });
  }

  has(tabId: number): boolean {
    return this.#reasons.has(tabId);
  }

  /** Why the agent handed the tab to the person, while it is theirs. */
  reason(tabId: number): string | undefined {
    return this.#reasons.get(tabId);
  }

  /** The relay says the tab is the person's (with a reason) or back with the agent (without). */
  async show(tabId: number, reason: string | undefined): Promise<void> {
    await this.ready;
    if (reason === undefined) this.#reasons.delete(tabId);
    else this.#reasons.set(tabId, reason);
    this.repaint(tabId);
    await this.#persist();
  }

  /** The person gives the tab back (or it went away): forgets it; true when it was handed over. */
  async end(tabId: number): Promise<boolean> {
    await this.ready;
    const had = this.#reasons.delete(tabId);
    if (had) {
      this.repaint(tabId);
      await this.#persist();
    }
    return had;
  }

  #persist(): Promise<void> {
    return this.state.save('handOvers', [...this.#reasons]);
  }
}
