// Tells the walker which elements have a click listener of their own added with addEventListener
// (Angular's, plain scripts'), which no script of the page can ask and Playwright's evaluate
// cannot either. Two ways, by what the browser lets our session do:
// - lent (managed and remote profiles): DevTools' `getEventListeners` exists only in an evaluate
//   that asks for it (`includeCommandLineAPI`); taken from one made over a CDP session of ours
//   and left on the frame's `document` under a one-time key at the walker's first walk, the
//   walker keeps it in its registry and deletes the key — it then reads any element's listeners
//   live, at no round trip.
//   It reads only listeners of the world it was made in, so each frame's main world gets its own.
// - listed (the person's tabs): Chrome gives an extension's debugger session no command-line API
//   (measured, 150 and 156: `getEventListeners is not defined`), so before each walk the elements
//   with click listeners are listed (`DOMDebugger.getEventListeners` over the document) and those
//   not handed over before are put on the `document` under a one-time key for the walk to take.
//   Only a frame with a target of its own (the top one, an out-of-process iframe): a frame inside
//   its parent's process is walked without.
// Nothing of ours stays in a page: every key is deleted as soon as it was taken.

import type { CDPSession, Frame } from 'playwright-core';
import { within } from '../../time-limit';

/** Lending or listing is a few round trips; a page that does not answer in this long is walked without. */
const LEND_MS = 2_000;
/** New listeners' elements handed to one walk at most (each costs a round trip); the rest to the next. */
const LIST_MAX = 300;
/** What a person's click sets off. */
const CLICK_EVENTS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup']);

interface ContextCreated {
  context: { id: number; auxData?: { isDefault?: boolean } };
}

/** The session of the target that holds `frame`: its own, or with `parents`, the nearest parent's that has one. */
async function sessionFor(frame: Frame, parents: boolean): Promise<CDPSession | undefined> {
  const context = frame.page().context();
  for (let f: Frame | null = frame; f; f = parents ? f.parentFrame() : null) {
    const made = context.newCDPSession(f);
    try {
      return await within(made, LEND_MS, () => new Error('no session in time'));
    } catch (error) {
      // One made after its bound is let go as soon as it comes.
      void made.then((late) => late.detach()).catch(() => {});
      // A frame in its parent's process has no session of its own: its parent's target holds it.
      // Any other failure (a page that does not answer) ends the search: the walk goes without.
      if (!/separate CDP session/.test((error as Error).message)) return undefined;
    }
  }
  return undefined;
}

/**
 * Puts `getEventListeners` on the `document` of every frame main world in `frame`'s target under
 * `key`, runs `take` (which takes it in `frame` and deletes it there), then deletes it from every
 * other frame. Whether `frame` got it is its registry's to say (never on a person's tab).
 */
export async function lendListenerReader<T>(frame: Frame, key: string, take: () => Promise<T>): Promise<T> {
  const session = await sessionFor(frame, true);
  if (!session) return take();
  const contexts: number[] = [];
  const seen = (event: ContextCreated) => {
    if (event.context.auxData?.isDefault) contexts.push(event.context.id);
  };
  const each = (expression: string, includeCommandLineAPI: boolean) =>
    Promise.all(
      contexts.map((contextId) =>
        session.send('Runtime.evaluate', { expression, contextId, includeCommandLineAPI }).catch(() => undefined),
      ),
    );
  const property = JSON.stringify(key);
  session.on('Runtime.executionContextCreated', seen);
  // Enabling reports every context there is before it answers; disabled again at once (the
  // session is ours alone).
  const lending = (async () => {
    await session.send('Runtime.enable');
    await session.send('Runtime.disable');
    session.off('Runtime.executionContextCreated', seen);
    await each(
      `Object.defineProperty(document, ${property}, { value: getEventListeners, configurable: true }), 0`,
      true,
    );
  })().catch(() => {});
  try {
    await within(lending, LEND_MS, () => new Error('not lent')).catch(() => {});
    return await take();
  } finally {
    // After the lending has finished (a late one would leave the key behind), never unbounded.
    const tidy = lending.then(() => each(`delete document[${property}]`, false));
    await within(tidy, LEND_MS, () => new Error('left')).catch(() => {});
    void session.detach().catch(() => {});
  }
}

/**
 * Puts the elements of `frame`'s document that have a click listener and are not in `handed`
 * on its `document` under `key` (the frame document's own), as an array, and adds them to
 * `handed`. Answers whether it did (the walk then takes and deletes the key).
 */
export async function listClickListeners(frame: Frame, key: string, handed: Set<number>): Promise<boolean> {
  const session = await sessionFor(frame, false);
  if (!session) return false;
  const group = `clawd-listeners-${key}`;
  const listing = (async () => {
    const { result } = await session.send('Runtime.evaluate', { expression: 'document', objectGroup: group });
    if (!result.objectId) return false;
    // Not through iframes (their elements belong to another frame's walk); shadow roots neither.
    const { listeners } = await session.send('DOMDebugger.getEventListeners', {
      objectId: result.objectId,
      depth: -1,
      pierce: false,
    });
    const fresh = [
      ...new Set(
        listeners.flatMap((l) =>
          CLICK_EVENTS.has(l.type) && l.backendNodeId !== undefined && !handed.has(l.backendNodeId)
            ? [l.backendNodeId]
            : [],
        ),
      ),
    ].slice(0, LIST_MAX);
    if (fresh.length === 0) return false;
    const resolved = await Promise.all(
      fresh.map((backendNodeId) =>
        session.send('DOM.resolveNode', { backendNodeId, objectGroup: group }).then(
          ({ object }) => object.objectId,
          () => undefined,
        ),
      ),
    );
    await session.send('Runtime.callFunctionOn', {
      objectId: result.objectId,
      // Added to what a listing the last walk did not take left there (it answered late).
      functionDeclaration: `function (...elements) { const kept = this[${JSON.stringify(key)}]; Object.defineProperty(this, ${JSON.stringify(key)}, { value: Array.isArray(kept) ? kept.concat(elements) : elements, configurable: true }); }`,
      arguments: resolved.flatMap((objectId) => (objectId ? [{ objectId }] : [])),
    });
    for (const id of fresh) handed.add(id);
    return true;
  })();
  try {
    return await within(listing, LEND_MS, () => new Error('not listed')).catch(() => false);
  } finally {
    // A listing that answers after its bound leaves its key for the next walk, which takes it
    // (the key is the frame document's own, the same for each walk).
    void session.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => {});
    void session.detach().catch(() => {});
  }
}
