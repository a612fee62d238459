// The relay's model of the tabs the extension has attached: Chrome's tab id, the page target id,
// the synthetic `tab` target Puppeteer expects above each page, the relay session id that
// clients use for the page, and the tab's event fence. Pure bookkeeping, no sockets: the
// switchboard decides when entries come and go, this file only keeps the indexes consistent.
// Who is attached to a tab, and its child targets, are the session table's (session-table.ts).

import { createHash, randomBytes } from 'node:crypto';
import type { AnnouncedTab, TargetInfo } from '../../shared/protocol';
import type { EventFence } from './event-fence';

export interface TabRecord {
  readonly tabId: number;
  /** The page target's id, as Chrome reports it (stable across navigations). */
  readonly targetId: string;
  /** The `tab` target above the page (Chrome 112+ shape that Puppeteer attaches to). */
  readonly tabTargetId: string;
  /** The page session id every client gets for this tab; minted once, stable for the tab's life. */
  readonly sessionId: string;
  info: TargetInfo;
  readonly fence: EventFence;
  /**
   * Set while the tab shows a page the debugger cannot attach to (chrome://…): Chrome detached
   * it, the person's consent stands, and commands fail at once until the tab is back on the web.
   */
  parked?: string;
  /**
   * The time the tab's last rest began (tab-rest.ts): console messages and log entries up to it
   * were shown to clients then, and a fresh session's Runtime.enable and Log.enable say them again.
   */
  seenUpTo?: number;
  /** A pop-up whose page loads the extension holds until the pop-up hold runs it (held-tabs.ts). */
  held?: boolean;
}

export function mintId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

/** Deterministic, so the same page keeps the same tab target id across relay restarts. */
function tabTargetIdFor(pageTargetId: string): string {
  return createHash('sha256').update(`tab:${pageTargetId}`).digest('hex').slice(0, 32).toUpperCase();
}

export class TargetRegistry {
  // Entries are added when the extension announces a tab (hello, toolbar attach, created tab)
  // and removed when it reports the tab detached or the grace period after a disconnect ends.
  readonly #byTabId = new Map<number, TabRecord>();
  readonly #byTargetId = new Map<string, TabRecord>();
  readonly #bySessionId = new Map<string, TabRecord>();

  /**
   * Registers an announced tab. A tab already known keeps its record and session id (a worker or
   * socket restart re-announces it); otherwise the tab keeps the session id it announces, if that
   * id is free, so clients of a restarted relay see the ids the extension remembered.
   */
  add(tab: AnnouncedTab, fence: () => EventFence): { record: TabRecord; added: boolean } {
    const known = this.#byTabId.get(tab.tabId);
    if (known && known.targetId === tab.targetInfo.targetId) {
      known.info = { ...tab.targetInfo, attached: true };
      return { record: known, added: false };
    }
    if (known) this.remove(known.tabId);
    const proposed = tab.sessionId;
    const sessionId = proposed && !this.#bySessionId.has(proposed) ? proposed : mintId();
    const record: TabRecord = {
      tabId: tab.tabId,
      targetId: tab.targetInfo.targetId,
      tabTargetId: tabTargetIdFor(tab.targetInfo.targetId),
      sessionId,
      info: { ...tab.targetInfo, attached: true },
      fence: fence(),
      ...(tab.held ? { held: true } : {}),
    };
    this.#byTabId.set(record.tabId, record);
    this.#byTargetId.set(record.targetId, record);
    this.#byTargetId.set(record.tabTargetId, record);
    this.#bySessionId.set(record.sessionId, record);
    return { record, added: true };
  }

  remove(tabId: number): TabRecord | undefined {
    const record = this.#byTabId.get(tabId);
    if (!record) return undefined;
    this.#byTabId.delete(tabId);
    this.#byTargetId.delete(record.targetId);
    this.#byTargetId.delete(record.tabTargetId);
    this.#bySessionId.delete(record.sessionId);
    record.fence.close();
    return record;
  }

  /** Whether `tab` is still the registered record for its tab (not removed, not replaced). */
  holds(tab: TabRecord): boolean {
    return this.#byTabId.get(tab.tabId) === tab;
  }

  byTabId(tabId: number): TabRecord | undefined {
    return this.#byTabId.get(tabId);
  }

  /** Finds a tab by its page target id or its tab target id. */
  byTargetId(targetId: string): TabRecord | undefined {
    return this.#byTargetId.get(targetId);
  }

  list(): TabRecord[] {
    return [...this.#byTabId.values()];
  }
}
