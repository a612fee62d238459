// The child targets of the attached tabs (out-of-process iframes, workers) as the session table
// (session-table.ts) keeps them: announced, as Chrome attaches them, to every subscription that
// auto-attaches on their parent — told of a pause only if it asked for pauses, a pause nobody
// was told of let run — shown again to a subscription that auto-attaches later, and detached
// from every subscriber, children first, when Chrome detaches them. The service workers a
// browser shows at its root are root-children.ts's.

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

  /** Chrome attached a child target: it is announced to every subscription that auto-attaches on its parent. */
  add(tab: TabRecord, parentId: string | undefined, attached: Protocol.Target.AttachedToTargetEvent): void {
    const sessions = this.tabs.get(tab);
    const parent = parentId === undefined ? sessions?.page : sessions?.children.get(parentId)?.state;
    if (!sessions || !parent) {
      // Under a session nobody holds any more: nobody will be told, so nobody would let it run.
      if (attached.waitingForDebugger) this.events.unclaimed(tab, attached.sessionId);
      return;
    }
    const child: ChildTarget = {
      sessionId: attached.sessionId,
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
    if (attached.waitingForDebugger && !claimed) this.events.unclaimed(tab, child.sessionId);
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
    if (!sessions || !child) return;
    for (const other of [...sessions.children.values()])
      if (other.parentId === childId) this.detached(tab, other.sessionId);
    sessions.children.delete(childId);
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

  /** The client no longer holds a child it was told waits for it: the last such client gone, the child runs. */
  stopWaitingFor(binding: ChildBinding): void {
    const { child, tab } = binding;
    if (!child.toldWaiting.delete(binding.client) || child.toldWaiting.size > 0) return;
    if (this.tabs.get(tab)?.children.get(child.sessionId) === child) this.events.unclaimed(tab, child.sessionId);
  }
}
