// Snapshots for agents, whatever engine takes them: picks the engine for the requested format,
// keeps each tab's latest refs (so actions, labels and `frame` find them), cuts the text to
// `maxChars`, and shapes the answer. Resolving a ref goes to the index that handed it out.

import type { Locator, Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { toAgentError } from './agent-errors';
import type { SnapshotFormat, SnapshotRequest } from './agent-requests';
import { AxTreeEngine } from './ax-tree-engine';
import { PlaywrightEngine, SNAPSHOT_TIMEOUT_MS } from './playwright-engine';
import { RefStore } from './ref-store';
import type { LabelBox, RefInfo, SnapshotEngine } from './snapshot-engine';
import { truncate } from './snapshot-render';

export interface SnapshotResult {
  format: SnapshotFormat;
  snapshot: string;
  refs: Record<string, Omit<RefInfo, 'nth'> & { nth?: number }>;
  stats: { chars: number; lines: number; refs: number };
  truncated: boolean;
}

export class Snapshots {
  readonly #refs = new RefStore();
  readonly #engines: Record<SnapshotFormat, SnapshotEngine>;

  constructor() {
    const playwright = new PlaywrightEngine();
    this.#engines = { ai: playwright, role: playwright, aria: new AxTreeEngine() };
  }

  /** Takes a snapshot of `page`, the tab `tab` (a key unique per profile and target). */
  async take(page: Page, tab: string, request: SnapshotRequest, what: string): Promise<SnapshotResult> {
    let taken;
    try {
      taken = await this.#engines[request.format].take(page, request, this.#refs.get(tab));
    } catch (error) {
      throw toAgentError(error, { what, timeoutMs: SNAPSHOT_TIMEOUT_MS });
    }
    if (taken.refs) this.#refs.set(tab, taken.refs);
    const { text: snapshot, truncated } = truncate(taken.text, request.maxChars);
    const refs = [...(taken.refs?.entries() ?? [])];
    return {
      format: request.format,
      snapshot,
      refs: Object.fromEntries(refs.map(([ref, t]) => [ref, { role: t.role, name: t.name, ...(t.nth > 0 ? { nth: t.nth } : {}) }])),
      stats: { chars: snapshot.length, lines: snapshot === '' ? 0 : snapshot.split('\n').length, refs: refs.length },
      truncated,
    };
  }

  /** The element a ref of the tab's latest snapshot showed, or a clear refusal. */
  resolve(page: Page, tab: string, ref: string): Promise<Locator> {
    const index = this.#refs.get(tab);
    if (!index) return Promise.reject(new ClawdError('ref_unknown', `ref ${ref}: this tab has no snapshot yet; take one (GET /snapshot) and use its refs`));
    return index.resolve(page, ref);
  }

  /** Where each ref of the tab's latest snapshot is now, for the label overlay. */
  labelBoxes(page: Page, tab: string): Promise<LabelBox[]> {
    const index = this.#refs.get(tab);
    if (!index) return Promise.reject(new ClawdError('ref_unknown', 'labels: this tab has no snapshot yet; take one first, its refs are what gets labelled'));
    return index.labelBoxes(page);
  }
}
