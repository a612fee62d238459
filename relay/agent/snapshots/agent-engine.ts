// The `agent` snapshot, the default: one synchronous walk per frame (in-page/page-walker.ts, put
// into the frame as its bundle) instead of Playwright's aria snapshot, a fraction of its time and
// size. Each frame keeps its ref registry in an object only our JSHandle reaches (nothing is
// written into the DOM or the page's globals); frame-walks.ts walks the child frames side by
// side and stitches their lines below their iframes. A handle dies with its debugger session:
// across a rest of a person's tab the walker waits on its document (walker-rest.ts), so the refs
// outlive the rest.
//
// Refs: a ref stays the same while its element keeps its role and name, gets a new number when
// either changes, and a number stands for one element in a tab's life (the counter lives here,
// per tab, and survives navigations; snapshots of a tab take turns; numbers only a registry let
// go gave, or none, are given again). Resolving a ref hands back an ElementHandle of exactly that
// element after checking its role and name again, or refuses it as stale: an action can land
// on the element the snapshot showed or nowhere.
//
// A diff's walk reuses what did not change in the page (walk-reuse.ts), and the lines the last
// walk wrote too come as copies of the lines held here per frame (walk-codec.ts). A snapshot's
// refs and how one is resolved: agent-refs.ts.

import { randomBytes } from 'node:crypto';
import type { Frame, JSHandle, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import type { SnapshotRequest } from '../../operations/page-operations';
import type { InPageRequest, WalkLine } from '../in-page/page-walker';
import { distAsset } from '../../dist-assets';
import { decodeWalk, type DecodedWalk } from '../in-page/walk-codec';
import { SNAPSHOT_TIMEOUT_MS } from '../../operations/page-operations';
import { lendListenerReader, listClickListeners } from './listener-reader';
import { keepWalker, takeWalkerBack, unkeepWalker, type FrameWalker } from './walker-rest';
import type { EngineSnapshot, SnapshotContext, SnapshotEngine, SnapshotLine } from './snapshot-engine';
import { CHILD_FRAME_MS, FrameWalks } from './frame-walks';
import { AgentRefs, GONE, walkRefs, type AgentRef } from './agent-refs';
import { RefTable } from './ref-table';

/** A frame's walker (dist/in-page/walker.js, from in-page/page-walker.ts) with its ref registry, as the page holds it. */
interface InstalledWalker {
  registry: unknown;
  run(registry: unknown, request: unknown): unknown;
}

/** Longest text line (a paragraph is cut to this, marked with …). */
const TEXT_MAX = 100;
/** Checking a ref takes milliseconds; a page that does not answer in this long is stuck. */
const REF_CHECK_MS = 10_000;
/** Errors of a handle whose debugger session went (a rest), its document still there. */
const SESSION_GONE = /Could not find object with given id|Execution context was destroyed|Cannot find context/i;

export class AgentEngine implements SnapshotEngine {
  // One registry per frame document; replaced when the frame navigates (the old one is gone).
  readonly #registries = new WeakMap<Frame, FrameWalker>();
  // The next ref number of each tab: refs are never reused within a tab's life.
  readonly #counters = new Map<string, number>();
  // Each tab's snapshot under way, settled (the next one waits for it).
  readonly #turns = new Map<string, Promise<void>>();

  /** `seeAll`: walk without the rules of what a person cannot see (the bench's "before"; never for agents). */
  constructor(private readonly seeAll = false) {}

  /**
   * Snapshots of one tab take turns: each numbers refs from the tab's counter as the one before
   * left it (a caller that stopped waiting does not stop its snapshot).
   */
  take(page: Page, request: SnapshotRequest, context: SnapshotContext): Promise<EngineSnapshot> {
    const before = this.#turns.get(context.tab);
    const taken = before ? before.then(() => this.#take(page, request, context)) : this.#take(page, request, context);
    const turn = taken.then(
      () => {},
      () => {},
    );
    this.#turns.set(context.tab, turn);
    void turn.then(() => {
      if (this.#turns.get(context.tab) === turn) this.#turns.delete(context.tab);
    });
    return taken;
  }

  async #take(page: Page, request: SnapshotRequest, context: SnapshotContext): Promise<EngineSnapshot> {
    const previous = context.previous instanceof AgentRefs ? context.previous : undefined;
    // A snapshot of part of the page (one frame, one selector) keeps the refs of the rest valid.
    const partial = request.frame !== undefined || request.selector !== undefined;
    const frames = new Map<string, Frame>(partial && previous ? previous.frames : []);
    const diff = request.since !== undefined;
    const walks = new FrameWalks(
      {
        walk: (frame, nextRef, selector) => this.#walk(frame, nextRef, selector, diff),
        childFrames: (frame, lines) => this.#childFrames(frame, lines),
        forget: (frame) => this.#forget(frame),
        heldRefs: (frame) => this.#registries.get(frame)?.last?.refs.size ?? 0,
      },
      page.mainFrame(),
      {
        get: () => this.#counters.get(context.tab) ?? 1,
        set: (next) => void this.#counters.set(context.tab, next),
      },
      partial && previous ? [previous.refs] : [],
      frames,
    );
    let lines: SnapshotLine[];
    if (request.frame !== undefined) {
      const frame = previous?.frames.get(request.frame);
      if (!frame)
        throw new ClawdError(
          'bad_request',
          `frame ${JSON.stringify(request.frame)} is not the ref of an iframe in this tab's last snapshot: take a snapshot and use an iframe's ref`,
        );
      if (frame.isDetached())
        throw new ClawdError('ref_stale', `frame ${request.frame} is stale: that iframe is gone; take a new snapshot`);
      lines = await walks.lines(frame, undefined);
    } else {
      lines = await walks.lines(page.mainFrame(), request.selector);
    }
    // The first table with each later one's refs put in (a child frame's few on the main frame's
    // many: a small table on top, not a new map of every ref).
    const [first = RefTable.of<AgentRef>([]), ...later] = walks.tables;
    const refs = later.reduce((all, table) => all.changed([], table.entries()), first);
    const answer: EngineSnapshot = { text: '', lines, refs: new AgentRefs(this, refs, frames, walks.nextRef) };
    if (walks.title !== undefined) answer.title = walks.title;
    return answer;
  }

  /**
   * One walk of the frame, read: its lines that the frame's last whole walk this side holds wrote
   * too come as copies (walk-codec.ts), and this one is held in its turn. `diff`: only what
   * changed since is walked again (walk-reuse.ts).
   */
  async #walk(
    frame: Frame,
    nextRef: number,
    selector: string | undefined,
    diff: boolean,
  ): Promise<DecodedWalk & { refs: RefTable<AgentRef> }> {
    const held = selector ? undefined : this.#registries.get(frame)?.last;
    const walk = (from: number, base?: string) =>
      this.call(
        frame,
        {
          kind: 'walk',
          nextRef: from,
          textMax: TEXT_MAX,
          ...(selector ? { selector } : {}),
          ...(this.seeAll ? { seeAll: true as const } : {}),
          ...(diff && !selector ? { reuse: true as const } : {}),
          ...(base ? { base } : {}),
        },
        'value',
        'snapshot',
      ) as Promise<string>;
    const result = await this.#decode(await walk(nextRef, held?.id), held, (from) => walk(from));
    const refs = walkRefs(frame, result, held);
    const walker = this.#registries.get(frame);
    if (walker && result.id !== undefined) walker.last = { id: result.id, lines: result.lines, refs };
    return { ...result, refs };
  }

  /**
   * A walk's answer read; should its copies not be of the lines held (never expected: the page
   * copies only from the walk the relay says it holds), the frame is walked again whole.
   */
  async #decode(
    text: string,
    held: FrameWalker['last'],
    again: (nextRef: number) => Promise<unknown>,
  ): Promise<DecodedWalk> {
    try {
      return decodeWalk(text, held);
    } catch (error) {
      if (!held) throw error;
      // From the ref number that walk got to: refs it gave are never given twice.
      return decodeWalk((await again(Number(text.split('\n', 1)[0]!.split('\t')[1]))) as string);
    }
  }

  /**
   * Which child frame sits in which iframe line of `frame`: each shown iframe's element, asked
   * for its content frame (side by side), once: a frame is one iframe element's for its life
   * (moved or rebuilt, the element gets a new one, the old one detached), and a ref one
   * element's, so the frame found for a ref stands while it is attached below `frame` (the
   * three round trips of asking took 25–35 ms of a snapshot of a page with three iframes).
   * Frames in iframes that are not shown cost nothing.
   */
  async #childFrames(frame: Frame, lines: WalkLine[]): Promise<Map<string, Frame>> {
    const found = new Map<string, Frame>();
    const known = this.#registries.get(frame)?.frames;
    const iframes = lines.filter((line) => line.f && line.r);
    // Refs no iframe line shows any more let their frames go (a page rotating its ad slots).
    if (known && known.size > 0) {
      const shown = new Set(iframes.map((line) => line.r));
      for (const ref of known.keys()) if (!shown.has(ref)) known.delete(ref);
    }
    const add = (ref: string, child: Frame) => {
      // A frame with no document yet has nothing to show (and would never answer).
      if (child.url() === '' || child.isDetached()) return;
      found.set(ref, child);
      void this.#registry(child).handle.catch(() => {}); // made now, side by side, not as each frame is walked
    };
    await Promise.all(
      iframes.map(async ({ r: ref }) => {
        const held = known?.get(ref!);
        if (held && !held.isDetached() && held.parentFrame() === frame) return add(ref!, held);
        known?.delete(ref!);
        const handle = await this.call(frame, { kind: 'resolve', ref: ref! }, 'handle', 'snapshot').catch(
          () => undefined,
        );
        const element = handle?.asElement();
        try {
          const child = element
            ? await within(element.contentFrame(), CHILD_FRAME_MS, () => new Error('no content frame')).catch(
                () => null,
              )
            : null;
          if (!child) return;
          known?.set(ref!, child);
          add(ref!, child);
        } finally {
          await handle?.dispose().catch(() => {});
        }
      }),
    );
    return found;
  }

  /** Runs `inPage` against the frame's registry (made on first use, remade once if the document changed). */
  call(frame: Frame, request: InPageRequest, as: 'value', what: string): Promise<unknown>;
  call(frame: Frame, request: InPageRequest, as: 'handle', what: string): Promise<JSHandle>;
  async call(frame: Frame, request: InPageRequest, as: 'value' | 'handle', what: string): Promise<unknown> {
    // Playwright's evaluate types recurse through the registry's DOM types: the function is typed here.
    const fn = ((walker: InstalledWalker, req: unknown) => walker.run(walker.registry, req)) as (
      walker: unknown,
      req: unknown,
    ) => unknown;
    const run = async () => {
      const walker = this.#registry(frame);
      const registry = await walker.handle;
      let req = request;
      // Where the frame could not be lent the listener reader, a walk is handed the elements
      // with click listeners the frame's walker does not know yet.
      // Each such walk takes the key, so elements a late listing left there are not lost.
      if (request.kind === 'walk' && !(await this.#lent(frame, walker, registry))) {
        await listClickListeners(frame, walker.key, walker.handed);
        req = { ...request, listed: walker.key };
      }
      return as === 'value' ? registry.evaluate(fn, req as unknown) : registry.evaluateHandle(fn, req as unknown);
    };
    const bounded = (work: Promise<unknown>) =>
      within(
        work,
        request.kind === 'resolve' ? REF_CHECK_MS : SNAPSHOT_TIMEOUT_MS,
        () =>
          new ClawdError(
            'action_timeout',
            `${what}: the page did not answer within ${seconds(request.kind === 'resolve' ? REF_CHECK_MS : SNAPSHOT_TIMEOUT_MS)}`,
          ),
      );
    try {
      const result = await bounded(run());
      const walker = this.#registries.get(frame);
      if (walker?.kept !== undefined) void unkeepWalker(walker); // the tab did not rest after all
      return result;
    } catch (error) {
      if (!(error instanceof Error) || frame.isDetached()) throw error;
      // The tab rested: the walker is taken back from the page, with the refs it numbered.
      const walker = this.#registries.get(frame);
      if (walker?.kept !== undefined && SESSION_GONE.test(error.message) && (await takeWalkerBack(frame, walker)))
        return bounded(run());
      // A resolve in a new document must not find refs of the old one: only a walk starts afresh.
      if (!GONE.test(error.message) || request.kind === 'resolve') throw error;
      this.#registries.delete(frame);
      return bounded(run());
    }
  }

  /** Lets the frame's registry go, and the elements it holds with its handle (they are held, not weakly). */
  #forget(frame: Frame): void {
    const walker = this.#registries.get(frame);
    this.#registries.delete(frame);
    if (!walker) return;
    // One left on its document for a rest is taken off it first (it holds its elements too).
    const unkept = walker.kept !== undefined ? unkeepWalker(walker) : Promise.resolve();
    void unkept
      .then(() => walker.handle)
      .then((handle) => handle.dispose())
      .catch(() => {});
  }

  /** Whether the frame has had a walker (put in by a walk, a brief view, a load's messages, an action's watch). */
  installed(frame: Frame): boolean {
    return this.#registries.has(frame);
  }

  /** Leaves each frame's walker on its `document` under a one-time key (the tab is about to rest: walker-rest.ts). */
  async keep(frames: Iterable<Frame>): Promise<void> {
    await Promise.all(
      [...frames].map((frame) => {
        const walker = this.#registries.get(frame);
        return walker && !frame.isDetached() ? keepWalker(walker) : undefined;
      }),
    );
  }

  #registry(frame: Frame): FrameWalker {
    let walker = this.#registries.get(frame);
    if (!walker) {
      // The walker's bundle is evaluated once per document, with its registry; a call after that
      // sends Playwright only its request. The listener reader is lent at the first walk (#lent),
      // not here: a load's messages and an action's watch read no listeners, and a lending takes
      // a session of its own and four round trips (13 ms of a bare navigate's 100 on a pool).
      const handle = frame.evaluateHandle(
        `(() => { ${distAsset('in-page/walker.js')}; return { registry: __clawdWalker.createRegistry(), run: __clawdWalker.inPage }; })()`,
      );
      walker = { handle, key: `__clawd${randomBytes(8).toString('hex')}`, handed: new Set(), frames: new Map() };
      this.#registries.set(frame, walker);
      handle.catch(() => this.#registries.delete(frame));
    }
    return walker;
  }

  /**
   * Whether the frame's walker reads click listeners itself: DevTools' `getEventListeners`, lent
   * under the walker's key at its first walk (listener-reader.ts) and taken into its registry (and
   * off the document) at once. Where it cannot be lent (a person's tab), each walk is handed them.
   */
  #lent(frame: Frame, walker: FrameWalker, registry: JSHandle): Promise<boolean> {
    walker.lent ??= lendListenerReader(frame, walker.key, () =>
      registry.evaluate((w, key) => {
        const own = document as unknown as Record<string, unknown>;
        const reader = own[key];
        delete own[key];
        const kept = (w as { registry: { listenersOf?: unknown } }).registry;
        if (typeof reader === 'function') kept.listenersOf = reader;
        return kept.listenersOf !== undefined;
      }, walker.key),
    ).catch(() => false);
    return walker.lent;
  }
}
