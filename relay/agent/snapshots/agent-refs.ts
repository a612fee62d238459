// The refs of one `agent` snapshot (agent-engine.ts makes them): each ref's role, name and
// frame, and how a ref becomes the element it stood for — asked of its frame's walker, which
// checks the role and name again — or a clear refusal (stale, unknown); and a frame walk's refs,
// made from the walk before it in what changed (walkRefs).

import type { Frame, JSHandle, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import type { InPageRequest } from '../in-page/page-walker';
import type { ActTarget, LabelBox, RefIndex, RefInfo } from './snapshot-engine';
import { RefTable } from './ref-table';
import type { WalkLine } from '../in-page/walker-types';
import type { DecodedWalk } from '../in-page/walk-codec';

/** What the refs ask of the engine that made them (agent-engine.ts): its frames' walkers, and keeping them across a rest. */
export interface RefEngine {
  call(frame: Frame, request: InPageRequest, as: 'value', what: string): Promise<unknown>;
  call(frame: Frame, request: InPageRequest, as: 'handle', what: string): Promise<JSHandle>;
  keep(frames: Set<Frame>): Promise<void>;
}

export interface AgentRef extends RefInfo {
  frame: Frame;
}

/** Errors that mean the frame's document (and with it our registry) is gone. */
export const GONE =
  /Execution context was destroyed|Cannot find context|JSHandle is disposed|Target (page, context or browser )?(has been )?closed|frame (was|got) detached|has been detached/i;

export class AgentRefs implements RefIndex {
  constructor(
    private readonly engine: RefEngine,
    readonly refs: RefTable<AgentRef>,
    /** iframe ref → the frame inside it, for `frame=`. */
    readonly frames: Map<string, Frame>,
    /** Every ref below this number was handed out in this tab before. */
    readonly nextRef: number,
  ) {}

  get size(): number {
    return this.refs.size;
  }

  get(ref: string): RefInfo | undefined {
    const entry = this.refs.get(ref);
    return entry && { role: entry.role, name: entry.name, nth: 0 };
  }

  *entries(): IterableIterator<[string, RefInfo]> {
    for (const [ref, { role, name }] of this.refs) yield [ref, { role, name, nth: 0 }];
  }

  async resolve(_page: Page, ref: string): Promise<ActTarget> {
    const entry = this.refs.get(ref);
    if (!entry) {
      const number = Number(ref.slice(1));
      if (number < this.nextRef) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
      throw new ClawdError(
        'ref_unknown',
        `unknown ref ${ref}: the last snapshot of this tab has ${this.refs.size} refs; use one of them, or take a new snapshot`,
      );
    }
    const found = await this.engine
      .call(entry.frame, { kind: 'resolve', ref }, 'handle', `ref ${ref}`)
      .catch((error: unknown) => {
        if (error instanceof Error && GONE.test(error.message)) return undefined;
        throw error;
      });
    const element = found?.asElement();
    if (!element) {
      await found?.dispose();
      throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
    }
    return element;
  }

  keep(): Promise<void> {
    return this.engine.keep(new Set([...this.refs.values()].map((entry) => entry.frame)));
  }

  async labelBoxes(page: Page): Promise<LabelBox[]> {
    const main = page.mainFrame();
    const refs = [...this.refs.entries()].filter(([, e]) => e.frame === main).map(([ref]) => ref);
    const boxes = (await this.engine.call(main, { kind: 'boxes', refs }, 'value', 'labels')) as Array<
      [string, number, number, number, number]
    >;
    return boxes.map(([label, x, y, width, height]) => ({ label, box: { x, y, width, height } }));
  }
}

/**
 * A frame walk's refs. A walk that copied lines from the one before has that walk's refs without
 * the lines it did not copy, with those it sent anew: what changed, not the page (ref-table.ts).
 * A held line's walk is of this frame's document (a registry is one document's): its entry is
 * made once, when the line is first read.
 */
export function walkRefs(
  frame: Frame,
  result: DecodedWalk,
  held: { lines: WalkLine[]; refs: RefTable<AgentRef> } | undefined,
): RefTable<AgentRef> {
  const entries = (lines: WalkLine[]) => {
    const map = new Map<string, AgentRef>();
    for (const line of lines as Array<WalkLine & { ref?: AgentRef }>)
      if (line.r) map.set(line.r, (line.ref ??= { role: line.t?.[0] ?? '', name: line.t?.[1] ?? '', nth: 0, frame }));
    return map;
  };
  if (!held || !result.copied?.length || !result.made) return RefTable.owning(entries(result.lines));
  // The held walk's lines no run copied: their refs are not this walk's (unless sent anew).
  const runs = [...result.copied].sort((a, b) => a[0] - b[0]);
  const gone: string[] = [];
  const notCopied = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ref = held.lines[i]!.r;
      if (ref !== undefined) gone.push(ref);
    }
  };
  let at = 0;
  for (const [from, count] of runs) {
    notCopied(at, from);
    at = Math.max(at, from + count);
  }
  notCopied(at, held.lines.length);
  return held.refs.changed(gone, entries(result.made));
}
