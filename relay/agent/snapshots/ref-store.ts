// The refs of each tab's latest snapshot that handed out refs, kept per target (tab), not per
// Playwright Page, so they survive a new Page object for the same tab. At most 50 tabs are
// remembered (least recently used go). What a ref means and how it is resolved is its engine's
// (see snapshot-engine.ts); this file only keeps the indexes.

import type { RefIndex } from './snapshot-engine';
import type { TabKey } from '../tabs/tab-key';

const MAX_TARGETS = 50;

export class RefStore {
  // Least recently used first (a Map keeps insertion order; set() moves an entry to the end).
  readonly #entries = new Map<TabKey, RefIndex>();

  set(tab: TabKey, refs: RefIndex): void {
    this.#entries.delete(tab);
    this.#entries.set(tab, refs);
    while (this.#entries.size > MAX_TARGETS) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get(tab: TabKey): RefIndex | undefined {
    const entry = this.#entries.get(tab);
    if (entry) this.set(tab, entry);
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}
