// Who is attached to what. Every client's session ids (its bindings) and, per tab, the debuggee
// state of its page and of each child target (out-of-process iframe, worker) with the client
// sessions subscribed to it (the words: session-bindings.ts). A page or child binding IS its
// subscription: one object, indexed by the client's session id and by the debuggee, and only
// this file (with root-children.ts, for the service workers a browser shows at its root) changes
// either index. It is the one place that attaches and detaches client sessions, and so the only
// one that tells clients Target.attachedToTarget and Target.detachedFromTarget. What a leaving
// subscription leaves behind on the tab is reported through `events`; sending the clean-up
// commands is the tab commands' job.
// Kept whole (under the 400-line cap): the two indexes change together, and only here.

import type { Protocol } from 'devtools-protocol';
import { ClawdError } from '../errors';
import { say } from './client-events';
import type { ClientSession } from './client-session';
import { DebuggeeState } from './debuggee-state';
import { ChildTargets } from './child-targets';
import { RootChildren } from './root-children';
import {
  RANK,
  type Binding,
  type ChildBinding,
  type ChildTarget,
  type ClientEntry,
  type ClientRoot,
  type PageBinding,
  type SessionTableEvents,
  type Subscription,
  type TabSessions,
} from './session-bindings';
import { pageTargetInfo, tabTargetInfo } from './target-info';
import { mintId, type TabRecord } from './target-registry';

export type {
  Binding,
  BrowserBinding,
  ChildBinding,
  ChildTarget,
  ClientRoot,
  PageBinding,
  SessionTableEvents,
  Subscription,
  TabTargetBinding,
} from './session-bindings';

export class SessionTable {
  // Added when a client connects, removed when its socket closes.
  readonly #clients = new Map<ClientSession, ClientEntry>();
  // Added when the registry takes a tab, removed when the tab goes.
  readonly #tabs = new Map<TabRecord, TabSessions>();
  // Root-level children (service workers): shown at the browser's root, each target once.
  readonly #root: RootChildren;
  // Child targets (iframes, workers) as Chrome attaches and detaches them.
  readonly #children: ChildTargets;

  constructor(
    private readonly browserTargetId: string,
    private readonly events: SessionTableEvents,
  ) {
    this.#root = new RootChildren(this.#clients, this.#tabs, events);
    this.#children = new ChildTargets(this.#clients, this.#tabs, this.#root, events);
  }

  /** A client turned root auto-attach on: show it the root-level children (service workers), each once. */
  announceRootChildren(client: ClientSession): void {
    this.#root.announceTo(client);
  }

  /** The root-level children, each target once, for Target.getTargets. */
  rootChildren(): Protocol.Target.TargetInfo[] {
    return this.#root.infos();
  }

  // ---- clients ------------------------------------------------------------------------------

  /** A client connected; `page` scopes it to one tab (its root is that page). */
  addClient(client: ClientSession, page?: TabRecord): void {
    const entry: ClientEntry = { bindings: new Map(), autoAttach: undefined, pauses: false, discover: undefined };
    this.#clients.set(client, entry);
    if (!page) {
      entry.bindings.set('', { kind: 'browser', client, sessionId: '', parent: '' });
      return;
    }
    const binding: PageBinding = { kind: 'page', client, sessionId: '', parent: '', tab: page };
    this.#sessions(page).page.subscribers.add(binding);
    entry.bindings.set('', binding);
  }

  /** A client's socket closed: its subscriptions go quietly (there is nobody to tell). */
  dropClient(client: ClientSession): void {
    const entry = this.#clients.get(client);
    if (!entry) return;
    this.#clients.delete(client);
    for (const binding of [...entry.bindings.values()]) if (binding.kind === 'page') this.#dropPage(entry, binding);
    // Root-level children (service workers) it was told wait for it.
    for (const binding of entry.bindings.values()) if (binding.kind === 'child') this.#children.stopWaitingFor(binding);
    entry.bindings.clear();
  }

  clients(): IterableIterator<ClientSession> {
    return this.#clients.keys();
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  root(client: ClientSession): ClientRoot {
    return this.#entry(client);
  }

  binding(client: ClientSession, sessionId: string): Binding | undefined {
    return this.#clients.get(client)?.bindings.get(sessionId);
  }

  // ---- tabs ---------------------------------------------------------------------------------

  addTab(tab: TabRecord): void {
    if (!this.#tabs.has(tab))
      this.#tabs.set(tab, { page: new DebuggeeState(), children: new Map(), aliases: new Map() });
  }

  /**
   * The tab is gone: every client session on it detaches (children first, each announced on a
   * parent the client still holds), and a client scoped to the page is closed, as Chrome does.
   */
  dropTab(tab: TabRecord): void {
    const sessions = this.#tabs.get(tab);
    if (!sessions || !this.#tabs.delete(tab)) return;
    for (const [client, entry] of [...this.#clients]) {
      const doomed = [...entry.bindings.values()]
        .filter((b) => this.tabOf(b) === tab)
        .sort((a, b) => RANK[a.kind] - RANK[b.kind]);
      for (const binding of doomed) {
        entry.bindings.delete(binding.sessionId);
        if (binding.sessionId !== '') this.#announceDetach(entry, binding);
      }
      if (!entry.bindings.has('')) client.close(1001, 'target closed');
    }
    // A worker this tab showed, that another tab also reaches, is shown through that tab now.
    for (const child of sessions.children.values()) this.#root.forget(child);
  }

  /** The tab got a fresh debugger session: nothing is enabled and no child is attached. */
  resetTab(tab: TabRecord): void {
    const sessions = this.#tabs.get(tab);
    if (!sessions) return;
    sessions.page.resetSession();
    // Nobody used the tab: its children go quietly (a worker it showed is shown again when Chrome attaches it anew).
    for (const child of sessions.children.values()) this.#root.forget(child, false);
    sessions.children.clear();
    sessions.aliases.clear();
  }

  /**
   * Chrome replaced the tab's debugger session under its clients (a chrome:// detour, an
   * extension reload): the children died with it (announced), the contexts are gone; what the
   * clients enabled and set stays recorded, to be replayed.
   */
  sessionReplaced(tab: TabRecord): void {
    const sessions = this.#tabs.get(tab);
    if (!sessions) return;
    for (const child of [...sessions.children.values()])
      if (child.parentId === undefined && !child.asleep) this.childDetached(tab, child.sessionId);
    sessions.page.contexts.clear();
  }

  /** The tab is about to rest (or stays awake after all): its children sleep through it (child-targets.ts). */
  restChildren(tab: TabRecord, asleep: boolean): void {
    this.#children.rest(tab, asleep);
  }

  /** The tab woke and its clients' setup is back: a child Chrome did not attach again is gone. */
  wokeChildren(tab: TabRecord): void {
    this.#children.woke(tab);
  }

  /** The id clients know a child by, for Chrome's session id of it (they differ after a rest). */
  knownAs(tab: TabRecord, chromeId: string): string {
    return this.#tabs.get(tab)?.aliases.get(chromeId) ?? chromeId;
  }

  /** Why the tab's debugger session must stay (tab-rest.ts), if it must (child-targets.ts). */
  keepsAttached(tab: TabRecord): string | undefined {
    return this.#children.keepsAttached(tab);
  }

  isUsed(tab: TabRecord): boolean {
    return (this.#tabs.get(tab)?.page.subscribers.size ?? 0) > 0;
  }

  /** The state of the debuggee a subscription is on. */
  stateOf(sub: Subscription): DebuggeeState<Subscription> {
    return sub.kind === 'child' ? sub.child.state : this.#sessions(sub.tab).page;
  }

  /** The debuggee state an event from Chrome's `childId` session (undefined: the page) belongs to. */
  debuggee(tab: TabRecord, childId: string | undefined): DebuggeeState<Subscription> | undefined {
    const sessions = this.#tabs.get(tab);
    return childId === undefined ? sessions?.page : sessions?.children.get(childId)?.state;
  }

  child(tab: TabRecord, childId: string): ChildTarget | undefined {
    return this.#tabs.get(tab)?.children.get(childId);
  }

  /** Keeps a child's target info current (Target.targetInfoChanged). */
  updateChild(tab: TabRecord, info: Protocol.Target.TargetInfo): void {
    for (const child of this.#tabs.get(tab)?.children.values() ?? [])
      if (child.targetInfo.targetId === info.targetId) child.targetInfo = info;
  }

  // ---- lookups ------------------------------------------------------------------------------

  tabOf(binding: Binding): TabRecord | undefined {
    return binding.kind === 'browser' ? undefined : binding.tab;
  }

  /** The target a session is attached to, as Target.detachedFromTarget names it. */
  targetIdOf(binding: Binding): string {
    switch (binding.kind) {
      case 'browser':
        return this.browserTargetId;
      case 'tab':
        return binding.tab.tabTargetId;
      case 'page':
        return binding.tab.targetId;
      case 'child':
        return binding.child.targetInfo.targetId;
    }
  }

  /** The client's session on a page or tab target, by target id (Target.detachFromTarget {targetId}). */
  sessionFor(client: ClientSession, targetId: string): string | undefined {
    let found: string | undefined;
    for (const b of this.#entry(client).bindings.values()) {
      if ((b.kind === 'page' || b.kind === 'tab') && this.targetIdOf(b) === targetId) found = b.sessionId;
    }
    return found;
  }

  /** Whether the client holds the tab (its page or tab target) at its root. */
  holdsAtRoot(client: ClientSession, tab: TabRecord): boolean {
    for (const b of this.#entry(client).bindings.values())
      if (b.parent === '' && (b.kind === 'tab' || b.kind === 'page') && b.tab === tab) return true;
    return false;
  }

  /** Whether a page session was attached under `parent` (a tab target session). */
  hasPageUnder(client: ClientSession, parent: string): boolean {
    for (const b of this.#entry(client).bindings.values()) if (b.kind === 'page' && b.parent === parent) return true;
    return false;
  }

  // ---- attaching ----------------------------------------------------------------------------

  /** Attaches the client to the tab's page, announcing it on `parent`; returns the session id. */
  attachPage(client: ClientSession, tab: TabRecord, parent: string): string {
    const entry = this.#entry(client);
    // Every client gets the tab's own session id the first time; a second session on the same
    // page for the same client (e.g. newCDPSession) needs an id of its own.
    const sessionId = entry.bindings.has(tab.sessionId) ? mintId() : tab.sessionId;
    const binding: PageBinding = { kind: 'page', client, sessionId, parent, tab };
    this.#sessions(tab).page.subscribers.add(binding);
    entry.bindings.set(sessionId, binding);
    say(client, parent, 'Target.attachedToTarget', {
      sessionId,
      targetInfo: pageTargetInfo(tab),
      waitingForDebugger: this.events.waits?.(client, tab) ?? false,
    });
    return sessionId;
  }

  attachTabTarget(client: ClientSession, tab: TabRecord, parent: string): string {
    this.#sessions(tab);
    const sessionId = mintId();
    this.#entry(client).bindings.set(sessionId, { kind: 'tab', client, sessionId, parent, tab, autoAttach: false });
    say(client, parent, 'Target.attachedToTarget', {
      sessionId,
      targetInfo: tabTargetInfo(tab),
      waitingForDebugger: false,
    });
    return sessionId;
  }

  attachBrowser(client: ClientSession): string {
    const sessionId = mintId();
    this.#entry(client).bindings.set(sessionId, { kind: 'browser', client, sessionId, parent: '' });
    return sessionId;
  }

  /** Chrome attached a child target: announced to every subscription that auto-attaches on its parent (child-targets.ts). */
  addChild(tab: TabRecord, parentId: string | undefined, attached: Protocol.Target.AttachedToTargetEvent): void {
    this.#children.add(tab, parentId, attached);
  }

  /** A repeated auto-attach re-announces nothing on Chrome (measured): show `sub` the children it lacks. */
  announceChildren(sub: Subscription): void {
    this.#children.announceTo(sub);
  }

  /** Chrome detached a child target: its subscribers are told, its own children go first. */
  childDetached(tab: TabRecord, childId: string): void {
    this.#children.detached(tab, childId);
  }

  /** Lets a paused child run that nobody will be told of. */
  letRun(tab: TabRecord, childId: string): void {
    this.events.unclaimed(tab, childId);
  }

  // ---- detaching ----------------------------------------------------------------------------

  /**
   * The client detaches one of its sessions (Target.detachFromTarget): what it held below goes
   * with it, what only it needed on the tab is released, and the detach is announced.
   */
  detach(client: ClientSession, sessionId: string): void {
    const entry = this.#entry(client);
    const binding = entry.bindings.get(sessionId);
    if (!binding || sessionId === '') return;
    if (binding.kind === 'page') this.#dropPage(entry, binding);
    else if (binding.kind === 'child') this.#dropChild(entry, binding, true);
    else if (binding.kind === 'tab') {
      for (const b of [...entry.bindings.values()]) if (b.parent === sessionId) this.detach(client, b.sessionId);
    }
    entry.bindings.delete(sessionId);
    this.#announceDetach(entry, binding);
  }

  /**
   * Removes a page subscription and the client's children below it. When others remain on the
   * page, what only this one needed is released; when it was the last, the tab is unused.
   */
  #dropPage(entry: ClientEntry, binding: PageBinding): void {
    entry.bindings.delete(binding.sessionId);
    const sessions = this.#tabs.get(binding.tab);
    if (!sessions) return;
    const released = sessions.page.remove(binding);
    const othersRemain = sessions.page.subscribers.size > 0;
    for (const child of sessions.children.values()) {
      const b = entry.bindings.get(child.sessionId);
      if (b?.kind === 'child' && child.parentId === undefined && b.parent === binding.sessionId)
        this.#dropChild(entry, b, othersRemain);
    }
    if (othersRemain) this.events.released(binding, released);
    else this.events.unused(binding.tab);
  }

  /** Removes a child subscription and the client's grandchildren below it (no events sent). */
  #dropChild(entry: ClientEntry, binding: ChildBinding, release: boolean): void {
    if (entry.bindings.get(binding.sessionId) !== binding) return;
    entry.bindings.delete(binding.sessionId);
    this.#children.stopWaitingFor(binding);
    const sessions = this.#tabs.get(binding.tab);
    for (const other of sessions?.children.values() ?? []) {
      const b = entry.bindings.get(other.sessionId);
      if (b?.kind === 'child' && other.parentId === binding.child.sessionId) this.#dropChild(entry, b, release);
    }
    const released = binding.child.state.remove(binding);
    // A child Chrome already detached needs nothing undone.
    if (release && sessions?.children.get(binding.child.sessionId) === binding.child)
      this.events.released(binding, released);
  }

  /** Tells the client a session ended, on its parent, if the client still holds the parent. */
  #announceDetach(entry: ClientEntry, binding: Binding): void {
    if (binding.parent !== '' && !entry.bindings.has(binding.parent)) return;
    say(binding.client, binding.parent, 'Target.detachedFromTarget', {
      sessionId: binding.sessionId,
      targetId: this.targetIdOf(binding),
    });
  }

  #entry(client: ClientSession): ClientEntry {
    const entry = this.#clients.get(client);
    if (!entry) throw new ClawdError('session_not_found', `client ${client.id} is not connected`);
    return entry;
  }

  #sessions(tab: TabRecord): TabSessions {
    const sessions = this.#tabs.get(tab);
    if (!sessions) throw new ClawdError('target_closed', `tab ${tab.tabId} is no longer attached`);
    return sessions;
  }
}
