// Snapshots for agents, whatever engine takes them: picks the engine for the requested format,
// keeps each tab's latest refs (so actions, labels and `frame` find them), renders and budgets
// the text, and shapes the answer. Resolving a ref goes to the index that handed it out.

import type { Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { AgentEngine } from './agent-engine';
import { toAgentError } from './agent-errors';
import type { SnapshotFormat, SnapshotRequest } from './agent-requests';
import { AxTreeEngine } from './ax-tree-engine';
import { PlaywrightEngine, SNAPSHOT_TIMEOUT_MS } from './playwright-engine';
import { RefStore } from './ref-store';
import type { ActTarget, LabelBox, RefInfo, SnapshotEngine } from './snapshot-engine';
import { renderLines } from './snapshot-lines';
import { truncate } from './snapshot-render';

/** The `agent` format's budget when the request sets none: what an agent can read in one step. */
export const DEFAULT_MAX_CHARS = 40_000;

export interface SnapshotResult {
  format: SnapshotFormat;
  snapshot: string;
  refs: Record<string, Omit<RefInfo, 'nth'> & { nth?: number }>;
  stats: { chars: number; lines: number; refs: number };
  truncated: boolean;
  /** When cut: the ref to pass as `after` for the rest. */
  next?: string;
}

export class Snapshots {
  readonly #refs = new RefStore();
  readonly #engines: Record<SnapshotFormat, SnapshotEngine>;

  constructor() {
    const playwright = new PlaywrightEngine();
    this.#engines = { agent: new AgentEngine(), ai: playwright, role: playwright, aria: new AxTreeEngine() };
  }

  /** Takes a snapshot of `page`, the tab `tab` (a key unique per profile and target). */
  async take(page: Page, tab: string, request: SnapshotRequest, what: string): Promise<SnapshotResult> {
    let taken;
    try {
      taken = await this.#engines[request.format].take(page, request, { tab, previous: this.#refs.get(tab) });
    } catch (error) {
      throw toAgentError(error, { what, timeoutMs: SNAPSHOT_TIMEOUT_MS });
    }
    if (taken.refs) this.#refs.set(tab, taken.refs);
    let snapshot: string;
    let truncated: boolean;
    let next: string | undefined;
    let shownRefs: string[];
    if (taken.lines) {
      const { interactive, depth, limit, after } = request;
      const rendered = renderLines(taken.lines, { interactive, depth, limit, after, maxChars: request.maxChars ?? DEFAULT_MAX_CHARS });
      ({ text: snapshot, truncated, next } = rendered);
      shownRefs = rendered.shown.flatMap((l) => (l.ref ? [l.ref] : []));
    } else {
      ({ text: snapshot, truncated } = truncate(taken.text, request.maxChars));
      shownRefs = [...(taken.refs?.entries() ?? [])].map(([ref]) => ref);
    }
    const refs: SnapshotResult['refs'] = {};
    for (const ref of shownRefs) {
      const info = taken.refs?.get(ref);
      if (info) refs[ref] = { role: info.role, name: info.name, ...(info.nth > 0 ? { nth: info.nth } : {}) };
    }
    return {
      format: request.format,
      snapshot,
      refs,
      stats: { chars: snapshot.length, lines: snapshot === '' ? 0 : snapshot.split('\n').length, refs: shownRefs.length },
      truncated,
      ...(next ? { next } : {}),
    };
  }

  /** The element a ref of the tab's latest snapshot showed, or a clear refusal. */
  resolve(page: Page, tab: string, ref: string): Promise<ActTarget> {
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
