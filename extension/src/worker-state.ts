// What the extension's worker must still know after Chrome stops it (idle, an update, a crash),
// as one model: which tabs are handed over and which of them are parked, the hand-overs to the
// person, the permissions granted, and the link's own state ("another browser took over: step
// aside"). The slots keep the storage keys earlier versions used, so an update finds them. Read
// once, from both storage areas, before any listener acts (`loaded`); each part written whole, in
// the order asked (saves made while one is written share the next write). `local` outlives an
// extension reload or update (the tabs are attached again; grants must still be taken back);
// `session` lives while the browser runs.
// What is drawn from it (the toolbar badge) is a function of it: badge.ts `badgeLook`.

import type { PolicyConfig } from '../../shared/origin-policy';

/** A tab the person handed over, as kept across worker restarts. */
export interface StoredTab {
  tabId: number;
  targetId: string;
  sessionId?: string;
  /** The page it is showing that cannot be attached to, while parked. */
  parked?: string;
  /** The attached tab that opened it: released together with it. */
  openerTabId?: number;
  /** Nobody used it for a while: the debugger let go of it (the tab stays handed over) until the next command. */
  resting?: true;
}

/**
 * A pause the extension holds in Chrome for a moment of its own (holds.ts): a tab's child session
 * whose worker waits for its debugger, a request paused on a tab's session, or a worker of ours
 * attached by target, waiting at its start or its first line.
 */
export type HeldPause =
  { tabId: number; sessionId: string } | { tabId: number; requestId: string } | { targetId: string };

export interface WorkerSlots {
  /** The tabs handed over (parked ones too). */
  attachedTabs: StoredTab[];
  /** Content-setting type → patterns this extension set to allow (taken back when the last tab goes). */
  grantedPermissions: Record<string, string[]>;
  /** Tabs the agent handed to the person, with its reason. */
  handOvers: Array<[number, string]>;
  /** This browser stepped aside for another that connected to the relay: it does not take it back by itself. */
  steppedAside: boolean;
  /** The relay's Target.setAutoAttach per attached tab (tab-auto-attach.ts): Chrome keeps it across worker restarts. */
  relayAutoAttach: Array<[number, Record<string, unknown>]>;
  /** The relay's Fetch.enable per attached tab (tab-fetch.ts), as relayAutoAttach. */
  relayFetch: Array<[number, Record<string, unknown>]>;
  /**
   * The relay's last origin policy (null: none yet): in force on the attached tabs from the
   * worker's first moment, before the relay is reached again (without it, a restarted worker
   * took Chrome's rules off the held tabs until then). Local, as the tabs it holds.
   */
  policy: PolicyConfig | null;
  /** What the worker holds paused (holds.ts): Chrome keeps it when the worker stops, so the next one lets it go. */
  held: HeldPause[];
}

type Slot = keyof WorkerSlots;

const AREA: Record<Slot, 'local' | 'session'> = {
  attachedTabs: 'local',
  grantedPermissions: 'local',
  handOvers: 'session',
  steppedAside: 'session',
  relayAutoAttach: 'session',
  relayFetch: 'session',
  policy: 'local',
  held: 'session',
};

const isInt = (v: unknown): v is number => Number.isInteger(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isStoredTab = (v: unknown): v is StoredTab => {
  const t = v as StoredTab;
  return (
    typeof v === 'object' &&
    v !== null &&
    isInt(t.tabId) &&
    isStr(t.targetId) &&
    (t.sessionId === undefined || isStr(t.sessionId)) &&
    (t.parked === undefined || isStr(t.parked)) &&
    (t.openerTabId === undefined || isInt(t.openerTabId))
  );
};

const readTabParams = (v: unknown): Array<[number, Record<string, unknown>]> =>
  Array.isArray(v)
    ? v.filter(
        (e): e is [number, Record<string, unknown>] =>
          Array.isArray(e) && e.length === 2 && isInt(e[0]) && typeof e[1] === 'object' && e[1] !== null,
      )
    : [];

const isHeldPause = (v: unknown): v is HeldPause => {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  const keys = Object.keys(p).sort().join();
  return (
    (keys === 'sessionId,tabId' && isInt(p.tabId) && isStr(p.sessionId)) ||
    (keys === 'requestId,tabId' && isInt(p.tabId) && isStr(p.requestId)) ||
    (keys === 'targetId' && isStr(p.targetId))
  );
};

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const readPolicy = (v: unknown): PolicyConfig | null => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const { allow, block, own } = v as Record<string, unknown>;
  if (![allow, block, own].every((list) => list === undefined || isStrings(list))) return null;
  return {
    ...(allow ? { allow: allow as string[] } : {}),
    ...(block ? { block: block as string[] } : {}),
    ...(own ? { own: own as string[] } : {}),
  };
};

/** Each slot as stored, or its empty value when absent or not of its shape (kept by an older version, or damaged). */
const READ: { [K in Slot]: (v: unknown) => WorkerSlots[K] } = {
  attachedTabs: (v) => (Array.isArray(v) ? v.filter(isStoredTab) : []),
  grantedPermissions: (v) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every(isStr)),
        )
      : {},
  handOvers: (v) =>
    Array.isArray(v)
      ? v.filter((e): e is [number, string] => Array.isArray(e) && e.length === 2 && isInt(e[0]) && isStr(e[1]))
      : [],
  steppedAside: (v) => v === true,
  relayAutoAttach: (v) => readTabParams(v),
  relayFetch: (v) => readTabParams(v),
  policy: readPolicy,
  held: (v) => (Array.isArray(v) ? v.filter(isHeldPause) : []),
};

/** The two areas of chrome.storage this needs (a fake in unit tests). */
export interface StateStorage {
  local: Pick<chrome.storage.StorageArea, 'get' | 'set'>;
  session: Pick<chrome.storage.StorageArea, 'get' | 'set'>;
}

export class WorkerState {
  /** Every slot, read once; listeners await it before acting. */
  readonly loaded: Promise<WorkerSlots>;
  // Each slot's write under way and the one waiting behind it: writes land in the order asked.
  readonly #writes = new Map<Slot, SlotWrites>();

  constructor(private readonly storage: StateStorage = chrome.storage) {
    this.loaded = this.#load();
  }

  async #load(): Promise<WorkerSlots> {
    const slots = Object.keys(AREA) as Slot[];
    const [local, session] = await Promise.all([
      this.storage.local.get(slots.filter((s) => AREA[s] === 'local')),
      this.storage.session.get(slots.filter((s) => AREA[s] === 'session')),
    ]);
    const read = <K extends Slot>(slot: K): WorkerSlots[K] =>
      READ[slot]((AREA[slot] === 'local' ? local : session)[slot]);
    return {
      attachedTabs: read('attachedTabs'),
      grantedPermissions: read('grantedPermissions'),
      handOvers: read('handOvers'),
      steppedAside: read('steppedAside'),
      relayAutoAttach: read('relayAutoAttach'),
      relayFetch: read('relayFetch'),
      policy: read('policy'),
      held: read('held'),
    };
  }

  /**
   * Keeps one slot whole (after the state was loaded, and after the slot's write under way). Saves
   * made while a write runs share the next one, which writes the last of them: 300 tabs handed
   * over or let rest at once wrote the whole list 300 times in a row, and each rest and wake
   * waited for every write before its own (a wake for 20 s behind a burst of rests).
   */
  save<K extends Slot>(slot: K, value: WorkerSlots[K]): Promise<void> {
    const copy = structuredClone(value); // what was asked now, not what the caller's object holds later
    let writes = this.#writes.get(slot);
    if (!writes) this.#writes.set(slot, (writes = { running: this.loaded.then(() => {}) }));
    writes.latest = copy;
    const queued = writes;
    queued.next ??= queued.running
      .catch(() => {}) // a failed write does not stop the ones after it
      .then(() => {
        const written = queued.latest;
        queued.running = queued.next!;
        queued.next = undefined;
        return this.storage[AREA[slot]].set({ [slot]: written });
      });
    return queued.next;
  }
}

/** A slot's writes: the one under way, and the next, which takes the latest value asked when it starts. */
interface SlotWrites {
  running: Promise<void>;
  next?: Promise<void>;
  latest?: unknown;
}
