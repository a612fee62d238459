// What Chrome's one auto-attach on a handed-over tab is told, and what the extension keeps of
// each tab's share of it (tab-auto-attach.ts): the filter as Chrome reads it, the extension's own
// ask (service workers, paused), "off", and a tab's state — the relay's last ask, what Chrome was
// told, and the children held, ruled and kept from the relay.

export type Params = Record<string, unknown>;
export type TabEvent = { tabId: number; sessionId?: string; method: string; params?: Params };

export interface FilterEntry {
  type?: string;
  exclude?: boolean;
}

/** What the extension asks for alone: service workers only, paused before they run. */
export const OWN: Params = {
  autoAttach: true,
  flatten: true,
  waitForDebuggerOnStart: true,
  filter: [{ type: 'service_worker' }],
};
export const OFF: Params = { autoAttach: false, waitForDebuggerOnStart: false };
/** Chrome's filter when a client gives none (CDP's TargetFilter). */
export const DEFAULT_FILTER: FilterEntry[] = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];

/** Whether a TargetFilter lets a target type through: the first entry that names it (or names none) decides. */
export function filterIncludes(filter: unknown, type: string | undefined): boolean {
  for (const entry of Array.isArray(filter) ? (filter as FilterEntry[]) : DEFAULT_FILTER)
    if (entry.type === undefined || entry.type === type) return entry.exclude !== true;
  return false;
}

/** What Chrome is told, as a key: every "off" is the same. */
export const keyOf = (params: Params): string => (params.autoAttach === true ? JSON.stringify(params) : 'off');

export interface TabState {
  /** The relay's last Target.setAutoAttach on the tab (autoAttach true), or undefined. */
  relay: Params | undefined;
  /** What Chrome was last told (keyOf), '' for unknown (a session this worker has not told yet). */
  told: string;
  /** Children Chrome attached that the relay was not shown. */
  readonly mine: Set<string>;
  /** New workers getting their rules: their events wait (the relay hears of them after). */
  readonly holding: Map<string, TabEvent[]>;
  /** Workers given the rules on their session (told again when the rules change). */
  readonly ruled: Set<string>;
  /** Of those, the ones whose Network events the relay did not ask for (none of its clients enabled Network). */
  readonly quiet: Set<string>;
  /** Of those, the network conditions the relay's clients set there (after the rules). */
  readonly theirs: Map<string, Params[]>;
  /** The worker behind each session given the rules. */
  readonly targets: Map<string, { targetId: string; url: string }>;
}

/** A tab the extension has not told anything yet. */
export function newTabState(): TabState {
  return {
    relay: undefined,
    told: '',
    mine: new Set(),
    holding: new Map(),
    ruled: new Set(),
    quiet: new Set(),
    theirs: new Map(),
    targets: new Map(),
  };
}
