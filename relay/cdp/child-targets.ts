// The child targets of the attached tabs (out-of-process iframes, workers) as the session table
// (session-table.ts) keeps them: announced, as Chrome attaches them, to every subscription that
// auto-attaches on their parent — told of a pause only if it asked for pauses, a pause nobody
// was told of let run — shown again to a subscription that auto-attaches later, and detached
// from every subscriber, children first, when Chrome detaches them. The service workers a
// browser shows at its root are root-children.ts's. After a rest of the tab (tab-rest.ts) Chrome
// attaches its children again under new session ids: each is the child its clients knew, under
// the id they know (`rebind`), and nobody is told anything.

import type { Protocol } from 'devtools-protocol';
import { say } from './client-events';
import type { ClientSession } from './client-session';
import { DebuggeeState } from './debuggee-state';
import type { RootChildren } from './root-children';
import {
  ROOT_CHILD_TYPES,
  type ChildBinding,
  type ChildTarget,
  type ClientEntry,
  type SessionTableEvents,
  type Subscription,
  type TabSessions,
} from './session-bindings';
import type { TabRecord } from './target-registry';

export class ChildTargets {
  constructor(
    /** The table's clients and tabs (its own maps). */
    private readonly clients: Map<ClientSession, ClientEntry>,
    private readonly tabs: Map<TabRecord, TabSessions>,
    private readonly root: RootChildren,
    private readonly events: SessionTableEvents,
  ) {}

  /**
   * Chrome attached a child target (`parentId`: the id clients know its parent by): it is
   * announced to every subscription that auto-attaches on its parent — or, one the tab had before
   * its rest, it is that child again.
   */
  add(tab: TabRecord, parentId: string | undefined, attached: Protocol.Target.AttachedToTargetEvent): void {
    const sessions = this.tabs.get(tab);
    if (sessions && this.#rebind(tab, sessions, parentId, attached)) return;
    const parent = parentId === undefined ? sessions?.page : sessions?.children.get(parentId)?.state;
    if (!sessions || !parent) {
      // Under a session nobody holds any more: nobody will be told, so nobody would let it run.
      if (attached.waitingForDebugger) this.events.unclaimed(tab, attached.sessionId);
      return;
    }
    const child: ChildTarget = {
      sessionId: attached.sessionId,
      chromeId: attached.sessionId,
      parentId,
      targetInfo: attached.targetInfo,
      state: new DebuggeeState(),
      toldWaiting: new Set(),
    };
    sessions.children.set(child.sessionId, child);
    if (ROOT_CHILD_TYPES.has(child.targetInfo.type)) return this.root.add(tab, child, attached.waitingForDebugger);
    // Each client is told of a pause only if it asked for pauses; one nobody was told of is let run.
    let claimed = false;
    for (const [sub, pauses] of parent.autoAttach) {
      // A client gone is nobody to tell, nor to pause for. Its auto-attach can outlive it here (seen
      // in the target fuzz, seed 707819771: a raw client that paused new targets left, then a
      // cross-site iframe came), and announcing to it threw inside an event flush.
      if (!this.clients.has(sub.client)) {
        parent.autoAttach.delete(sub);
        continue;
      }
      const waiting = attached.waitingForDebugger && pauses;
      this.#announceChild(sub, child, waiting);
      if (waiting) child.toldWaiting.add(sub.client);
      claimed ||= waiting;
    }
    if (attached.waitingForDebugger && !claimed) this.events.unclaimed(tab, child.chromeId);
  }

  /** The child of the same target under the same parent that slept through the tab's rest takes Chrome's new session id. */
  #rebind(
    tab: TabRecord,
    sessions: TabSessions,
    parentId: string | undefined,
    attached: Protocol.Target.AttachedToTargetEvent,
  ): boolean {
    for (const child of sessions.children.values()) {
      if (!child.asleep || child.parentId !== parentId || child.targetInfo.targetId !== attached.targetInfo.targetId)
        continue;
      child.asleep = false;
      // Only the id before is kept as another name: a command aimed at it while the tab woke finds it.
      for (const [chromeId, known] of sessions.aliases)
        if (known === child.sessionId && chromeId !== child.chromeId) sessions.aliases.delete(chromeId);
      child.chromeId = attached.sessionId;
      child.targetInfo = attached.targetInfo;
      child.state.contexts.clear();
      sessions.aliases.set(attached.sessionId, child.sessionId);
      this.events.rebound(tab, child);
      // Paused by the replayed auto-attach (a client asked for pauses): its clients knew it running.
      if (attached.waitingForDebugger) this.events.unclaimed(tab, attached.sessionId);
      return true;
    }
    return false;
  }

  /** A repeated auto-attach re-announces nothing on Chrome (measured): show `sub` the children it lacks. */
  announceTo(sub: Subscription): void {
    // Runs when Chrome answers the auto-attach: the client or the tab may have gone meanwhile
    // (a detour, the tab closed), and a throw here would reach no caller.
    const entry = this.clients.get(sub.client);
    const sessions = this.tabs.get(sub.tab);
    if (!entry || !sessions) return;
    const parentId = sub.kind === 'child' ? sub.child.sessionId : undefined;
    for (const child of sessions.children.values()) {
      if (
        child.parentId === parentId &&
        !ROOT_CHILD_TYPES.has(child.targetInfo.type) &&
        !entry.bindings.has(child.sessionId)
      )
        this.#announceChild(sub, child, false);
    }
  }

  #announceChild(parent: Subscription, child: ChildTarget, waitingForDebugger: boolean): void {
    const { client } = parent;
    const binding: ChildBinding = {
      kind: 'child',
      client,
      sessionId: child.sessionId,
      parent: parent.sessionId,
      tab: parent.tab,
      child,
    };
    child.state.subscribers.add(binding);
    this.clients.get(client)?.bindings.set(child.sessionId, binding);
    say(client, parent.sessionId, 'Target.attachedToTarget', {
      sessionId: child.sessionId,
      targetInfo: child.targetInfo,
      waitingForDebugger,
    });
    if (child.state.scriptLoaded) say(client, child.sessionId, 'Inspector.workerScriptLoaded', {});
  }

  /** Chrome detached a child target: its subscribers are told, its own children go first. */
  detached(tab: TabRecord, childId: string): void {
    const sessions = this.tabs.get(tab);
    const child = sessions?.children.get(childId);
    // Chrome says so as the extension lets go of the tab for a rest: it sleeps, to come back.
    if (!sessions || !child || child.asleep) return;
    for (const other of [...sessions.children.values()])
      if (other.parentId === childId) this.detached(tab, other.sessionId);
    sessions.children.delete(childId);
    for (const [chromeId, known] of sessions.aliases) if (known === childId) sessions.aliases.delete(chromeId);
    for (const sub of child.state.subscribers) {
      const entry = this.clients.get(sub.client);
      if (entry?.bindings.get(childId) !== sub) continue;
      entry.bindings.delete(childId);
      say(sub.client, sub.parent, 'Target.detachedFromTarget', {
        sessionId: childId,
        targetId: child.targetInfo.targetId,
      });
    }
    this.root.forget(child); // after its detach: a client sees the target go before it comes back
  }

  // ---- a rest of the tab (tab-rest.ts) --------------------------------------------------------

  /**
   * Why the tab's debugger session must stay, if it must: a client of its own holds it (not
   * clawd's agent layer), a stream runs, a child waits for a client, or it shows a service
   * worker (a browser shows those at its root, to every tab's clients).
   */
  keepsAttached(tab: TabRecord): string | undefined {
    const sessions = this.tabs.get(tab);
    if (!sessions) return 'it is not attached';
    const streams = (state: DebuggeeState<Subscription>) => [...state.streams.values()].some((subs) => subs.size > 0);
    if (streams(sessions.page)) return 'a stream runs on it';
    for (const sub of sessions.page.subscribers) if (!sub.client.internal) return 'a CDP client holds a session of it';
    for (const child of sessions.children.values()) {
      if (ROOT_CHILD_TYPES.has(child.targetInfo.type)) return 'it shows a service worker';
      if (child.toldWaiting.size > 0 || streams(child.state)) return 'a frame or worker of it is held';
    }
    return undefined;
  }

  /**
   * The tab is about to rest (`asleep`), or stays awake after all: its children sleep through the
   * rest, to be the same children when Chrome attaches them again.
   */
  rest(tab: TabRecord, asleep: boolean): void {
    for (const child of this.tabs.get(tab)?.children.values() ?? []) child.asleep = asleep || undefined;
  }

  /** The tab woke: a child Chrome did not attach again is gone (its clients are told). */
  woke(tab: TabRecord): void {
    const sessions = this.tabs.get(tab);
    const gone = [...(sessions?.children.values() ?? [])].filter((child) => child.asleep);
    for (const child of gone) child.asleep = undefined;
    for (const child of gone)
      if (sessions?.children.get(child.sessionId) === child) this.detached(tab, child.sessionId);
  }

  /** The client no longer holds a child it was told waits for it: the last such client gone, the child runs. */
  stopWaitingFor(binding: ChildBinding): void {
    const { child, tab } = binding;
    if (!child.toldWaiting.delete(binding.client) || child.toldWaiting.size > 0) return;
    if (this.tabs.get(tab)?.children.get(child.sessionId) === child) this.events.unclaimed(tab, child.chromeId);
  }
}
