// Children that Chrome reports under a page's auto-attach but a browser shows at its root (a
// page's service worker, where Playwright looks for it: context.serviceWorkers()), as the session
// table (session-table.ts) shows them: announced to clients with root auto-attach, never under
// the page, and each target once — one worker reached through several tabs (two tabs of a site
// share it) is attached by Chrome once per tab, but a client must see it once (Playwright throws
// "Duplicate target" on a second attach). The first is shown; the others wait, and the next is
// shown when the shown one goes.

import type { Protocol } from 'devtools-protocol';
import { say } from './client-events';
import type { ClientSession } from './client-session';
import {
  ROOT_CHILD_TYPES,
  type ChildBinding,
  type ChildTarget,
  type ClientEntry,
  type SessionTableEvents,
  type TabSessions,
} from './session-bindings';
import { matchesFilter } from './target-info';
import type { TabRecord } from './target-registry';

export class RootChildren {
  // By target id, oldest first; entries follow the tabs' children (added in `add`, removed in `forget`).
  readonly #shown = new Map<string, ChildTarget[]>();

  constructor(
    /** The table's clients and tabs (its own maps, read here). */
    private readonly clients: Map<ClientSession, ClientEntry>,
    private readonly tabs: Map<TabRecord, TabSessions>,
    private readonly events: SessionTableEvents,
  ) {}

  /** Chrome attached a root-level child on `tab`: shown to the clients, or waiting its turn behind the same target's. */
  add(tab: TabRecord, child: ChildTarget, waitingForDebugger: boolean): void {
    const same = this.#shown.get(child.targetInfo.targetId) ?? [];
    this.#shown.set(child.targetInfo.targetId, [...same, child]);
    if (same.length > 0) {
      // Already shown through another tab: this session waits its turn, and runs meanwhile.
      if (waitingForDebugger) this.events.unclaimed(tab, child.chromeId);
      return;
    }
    this.#tellDiscoverers('Target.targetCreated', child.targetInfo);
    let claimed = false;
    for (const client of this.clients.keys())
      claimed = this.#announceAtRoot(client, tab, child, waitingForDebugger) || claimed;
    if (!claimed && waitingForDebugger) this.events.unclaimed(tab, child.chromeId);
  }

  /** A client turned root auto-attach on: show it the root-level children (service workers), each once. */
  announceTo(client: ClientSession): void {
    for (const [shown] of this.#shown.values()) {
      const tab = shown && this.#tabOfChild(shown);
      if (shown && tab) this.#announceAtRoot(client, tab, shown, false);
    }
  }

  /** The root-level children, each target once, for Target.getTargets. */
  infos(): Protocol.Target.TargetInfo[] {
    return [...this.#shown.values()].flatMap(([shown]) => (shown ? [shown.targetInfo] : []));
  }

  /** A root-level child went: the next session of the same target (another tab's) is shown to the clients (`promote`). */
  forget(child: ChildTarget, promote = true): void {
    if (!ROOT_CHILD_TYPES.has(child.targetInfo.type)) return;
    const list = this.#shown.get(child.targetInfo.targetId);
    if (!list) return;
    const wasShown = list[0] === child;
    const rest = list.filter((c) => c !== child);
    if (rest.length === 0) this.#shown.delete(child.targetInfo.targetId);
    else this.#shown.set(child.targetInfo.targetId, rest);
    const next = rest[0];
    if (!next) this.#tellDiscoverers('Target.targetDestroyed', child.targetInfo);
    const tab = next && this.#tabOfChild(next);
    if (!promote || !wasShown || !next || !tab) return;
    for (const client of this.clients.keys()) this.#announceAtRoot(client, tab, next, false);
  }

  /** A root-level target came or went, for the clients that discover its type (Target.setDiscoverTargets). */
  #tellDiscoverers(method: 'Target.targetCreated' | 'Target.targetDestroyed', info: Protocol.Target.TargetInfo): void {
    for (const [client, entry] of this.clients) {
      if (!entry.discover || !matchesFilter(info.type, entry.discover)) continue;
      if (method === 'Target.targetCreated') say(client, '', method, { targetInfo: info });
      else say(client, '', method, { targetId: info.targetId });
    }
  }

  #tabOfChild(child: ChildTarget): TabRecord | undefined {
    for (const [tab, sessions] of this.tabs) if (sessions.children.get(child.sessionId) === child) return tab;
    return undefined;
  }

  /** Announces a root-level child to a browser client whose root auto-attach covers its type; true when it told the client the child waits for it. */
  #announceAtRoot(client: ClientSession, tab: TabRecord, child: ChildTarget, paused: boolean): boolean {
    const entry = this.clients.get(client);
    if (!entry?.autoAttach || entry.bindings.get('')?.kind !== 'browser' || entry.bindings.has(child.sessionId))
      return false;
    if (!matchesFilter(child.targetInfo.type, entry.autoAttach)) return false;
    const waitingForDebugger = paused && entry.pauses;
    const binding: ChildBinding = { kind: 'child', client, sessionId: child.sessionId, parent: '', tab, child };
    child.state.subscribers.add(binding);
    entry.bindings.set(child.sessionId, binding);
    say(client, '', 'Target.attachedToTarget', {
      sessionId: child.sessionId,
      targetInfo: child.targetInfo,
      waitingForDebugger,
    });
    if (child.state.scriptLoaded) say(client, child.sessionId, 'Inspector.workerScriptLoaded', {});
    if (waitingForDebugger) child.toldWaiting.add(client);
    return waitingForDebugger;
  }
}
