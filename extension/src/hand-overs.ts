// The tabs the agent has handed to the person (log in, solve a CAPTCHA), with the reason, kept
// in chrome.storage.session so a restarted worker still knows them: while a tab is here its
// badge says YOU, and a toolbar click gives the tab back instead of detaching it.

import { badge } from './badge';

const STORAGE_KEY = 'handOvers';

export class HandOvers {
  // tab id → the agent's reason; added on the relay's showHandoff, removed when it ends either way.
  readonly #reasons = new Map<number, string>();
  readonly ready: Promise<void>;

  constructor() {
    this.ready = chrome.storage.session.get(STORAGE_KEY).then((stored) => {
      const entries = stored[STORAGE_KEY];
      if (Array.isArray(entries))
        for (const [tabId, reason] of entries as Array<[number, string]>) this.#reasons.set(tabId, reason);
    });
  }

  has(tabId: number): boolean {
    return this.#reasons.has(tabId);
  }

  /** The relay says the tab is the person's (with a reason) or back with the agent (without). */
  async show(tabId: number, reason: string | undefined): Promise<void> {
    if (reason === undefined) {
      this.#reasons.delete(tabId);
      void badge.attached(tabId);
    } else {
      this.#reasons.set(tabId, reason);
      void badge.handedOver(tabId, reason);
    }
    await this.#persist();
  }

  /** Repaints the hand-over badges (after a reconnect painted every attached tab ON). */
  repaint(): void {
    for (const [tabId, reason] of this.#reasons) void badge.handedOver(tabId, reason);
  }

  /** The person gives the tab back (or it went away): forgets it; true when it was handed over. */
  async end(tabId: number): Promise<boolean> {
    const had = this.#reasons.delete(tabId);
    if (had) await this.#persist();
    return had;
  }

  #persist(): Promise<void> {
    return chrome.storage.session.set({ [STORAGE_KEY]: [...this.#reasons] });
  }
}
