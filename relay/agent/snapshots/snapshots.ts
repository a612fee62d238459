// Snapshots for agents, whatever engine takes them: picks the engine for the requested format,
// keeps each tab's latest refs (so actions, labels and `frame` find them), renders and budgets
// the text, and shapes the answer. Resolving a ref goes to the index that handed it out.
// `agent` snapshots get an id per tab (s1, s2, …); the last three of each recent tab are kept so
// `since=<id>` can answer only what changed. The page as an action or a load left it (brief,
// diff or full) and `find` read the page the same way: each is a snapshot the agent saw part of.
// Kept whole (under the 400-line cap): every way an answer reads the page, shaped in one place.

import type { Frame, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { within } from '../../time-limit';
import { AgentEngine } from './agent-engine';
import type { ChangedWords } from '../in-page/change-watch';
import { MESSAGE_SOURCES, REFUSED_SOURCES } from '../in-page/walker-words';
import type { InPageRequest } from '../in-page/page-walker';
import { toAgentError } from '../agent-errors';
import type {
  FindRequest,
  FindResult,
  RefShown,
  SnapshotFormat,
  SnapshotRequest,
  SnapshotResult as SnapshotAnswer,
} from '../../operations/page-operations';
import type { PageView } from '../../operations/shared-fields';
import { findLines, subtreeOf } from './find-lines';
import { currentMask } from '../../operations/secret-use';
import { AxTreeEngine } from './ax-tree-engine';
import { PlaywrightEngine } from './playwright-engine';
import { RefStore } from './ref-store';
import type { ActTarget, EngineSnapshot, LabelBox, RefIndex, SnapshotEngine } from './snapshot-engine';
import { diffSnapshots } from './snapshot-diff';
import type { SnapshotLine } from './snapshot-engine';
import { briefLines, filterLines, isMessageLine, renderLine, renderLines } from './snapshot-lines';
import { truncate } from './snapshot-render';
import type { TabKey } from '../tabs/tab-key';

/** The `agent` format's budget when the request sets none: what an agent can read in one step. */
const DEFAULT_MAX_CHARS = 40_000;
/** A brief view's budget: the first screenful or so of what can be acted on. */
const BRIEF_MAX_CHARS = 2_000;
/** Snapshots kept per tab for `since`, and how many tabs keep them (least recently used go). */
const KEPT_PER_TAB = 3;
const KEPT_TABS = 10;

/**
 * A snapshot as this module answers it; the front adds the page's target id and URL, and its
 * title when the walk did not read it with the page (`title` here: one call fewer).
 */
export type SnapshotResult = Omit<SnapshotAnswer, 'targetId' | 'url' | 'title'> & { title?: string };
export type Found = Omit<FindResult, 'targetId' | 'url' | 'title'> & { title?: string };

interface Kept {
  id: string;
  lines: SnapshotLine[];
}

export class Snapshots {
  readonly #refs = new RefStore();
  // The last `agent` snapshots of recent tabs, least recently used tab first.
  readonly #history = new Map<TabKey, Kept[]>();
  // Each tab's last snapshot number: ids are not reused within the relay's life.
  readonly #ids = new Map<TabKey, number>();
  readonly #engines: Record<SnapshotFormat, SnapshotEngine>;
  readonly #agent: AgentEngine;
  /** Main frames whose load's messages skipped putting the walker in (`messages`): an action's watch puts it in, as the load would have. */
  readonly #unwalked = new WeakSet<Frame>();

  /** `seeAll`: the bench's walk without the rules of what a person cannot see (server.ts `benchSeeAll`). */
  constructor({ seeAll }: { seeAll: boolean } = { seeAll: false }) {
    this.#agent = new AgentEngine(seeAll);
    const playwright = new PlaywrightEngine();
    this.#engines = { agent: this.#agent, ai: playwright, role: playwright, aria: new AxTreeEngine() };
  }

  /**
   * What the page says about how things went, as the snapshot's lines would (status and alert
   * messages, refused fields), read without a walk: for answers that show no view of the page.
   */
  async messages(page: Page, timeoutMs: number): Promise<string[]> {
    // A tab's first document is not given the walker for nothing (no element a message could
    // come from): putting it in is a fresh page's slowest step (30–70 ms of a pool session's first
    // navigate). An action's watch puts it in then (#unwalked). A page too busy to answer the
    // look would not answer the walker either: no messages, within the one bound.
    const frame = page.mainFrame();
    if (!this.#agent.installed(frame)) {
      const sources = `${MESSAGE_SOURCES}, ${REFUSED_SOURCES}`;
      const none = await within(
        page.evaluate((selector) => document.querySelector(selector) === null, sources),
        timeoutMs,
        () => new Error('late'),
      ).catch(() => undefined);
      if (none === undefined) return [];
      if (none) {
        this.#unwalked.add(frame);
        return [];
      }
    }
    return this.#extra(page, { kind: 'messages' }, timeoutMs, []);
  }

  /**
   * Before an action: the main frame's document starts keeping what the page changes; the watch's
   * id (undefined when it could not, within `timeoutMs`: the answer then says no changes; a watch
   * nobody asks for ends by itself in the page).
   */
  async watchChanges(page: Page, timeoutMs: number): Promise<number | undefined> {
    // Only where the walker is in the document already, or a load's messages left it out: an
    // action does not put it in otherwise (a call on refs of another format answers as it did).
    if (!this.#agent.installed(page.mainFrame()) && !this.#unwalked.has(page.mainFrame())) return undefined;
    return this.#extra<number | undefined>(page, { kind: 'watch' }, timeoutMs, undefined);
  }

  /** After it: the words that appeared on the page meanwhile, each with its block's, and how many more (change-watch.ts). */
  changes(page: Page, watch: number, timeoutMs: number): Promise<ChangedWords> {
    return this.#extra(page, { kind: 'changes', id: watch }, timeoutMs, { words: [], more: 0 });
  }

  /** A request of the main frame's walker whose answer is extra to a call: `none` when it fails or is late. */
  async #extra<T>(page: Page, request: InPageRequest, timeoutMs: number, none: T): Promise<T> {
    try {
      return (await within(
        this.#agent.call(page.mainFrame(), request, 'value', request.kind),
        timeoutMs,
        () => new Error('late'),
      )) as T;
    } catch {
      return none; // the action is done either way: an answer without it beats none
    }
  }

  /** Takes a snapshot of `page`, the tab `tab` (a key unique per profile and target). */
  async take(
    page: Page,
    tab: TabKey,
    request: SnapshotRequest,
    what: string,
    view?: 'brief',
    titled = false,
  ): Promise<SnapshotResult> {
    const previous = this.#refs.get(tab);
    const taken = await this.#read(page, tab, request, what);
    // The page's title, as the walk read it, when the answer says it already: a brief view then
    // leaves out the heading that repeats it.
    const title = titled ? taken.title : undefined;
    let snapshot: string;
    let truncated: boolean;
    let next: string | undefined;
    let shownRefs: string[];
    let id: string | undefined;
    let diff: SnapshotResult['diff'];
    if (taken.lines) {
      const { interactive, depth, limit, after } = request;
      const maxChars = request.maxChars ?? DEFAULT_MAX_CHARS;
      const full = filterLines(taken.lines, { interactive, depth });
      const before = request.since !== undefined ? this.#kept(tab, request.since) : undefined;
      id = this.#keep(tab, full);
      if (before) {
        const changes = diffSnapshots(before, full, isMessageLine);
        ({ text: snapshot, truncated } = cutLines(changes.lines, maxChars));
        diff = { since: request.since!, added: changes.added, removed: changes.removed, changed: changes.changed };
        shownRefs = truncated ? changes.refs.filter((r) => snapshot.includes(` [${r}]`)) : changes.refs;
      } else {
        // One element's part (filtered as the whole is), a brief view, or the whole page.
        const part =
          request.ref !== undefined
            ? filterLines(subtreeOf(taken.lines, request.ref, previous), { interactive, depth })
            : view === 'brief'
              ? briefLines(full, title)
              : full;
        const rendered = renderLines(part, {
          interactive: false,
          limit,
          after,
          maxChars: view === 'brief' ? Math.min(maxChars, BRIEF_MAX_CHARS) : maxChars,
        });
        ({ text: snapshot, truncated, next } = rendered);
        shownRefs = rendered.shown.flatMap((l) => (l.ref ? [l.ref] : []));
        // A brief view cut short still says how things went: the messages past the cut follow it.
        if (view === 'brief' && truncated) {
          const unseen = part.filter((l) => isMessageLine(l) && !rendered.shown.includes(l));
          if (unseen.length > 0) {
            snapshot += `\n${unseen.map((l) => renderLine({ ...l, depth: 0 })).join('\n')}`;
            shownRefs.push(...unseen.flatMap((l) => (l.ref ? [l.ref] : [])));
          }
        }
      }
    } else {
      ({ text: snapshot, truncated } = truncate(taken.text, request.maxChars));
      shownRefs = [...(taken.refs?.entries() ?? [])].map(([ref]) => ref);
    }
    return {
      format: request.format,
      snapshot,
      refs: refsShown(taken.refs, shownRefs),
      stats: {
        chars: snapshot.length,
        lines: snapshot === '' ? 0 : snapshot.split('\n').length,
        refs: shownRefs.length,
      },
      truncated,
      ...(next ? { next } : {}),
      ...(id ? { id } : {}),
      ...(diff ? { diff } : {}),
      ...(view === 'brief' && !diff ? { brief: true as const } : {}),
      ...(taken.title !== undefined ? { title: taken.title } : {}),
    };
  }

  /**
   * The page as an action or a load left it, as the caller asked: a brief view, what changed
   * since the tab's last snapshot (all of it when there is none), or the whole page; with the
   * page's title when the walk read it (the answer says it: `titled`, on another page, where a
   * brief view then leaves out the heading that repeats it).
   */
  async view(
    page: Page,
    tab: TabKey,
    view: Exclude<PageView, 'none'>,
    timeoutMs: number,
    what: string,
    titled = false,
  ): Promise<{ snapshot: Omit<SnapshotResult, 'title'>; title?: string }> {
    const since = view === 'diff' ? this.lastId(tab) : undefined;
    const request: SnapshotRequest = {
      format: 'agent',
      interactive: false,
      compact: false,
      timeoutMs,
      ...(since ? { since } : {}),
    };
    // The title apart: the answer says it, the view inside it does not.
    const { title, ...snapshot } = await this.take(
      page,
      tab,
      request,
      what,
      view === 'brief' ? 'brief' : undefined,
      titled,
    );
    return title !== undefined ? { snapshot, title } : { snapshot };
  }

  /** The lines of the page that hold the query, with their context (find-lines.ts). */
  async find(page: Page, tab: TabKey, request: FindRequest, what: string): Promise<Found> {
    const taken = await this.#read(
      page,
      tab,
      { format: 'agent', interactive: false, compact: false, timeoutMs: request.timeoutMs },
      what,
    );
    const lines = taken.lines ?? [];
    const id = this.#keep(tab, lines);
    const found = findLines(lines, {
      query: request.q,
      limit: request.limit,
      ...(request.role ? { role: request.role } : {}),
    });
    return {
      text: found.text,
      matches: found.matches,
      shown: found.shown,
      refs: refsShown(taken.refs, found.refs),
      id,
      ...(taken.title !== undefined ? { title: taken.title } : {}),
    };
  }

  /** Reads the page with the requested engine; the tab's refs become the ones it handed out. */
  async #read(page: Page, tab: TabKey, request: SnapshotRequest, what: string): Promise<EngineSnapshot> {
    let taken: EngineSnapshot;
    try {
      taken = await this.#engines[request.format].take(page, request, { tab, previous: this.#refs.get(tab) });
    } catch (error) {
      throw toAgentError(error, { what, timeoutMs: request.timeoutMs });
    }
    if (taken.refs) this.#refs.set(tab, taken.refs);
    // The call's secrets masked before anything cuts, searches, counts or keeps the lines (a
    // find one character at a time, a maxChars that ends inside one, a diff kept for later).
    const mask = currentMask();
    if (mask.empty) return taken;
    return {
      ...taken,
      text: mask.text(taken.text),
      ...(taken.lines ? { lines: taken.lines.map((line) => ({ ...line, text: mask.text(line.text) })) } : {}),
    };
  }

  /** Tabs about to rest: their refs stay resolvable across the new debugger session (RefIndex.keep). */
  async keepRefs(tabs: readonly TabKey[]): Promise<void> {
    await Promise.all(
      tabs.map((tab) =>
        this.#refs
          .get(tab)
          ?.keep?.()
          .catch(() => {}),
      ),
    );
  }

  /** What a ref of the tab's latest snapshot showed (role and name), if it is known. */
  refInfo(tab: TabKey, ref: string): { role: string; name: string } | undefined {
    const info = this.#refs.get(tab)?.get(ref);
    return info ? { role: info.role, name: info.name } : undefined;
  }

  /** The id of the tab's last `agent` snapshot, if it is kept. */
  lastId(tab: TabKey): string | undefined {
    return this.#history.get(tab)?.at(-1)?.id;
  }

  #keep(tab: TabKey, lines: SnapshotLine[]): string {
    const number = (this.#ids.get(tab) ?? 0) + 1;
    this.#ids.set(tab, number);
    const id = `s${number}`;
    const kept = [...(this.#history.get(tab) ?? []), { id, lines }].slice(-KEPT_PER_TAB);
    this.#history.delete(tab);
    this.#history.set(tab, kept);
    while (this.#history.size > KEPT_TABS) this.#history.delete(this.#history.keys().next().value!);
    return id;
  }

  /** The lines of a kept snapshot, or `snapshot_unknown`. Checked before the new one is kept. */
  #kept(tab: TabKey, id: string): SnapshotLine[] {
    const found = this.#history.get(tab)?.find((k) => k.id === id);
    if (!found)
      throw new ClawdError(
        'snapshot_unknown',
        `snapshot ${id} is not kept for this tab any more (the last ${KEPT_PER_TAB} are): take a full snapshot`,
      );
    return found.lines;
  }

  /** The element a ref of the tab's latest snapshot showed, or a clear refusal. */
  resolve(page: Page, tab: TabKey, ref: string): Promise<ActTarget> {
    const index = this.#refs.get(tab);
    if (!index)
      return Promise.reject(
        new ClawdError(
          'ref_unknown',
          `ref ${ref}: this tab has no snapshot yet; take one (GET /snapshot) and use its refs`,
        ),
      );
    return index.resolve(page, ref);
  }

  /** Where each ref of the tab's latest snapshot is now, for the label overlay. */
  labelBoxes(page: Page, tab: TabKey): Promise<LabelBox[]> {
    const index = this.#refs.get(tab);
    if (!index)
      return Promise.reject(
        new ClawdError(
          'ref_unknown',
          'labels: this tab has no snapshot yet; take one first, its refs are what gets labelled',
        ),
      );
    return index.labelBoxes(page);
  }
}

/** What each shown ref stood for. */
function refsShown(index: RefIndex | undefined, shown: string[]): Record<string, RefShown> {
  const refs: Record<string, RefShown> = {};
  for (const ref of shown) {
    const info = index?.get(ref);
    if (info) refs[ref] = { role: info.role, name: info.name, ...(info.nth > 0 ? { nth: info.nth } : {}) };
  }
  return refs;
}

/** Diff lines within the budget, the cut marked. */
function cutLines(lines: string[], maxChars: number): { text: string; truncated: boolean } {
  let used = 0;
  let kept = 0;
  while (kept < lines.length && used + lines[kept]!.length + 1 <= maxChars) used += lines[kept++]!.length + 1;
  if (kept === lines.length) return { text: lines.join('\n'), truncated: false };
  return {
    text: [
      ...lines.slice(0, kept),
      `… cut at ${maxChars} characters: ${lines.length - kept} more changed lines; take a full snapshot`,
    ].join('\n'),
    truncated: true,
  };
}
