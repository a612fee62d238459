// What a snapshot engine is: something that reads a page into text for an agent and, when it
// hands out refs, knows how to turn each ref back into exactly the element it showed. Engines
// are interchangeable behind this interface (our own page walk for the default `agent` format,
// Playwright's aria snapshot for `ai`/`role`, Chromium's accessibility tree for `aria`), so a new
// engine brings its own refs and its own resolution, and two engines can be compared on one tab.

import type { ElementHandle, Locator, Page } from 'playwright-core';
import type { SnapshotRequest } from '../../operations/page-operations';
import type { TabKey } from '../tabs/tab-key';

/** What an action acts on: a locator that re-checks the element, or a handle pinned to it. */
export type ActTarget = Locator | ElementHandle;

/** What a ref stood for when the snapshot was taken (shown to agents beside the text). */
export interface RefInfo {
  role: string;
  name: string;
  /** The k-th element with the same role and name in this snapshot (0 for the first). */
  nth: number;
}

export interface LabelBox {
  label: string;
  box: { x: number; y: number; width: number; height: number };
}

/** The refs one snapshot handed out, and how to find their elements again. */
export interface RefIndex {
  readonly size: number;
  get(ref: string): RefInfo | undefined;
  entries(): IterableIterator<[string, RefInfo]>;
  /** The element the ref showed, or `ref_stale` (it changed or went) / `ref_unknown`. Nothing happens on the page. */
  resolve(page: Page, ref: string): Promise<ActTarget>;
  /** Where each ref's element is now, for drawing labels on a screenshot (iframe contents left out). */
  labelBoxes(page: Page): Promise<LabelBox[]>;
  /**
   * The tab is about to rest (its debugger session goes, and every handle with it): what resolves
   * the refs is left where the next call finds it again. Engines that resolve by role and name need not.
   */
  keep?(): Promise<void>;
}

/** One line of a snapshot, for engines that hand back lines (the front renders and budgets them). */
export interface SnapshotLine {
  depth: number;
  text: string;
  ref?: string;
}

export interface EngineSnapshot {
  /** The rendered snapshot; '' when `lines` are given instead. */
  text: string;
  lines?: SnapshotLine[];
  /** Undefined for an engine that hands out no refs (the tab's earlier refs stay valid). */
  refs: RefIndex | undefined;
  /** The page's title, when the engine read it with the page (else the caller asks for it). */
  title?: string;
}

export interface SnapshotContext {
  /** Unique per profile and tab (refs are kept per tab). */
  tab: TabKey;
  /** The tab's last ref index (from any engine), for requests that point into it (e.g. `frame`). */
  previous: RefIndex | undefined;
}

export interface SnapshotEngine {
  /** Reads the page. Throws ClawdErrors an agent can act on. */
  take(page: Page, request: SnapshotRequest, context: SnapshotContext): Promise<EngineSnapshot>;
}
