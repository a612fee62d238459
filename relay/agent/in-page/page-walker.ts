/// <reference lib="dom" />
// The `agent` snapshot's work inside the page: one synchronous walk of a frame's document (open
// shadow roots included) that reads what an agent needs — roles, accessible names, values and
// states of actionable elements; headings, landmarks, dialogs and rows for orientation; visible
// text, condensed — and a registry of refs that lives in a JS object only our handle reaches.
// Nothing is written into the DOM or onto the page's globals.
//
// The entry of the walker bundle: `npm run build` bundles it with its parts (walker-words,
// box-shapes, unseen-rules, element-reading, ref-heirs, removal-watch, page-walk, change-watch,
// walk-codec) into dist/in-page/walker.js,
// which the agent engine puts into a frame once, with the frame's registry (agent-engine.ts);
// page-content.ts bundles it too. These files are the relay's only ones that see DOM types (the
// reference above); they run only in the page.

import { PLAIN, MESSAGE_MAX, MESSAGE_SOURCES, REFUSED_SOURCES, cap, quote } from './walker-words';
import { UnseenRules } from './unseen-rules';
import { ElementReading } from './element-reading';
import { RefHeirs } from './ref-heirs';
import { PageWalk } from './page-walk';
import { changedWords, endWatch, startWatch } from './change-watch';
import { encodeWalk } from './walk-codec';
import { WalkReuse } from './walk-reuse';
import type { InPageRequest, ListenersOf, Registry } from './walker-types';

/** Each frame registry's kept parts and marks (walk-reuse.ts), from its first whole walk on. */
const reuses = new WeakMap<Registry, WalkReuse>();

/** What a person's click sets off: a listener for one of these makes an element a target. */
const CLICK_EVENTS = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];

export type { InPageRequest, Registry, RegistryEntry, WalkLine, WalkResult } from './walker-types';

/**
 * A frame document's registry. `lent`: the key under which the relay left DevTools'
 * `getEventListeners` on the document for this walker (listener-reader.ts): taken into the
 * registry and deleted from the document at once.
 */
export function createRegistry(lent?: string): Registry {
  const registry: Registry = { byId: new Map(), idOf: new WeakMap(), prevOf: new WeakMap(), clickers: new WeakSet() };
  const reader = lent !== undefined ? taken(lent) : undefined;
  if (typeof reader === 'function') registry.listenersOf = reader as ListenersOf;
  return registry;
}

/** What the relay left on the document under `key`, deleted there. */
function taken(key: string): unknown {
  const own = document as unknown as Record<string, unknown>;
  const value = own[key];
  delete own[key];
  return value;
}

/** Whether the registry's last walk took parts of the one before (its tests ask: walk-reuse.test.ts). */
export function walkReused(reg: Registry): boolean {
  return reuses.get(reg)?.reused ?? false;
}

/** Whether an element has a click listener of its own, by what this frame's walker can know. */
function clickListener(reg: Registry): (el: Element) => boolean {
  const { listenersOf, clickers } = reg;
  if (!listenersOf) return (el) => clickers.has(el);
  return (el) => {
    const listeners = listenersOf(el);
    for (const type of CLICK_EVENTS) if (listeners[type]?.length) return true;
    return false;
  };
}

/** One request against a frame's registry: a walk, a prune, a ref resolved, boxes, messages. */
export function inPage(reg: Registry, req: InPageRequest): unknown {
  const judged = !(req.kind === 'walk' && req.seeAll);
  const rules = new UnseenRules(judged);
  if (req.kind === 'walk' && req.listed !== undefined) {
    const listed = taken(req.listed);
    if (Array.isArray(listed))
      for (const el of listed)
        if (el instanceof Element) {
          reg.clickers.add(el);
          reuses.get(reg)?.listened(el);
        }
  }
  const reading = new ElementReading(rules, clickListener(reg));
  const refs = new RefHeirs(reg, rules, reading);
  const { walk, prune } = new PageWalk(judged, rules, reading, refs);
  const { roleOf, nameOf, textOf, messageRole, invalidMessage } = reading;

  switch (req.kind) {
    case 'prune':
      return prune(req.from, req.copy);
    case 'walk':
      return walkRequest(reg, req, refs, walk);
    case 'resolve': {
      const entry = reg.byId.get(req.ref);
      if (!entry) return 'gone';
      let el: Element | undefined = entry.el;
      // Rebuilt since the snapshot (a re-render): the one element the same to a person, or gone.
      if (!el.isConnected) el = refs.rebound(req.ref, entry);
      if (!el) return 'gone';
      const role = roleOf(el);
      const shownRole = entry.role === 'clickable' && PLAIN.has(role) ? 'clickable' : role;
      if (shownRole !== entry.role || nameOf(el, shownRole) !== entry.name) return 'changed';
      return el;
    }
    case 'messages': {
      // What a page says about how things went, without a walk: its status and alert messages
      // (outermost only) and the fields it refuses, as the snapshot's lines say them.
      const out: string[] = [];
      const taken: Element[] = [];
      for (const el of document.querySelectorAll(MESSAGE_SOURCES)) {
        const kind = messageRole(el, roleOf(el));
        if (!kind || taken.some((t) => t.contains(el)) || !el.checkVisibility({ visibilityProperty: true })) continue;
        taken.push(el);
        const said = textOf(el, MESSAGE_MAX, false, undefined, true);
        if (said) out.push(`${kind} ${quote(cap(said, MESSAGE_MAX))}`);
      }
      for (const el of document.querySelectorAll(REFUSED_SOURCES)) {
        const invalid = invalidMessage(el);
        if (invalid === undefined || !el.checkVisibility()) continue;
        const role = roleOf(el);
        const name = nameOf(el, role);
        out.push(
          `${role}${name ? ` ${quote(name)}` : ''} ${invalid ? `[invalid=${quote(cap(invalid, 150))}]` : '[invalid]'}`,
        );
      }
      return out.slice(0, 10);
    }
    case 'watch':
      return startWatch((reg.watches ??= new Map()));
    case 'changes': {
      const watch = reg.watches && endWatch(reg.watches, req.id);
      return watch ? changedWords(watch, rules) : { words: [], more: 0 };
    }
    case 'boxes': {
      const boxes: Array<[string, number, number, number, number]> = [];
      for (const ref of req.refs) {
        const el = reg.byId.get(ref)?.el;
        if (!el || !el.isConnected) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) boxes.push([ref, r.x, r.y, r.width, r.height]);
      }
      return boxes;
    }
  }
}

/**
 * The document's title, or none (the relay then asks the page itself): read in the page's own
 * world, where a script may have made `document.title` a getter that throws or answers anything.
 */
function titleNow(): string | undefined {
  try {
    const title: unknown = document.title;
    return typeof title === 'string' ? title : undefined;
  } catch {
    return undefined;
  }
}

/** A walk request: its lines, refs settled (RefHeirs), as one string (walk-codec.ts). */
function walkRequest(
  reg: Registry,
  req: Extract<InPageRequest, { kind: 'walk' }>,
  refs: RefHeirs,
  walk: PageWalk['walk'],
): string {
  const root = req.selector ? document.querySelector(req.selector) : (document.body ?? document.documentElement);
  if (!root) return encodeWalk({ lines: [], nextRef: req.nextRef, missing: true });
  // Refs whose element is gone: a rebuilt element the same to a person takes one (refFor);
  // the rest can only be stale now, and are forgotten.
  refs.beginWalk();
  try {
    // A walk of the whole frame keeps its parts for the next (and a diff's walk takes those
    // nothing changed); a part's walk (a selector) does not.
    let reuse = req.selector ? undefined : reuses.get(reg);
    if (!reuse && !req.selector) reuses.set(reg, (reuse = new WalkReuse()));
    reuse?.begin(req.reuse === true, `${req.textMax} ${req.seeAll ? 'all' : 'seen'}`);
    let result = walk(root, req.nextRef, req.textMax, reuse);
    // Never the wrong element: every ref shown still stands for the element its line was
    // written for; were one not to, the walk is done again whole. (That the element's role and
    // name are still those shown, an action checks again: `resolve`.)
    if (reuse?.reused && result.lines.some((l) => l.r !== undefined && reg.byId.get(l.r)?.el !== l.e)) {
      reuse.forget();
      result = walk(root, result.nextRef, req.textMax, reuse);
    }
    // Not in a `finally`: a walk that threw leaves its marks for the next one.
    reuse?.end();
    refs.settleHeirs(result);
    result.title = titleNow();
    // One string back: Playwright's structured serialisation of thousands of small objects
    // costs several times the walk itself (measured on a long article: 50 ms against 15);
    // tab-separated lines, not JSON, to travel inside CDP's JSON (walk-codec.ts). Lines the
    // walk before wrote too cross as copies, when the relay holds that walk's lines.
    if (!reuse) return encodeWalk(result);
    const ids = reuse.walked(req.base);
    const text = encodeWalk(result, ids);
    result.lines.forEach((line, i) => {
      line.w = ids.id;
      line.n = i;
    });
    return text;
  } finally {
    refs.endWalk();
  }
}
