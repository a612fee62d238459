// What the walker bundle and the relay say to each other (types only): a frame's registry of
// refs, held by the relay's handle and only its handle; the requests the bundle answers; the
// lines a walk writes.

import type { ChangeWatch } from './change-watch';
import type { RemovalWatch } from './removal-watch';

/**
 * What a ref stood for when it was given: the element, and its role and name then. The element
 * is held, not weakly: one the page took out must still be there for the next walk or resolve
 * to find its heir (a re-render is not a change), whenever the page's collector runs; that walk
 * forgets every gone one (beginWalk), so no more than one walk's elements are ever kept.
 */
export interface RegistryEntry {
  el: Element;
  role: string;
  name: string;
}

/** Per frame document: ref → entry, element → ref. Created by `createRegistry`, held by our JSHandle. */
export interface Registry {
  byId: Map<string, RegistryEntry>;
  idOf: WeakMap<Element, string>;
  /** The element before each one when it was given its ref (null: the first): where one taken out on its own stood. */
  prevOf: WeakMap<Element, Element | null>;
  /** DevTools' `getEventListeners`, when the relay could lend it to this frame (listener-reader.ts). */
  listenersOf?: ListenersOf;
  /** Without it: the elements the relay listed with click listeners, walk by walk. */
  clickers: WeakSet<Element>;
  /** What the page changes while actions run (change-watch.ts), by watch id: from `watch` to `changes`. */
  watches?: Map<number, ChangeWatch>;
  /** Whether an element may have been taken out since the last walk (made at the first walk: removal-watch.ts). */
  removals?: RemovalWatch;
}

/** An element's own listeners by event type (what DevTools' `getEventListeners` answers). */
export type ListenersOf = (el: Element) => Record<string, unknown[]>;

/** One line of the snapshot: depth, text without indentation, its ref, whether it is an iframe. */
export interface WalkLine {
  d: number;
  s: string;
  r?: string;
  /** An iframe: the child frame's lines go below it. */
  f?: 1;
  /** Shown for orientation only when something is below it (landmarks, rows, groups). */
  c?: 1;
  /** The role and name its ref was given (the refs shown are read from the lines). */
  t?: [string, string];
  /** In the page only (never sent): its element, the walk that wrote it last and its place there (walk-codec.ts). */
  e?: Element;
  w?: string;
  n?: number;
}

/**
 * What one block element's visit wrote, in order: its lines and the blocks inside it
 * (walk-reuse.ts keeps it). With the context they were written in: the depth, whether quiet
 * (inside a control's name), and what the boxes around said; what else from outside the block
 * its lines read (a label elsewhere, an aria-labelledby target) is marked when it changes.
 */
export interface Segment {
  items: Array<WalkLine | Segment>;
  depth: number;
  quiet: boolean;
  /** Whether a box around it was unseen, when something inside asked (then it must still be so). */
  unseen?: boolean;
}

export type InPageRequest =
  /**
   * `seeAll`: the walk without the rules of what a person cannot see — what it was before them.
   * Only the bench asks for it (a server started with CLAWD_BENCH_SEE_ALL=1), to measure what
   * the rules cost in the same run; an agent cannot.
   */
  | {
      kind: 'walk';
      nextRef: number;
      selector?: string;
      textMax: number;
      seeAll?: true;
      /** The key under which the relay left this walk the elements newly listed with click listeners. */
      listed?: string;
      /** Take the parts of the last walk that nothing changed since (walk-reuse.ts): a diff asks. */
      reuse?: true;
      /** The walk of this frame the relay holds the lines of: lines that walk wrote too cross as copies (walk-codec.ts). */
      base?: string;
    }
  /** In the page only (page-content.ts): takes out of `copy`, a fresh deep clone of `from`, what a person cannot see of `from`; answers how many nodes went. */
  | { kind: 'prune'; from: Node; copy: Node }
  | { kind: 'resolve'; ref: string }
  | { kind: 'boxes'; refs: string[] }
  | { kind: 'messages' }
  /** Before an action: watch what the page changes (answers the watch's id). After it: the words that appeared (ChangedWords), the watch ended. */
  | { kind: 'watch' }
  | { kind: 'changes'; id: number };

/** What a walk answers (as a JSON string). */
export interface WalkResult {
  lines: WalkLine[];
  /** The next ref number. The refs shown are those of the lines (each with its role and name: `t`). */
  nextRef: number;
  /** With `selector`: nothing matched it. */
  missing?: true;
  /** The document's title when the walk read it: the answer's page title, without a call of its own. */
  title?: string;
}
