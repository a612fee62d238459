// One `agent` snapshot's walk over a page's frames (agent-engine.ts takes the snapshot): the
// first frame walks from the tab's ref counter, its child frames side by side below it, each in
// a block of ref numbers of its own, and their lines are stitched below their iframes.
//
// Why blocks: refs are numbered by one counter per tab, and walked in turn a page's child frames
// cost a snapshot a round trip each (cnet's six: 10–15 ms of it). A walk that gave numbers past
// its block lets its registry go and walks afresh in a bigger block, and the counter ends past
// every block a walk may still be numbering in: no number stands for two elements. (Snapshots
// of one tab take turns: agent-engine.ts.)

import type { Frame } from 'playwright-core';
import { ClawdError } from '../../errors';
import { within } from '../../time-limit';
import { mapAtOnce } from '../../at-once';
import type { WalkLine } from '../in-page/page-walker';
import type { DecodedWalk } from '../in-page/walk-codec';
import { flagged } from '../../operations/instruction-lines';
import { dropEmptyContainers, dropSaidTwice } from './walk-lines';
import { GONE, type AgentRef } from './agent-refs';
import type { RefTable } from './ref-table';
import type { SnapshotLine } from './snapshot-engine';

/**
 * How long a child frame may take to answer. Measured: a frame that never committed a document
 * (URL '') never gets an execution context, and an evaluate in it waits forever; such a frame is
 * shown as an iframe with nothing below it rather than holding up the whole snapshot.
 */
export const CHILD_FRAME_MS = 2_000;
/** Child frames walked at once: each has its own 2 s, and a renderer runs one process's frames in turn anyway. */
const FRAMES_AT_ONCE = 4;
/** New ref numbers a child frame's block has past the refs its last walk gave. */
const FRAME_BLOCK = 64;
/** Walks of a frame that keep needing more numbers than their block: then it is shown as empty. */
const BLOCK_TRIES = 3;

/**
 * A walk line as this side holds it, with its snapshot line and its ref's entry, made once: a
 * diff's walk sends most lines as copies of the last walk's (a property, not a WeakMap: a set per
 * line costs a whole snapshot of a big page milliseconds).
 */
export type HeldLine = WalkLine & { said?: SnapshotLine; ref?: AgentRef };

export type FrameWalk = DecodedWalk & { refs: RefTable<AgentRef> };

/** What the engine does for a snapshot's walk. */
export interface WalkSteps {
  /** One walk of the frame, its new refs numbered from `nextRef`. */
  walk(frame: Frame, nextRef: number, selector: string | undefined): Promise<FrameWalk>;
  /** The frame inside each shown iframe line, by its ref. */
  childFrames(frame: Frame, lines: WalkLine[]): Promise<Map<string, Frame>>;
  /** Lets the frame's registry go (a fresh one, numbering afresh, at its next walk). */
  forget(frame: Frame): void;
  /** How many refs the frame's last walk gave (0 for none held). */
  heldRefs(frame: Frame): number;
}

export class FrameWalks {
  /** Each frame's refs, in the order walked (a later frame's entry for a ref wins, as in a Map). */
  readonly tables: Array<RefTable<AgentRef>>;
  /** The main frame's title, once walked. */
  title: string | undefined;
  /** The first number no walk has been given. */
  #free: number;
  /** Past the last number a walk kept gave. */
  #used: number;
  // A child frame that answers after its 2 s is left behind (and a walk still running after the
  // snapshot threw): what it says then must not touch this snapshot's refs or the tab's counter.
  #finished = false;
  #failed = false;
  readonly #abandoned = new Set<Frame>();

  constructor(
    private readonly engine: WalkSteps,
    private readonly main: Frame,
    /** The tab's counter, and what to do when it must move on (a walk beside one that threw). */
    private readonly counter: { get(): number; set(next: number): void },
    tables: Array<RefTable<AgentRef>>,
    /** iframe ref → the frame found inside it, added to as frames are walked. */
    private readonly frames: Map<string, Frame>,
  ) {
    this.#free = this.#used = counter.get();
    this.tables = tables;
  }

  /** The frame's lines, its child frames' below their iframes; the tab's counter moved on. */
  async lines(frame: Frame, selector: string | undefined): Promise<SnapshotLine[]> {
    try {
      const lines = await this.#frame(frame, selector);
      this.#finished = true;
      // Blocks no walk reached are given again next time (refs stay short), unless a frame was
      // left behind: its walk (and those below it) may still be numbering in theirs.
      this.counter.set(this.#abandoned.size > 0 ? Math.max(this.#free, this.#used) : this.#used);
      return lines;
    } catch (error) {
      // Blocks given stay given: walks beside the one that threw may still be numbering.
      this.#failed = this.#finished = true;
      this.counter.set(Math.max(this.#free, this.#used));
      throw error;
    }
  }

  /** Past the last ref number given: what a ref below it and not in the snapshot is (stale). */
  get nextRef(): number {
    return this.#used;
  }

  /** `room`: how many new numbers a child frame's block has; none for the first frame (nothing else numbers while it walks). */
  async #frame(frame: Frame, selector: string | undefined, room?: number): Promise<SnapshotLine[]> {
    let result: FrameWalk;
    let start: number;
    for (let tries = 1; ; tries++) {
      start = this.#free;
      const end = room === undefined ? Infinity : (this.#free += room);
      if (this.#failed) this.counter.set(Math.max(this.counter.get(), this.#free));
      result = await this.engine.walk(frame, start, selector);
      if (this.#finished || this.#abandoned.has(frame)) return [];
      if (result.missing)
        throw new ClawdError('bad_request', `selector ${JSON.stringify(selector)} matches nothing on the page`);
      if (room === undefined) this.#free = result.nextRef;
      if (result.nextRef <= end) break;
      // It gave numbers past its block, which a frame beside it may give too.
      this.engine.forget(frame);
      if (tries === BLOCK_TRIES) return [];
      room = 2 * (result.nextRef - start + result.refs.size) + FRAME_BLOCK;
    }
    // A walk that gave no number ends at its block's start: nothing past `used` was given.
    if (result.nextRef > start) this.#used = Math.max(this.#used, result.nextRef);
    if (frame === this.main) this.title = result.title;
    this.tables.push(result.refs);
    const children = await this.engine.childFrames(frame, result.lines);
    const shown = dropSaidTwice(dropEmptyContainers(result.lines));
    const inside = await mapAtOnce(
      shown.filter((line) => line.f && line.r && children.has(line.r)),
      FRAMES_AT_ONCE,
      async (line) => [line, await this.#child(line.r!, children.get(line.r!)!)] as const,
    );
    const below = new Map(inside);
    const out: SnapshotLine[] = [];
    for (const line of shown) {
      // A line that reads as an instruction to an AI is flagged (instruction-lines.ts): kept,
      // said to be the page's. A line the page sent as a copy is the same object as before:
      // read once.
      const held = line as HeldLine;
      held.said ??= { depth: line.d, text: flagged(line.s), ...(line.r ? { ref: line.r } : {}) };
      out.push(held.said);
      for (const l of below.get(line) ?? []) out.push({ ...l, depth: l.depth + line.d + 1 });
    }
    return out;
  }

  /** A child frame's lines, or none when it does not answer in time or went. */
  async #child(ref: string, child: Frame): Promise<SnapshotLine[]> {
    this.frames.set(ref, child);
    return within(
      this.#frame(child, undefined, FRAME_BLOCK + this.engine.heldRefs(child)),
      CHILD_FRAME_MS,
      () => new Error('frame did not answer'),
    ).catch((error: unknown) => {
      if (!(error instanceof Error) || !(GONE.test(error.message) || error.message === 'frame did not answer'))
        throw error;
      // Its registry may have numbered elements this snapshot never shows: a fresh one next time.
      this.#abandoned.add(child);
      this.engine.forget(child);
      return [];
    });
  }
}
