// A frame's walker (agent-engine.ts) across a rest of its person's tab (cdp/tab-rest.ts): every
// handle dies with the tab's debugger session, the document does not. Just before the rest the
// walker is left on the frame's `document` under a one-time key, frozen; the next call takes it
// back and deletes the key, so the refs it numbered outlive the rest. Meanwhile the page's own
// scripts can reach it (a main-world property): what a hostile page can do with it is what it can
// do to its own elements anyway — name any of them as it likes — never reach another frame,
// origin or question (asks judge what happens, not which element; a secret stays the field's site's).

import type { WalkLine } from '../in-page/walker-types';
import type { AgentRef } from './agent-refs';
import type { RefTable } from './ref-table';
import { randomBytes } from 'node:crypto';
import type { Frame, JSHandle } from 'playwright-core';

/** A frame document's walker: its registry's handle, and how it learns of click listeners (listener-reader.ts). */
export interface FrameWalker {
  handle: Promise<JSHandle<unknown>>;
  /** Whether the frame's walker reads listeners itself (asked at its first walk); if not, each walk is handed them under `key`. */
  lent?: Promise<boolean>;
  key: string;
  /** The listening elements already handed to this document's walker (backend node ids). */
  handed: Set<number>;
  /** The frame found in each iframe ref's element (agent-engine.ts `#childFrames`), while it stays attached there. */
  frames: Map<string, Frame>;
  /** The key it was left on the document under before a rest (`keepWalker`), until taken back. */
  kept?: string | undefined;
  /**
   * The lines of its last whole walk, by that walk's id: the next walk's copies are of them
   * (walk-codec.ts); and their refs, which the next walk's are made from (ref-table.ts).
   */
  last?: { id: string; lines: WalkLine[]; refs: RefTable<AgentRef> };
}

/** Leaves the walker on its frame's `document` under a one-time key (one at a time: a rest that did not come goes). */
export async function keepWalker(walker: FrameWalker): Promise<void> {
  if (walker.kept !== undefined) await unkeepWalker(walker);
  const key = `_${randomBytes(12).toString('hex')}`;
  const registry = await walker.handle.catch(() => undefined);
  await registry
    ?.evaluate(
      (w, k) =>
        Object.defineProperty(document, k, { value: Object.freeze({ ...(w as object) }), configurable: true }) &&
        undefined,
      key,
    )
    .then(() => (walker.kept = key))
    .catch(() => {});
}

/** The walker a rest left on the frame's document, taken back (and the key deleted); false when the document is another. */
export async function takeWalkerBack(frame: Frame, walker: FrameWalker): Promise<boolean> {
  const key = walker.kept!;
  walker.kept = undefined;
  const taken = await frame
    .evaluateHandle((k) => {
      const own = document as unknown as Record<string, unknown>;
      const found = own[k];
      delete own[k];
      return found ?? null;
    }, key)
    .catch(() => undefined);
  if (!taken || (await taken.evaluate((w) => w === null).catch(() => true))) {
    await taken?.dispose().catch(() => {});
    return false;
  }
  walker.handle = Promise.resolve(taken);
  return true;
}

/** The key of a rest that did not come, deleted (the handle still reaches the page). */
export async function unkeepWalker(walker: FrameWalker): Promise<void> {
  const key = walker.kept!;
  walker.kept = undefined;
  const registry = await walker.handle.catch(() => undefined);
  await registry?.evaluate((_w, k) => delete (document as unknown as Record<string, unknown>)[k], key).catch(() => {});
}
