// Who is attached to what. Every client's session ids (its bindings) and, per tab, the debuggee
// state of its page and of each child target (out-of-process iframe, worker) with the client
// sessions subscribed to it. A page or child binding IS its subscription: one object, indexed
// by the client's session id and by the debuggee, and only this file changes either index.
// It is the one place that attaches and detaches client sessions, and so the only one that
// tells clients Target.attachedToTarget and Target.detachedFromTarget. What a leaving
// subscription leaves behind on the tab is reported through `events`; sending the clean-up
// commands is the tab commands' job. Longer than our usual file on purpose: every attach,
// detach and lookup stays beside the two indexes it must keep in step.

import type { Protocol } from 'devtools-protocol';
import { ClawdError } from '../errors';
import { say } from './client-events';
import type { ClientSession } from './client-session';
import { DebuggeeState, type Released } from './debuggee-state';
import { matchesFilter, pageTargetInfo, tabTargetInfo, type TargetFilterEntry } from './target-info';
import { mintId, type TabRecord } from './target-registry';

interface BindingBase {
  readonly client: ClientSession;
  /** The id the client uses ('' for its root). */
  readonly sessionId: string;
  /** The session its attach was announced on ('' for the root). */
  readonly parent: string;
}
export interface BrowserBinding extends BindingBase {
  readonly kind: 'browser';
}
/** The synthetic `tab` target above a page (Puppeteer attaches there first). */
export interface TabTargetBinding extends BindingBase {
  readonly kind: 'tab';
  readonly tab: TabRecord;
  autoAttach: boolean;
}
export interface PageBinding extends BindingBase {
  readonly kind: 'page';
  readonly tab: TabRecord;
}
export interface ChildBinding extends BindingBase {
  readonly kind: 'child';
  readonly tab: TabRecord;
  readonly child: ChildTarget;
}
/** A client's view of one debuggee (a page or a child target). */
export type Subscription = PageBinding | ChildBinding;
/** What a session id means for a client. */
export type Binding = BrowserBinding | TabTargetBinding | Subscription;

export interface ChildTarget {
  /** Chrome's own session id for the child; clients use the same id. */
  readonly sessionId: string;
  /** The child session it was attached under; undefined when attached under the page. */
  readonly parentId: string | undefined;
  targetInfo: Protocol.Target.TargetInfo;
  readonly state: DebuggeeState<Subscription>;
  /**
   * The clients told it waits for them (waitingForDebugger) that still hold it. Chrome lets a
   * paused target run when the session that paused it goes; here the extension's one session
   * stays, so when the last of these goes the relay lets it run (a no-op if one resumed it).
   */
  readonly toldWaiting: Set<ClientSession>;
}

/** A client's root-level requests. */
export interface ClientRoot {
  /** Root Target.setAutoAttach: new tabs are attached and announced to this client. */
  autoAttach: TargetFilterEntry[] | undefined;
  /** Its root auto-attach asked new targets to wait for it (waitForDebuggerOnStart). */
  pauses: boolean;
  /** Root Target.setDiscoverTargets: this client gets targetCreated/Destroyed/InfoChanged. */
  discover: TargetFilterEntry[] | undefined;
}

interface ClientEntry extends ClientRoot {
  // '' is the root, set when the client is added: the browser for /cdp, the page for a
  // page-scoped socket. Other entries are added by attaches and removed by detaches or when
  // their tab goes away.
  readonly bindings: Map<string, Binding>;
}

interface TabSessions {
  readonly page: DebuggeeState<Subscription>;
  // Added when a Target.attachedToTarget for a child is delivered, removed on its detach or
  // when the tab gets a fresh debugger session.
  readonly children: Map<string, ChildTarget>;
}

export interface SessionTableEvents {
  /** A subscription left while others stay on its debuggee: undo what only it needed. */
  released(sub: Subscription, released: Released): void;
  /** The last page subscription of a tab left: nobody drives the tab any more. */
  unused(tab: TabRecord): void;
  /** A child Chrome paused for a debugger that no client took: let it run. */
  unclaimed(tab: TabRecord, childId: string): void;
}

const RANK = { child: 0, page: 1, tab: 2, browser: 3 } as const;

/**
 * Children that Chrome reports under a page's auto-attach (measured: a page's service worker)
 * but that a browser shows at its root, where Playwright looks for them (context.serviceWorkers()).
 * They are announced to clients with root auto-attach, never under the page.
 */
const ROOT_CHILD_TYPES = new Set(['service_worker']);

export class SessionTable {
  // Added when a client connects, removed when its socket closes.
  readonly #clients = new Map<ClientSession, ClientEntry>();
  // Added when the registry takes a tab, removed when the tab goes.
  readonly #tabs = new Map<TabRecord, TabSessions>();
  // Root-level children (service workers) by target id, oldest first: one target reached through
  // several tabs (two tabs of a site share its worker) is attached once per tab by Chrome, but a
  // client must see it once (Playwright throws "Duplicate target" on a second attach). The first is
  // shown; the others wait, and the next is shown when the shown one goes. Entries follow the
  // tabs' children: added in addChild, removed with them.
  readonly #rootTargets = new Map<string, ChildTarget[]>();

  constructor(
    private readonly browserTargetId: string,
    private readonly events: SessionTableEvents,
  ) {}

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
    for (const binding of entry.bindings.values()) if (binding.kind === 'child') this.#stopWaitingFor(binding);
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
    if (!this.#tabs.has(tab)) this.#tabs.set(tab, { page: new DebuggeeState(), children: new Map() });
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
    for (const child of sessions.children.values()) this.#forgetRoot(child);
  }

  /** The tab got a fresh debugger session: nothing is enabled and no child is attached. */
  resetTab(tab: TabRecord): void {
    const sessions = this.#tabs.get(tab);
    if (!sessions) return;
    sessions.page.resetSession();
    // Nobody used the tab: its children go quietly (a worker it showed is shown again when Chrome attaches it anew).
    for (const child of sessions.children.values()) this.#forgetRoot(child, false);
    sessions.children.clear();
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
      if (child.parentId === undefined) this.childDetached(tab, child.sessionId);
    sessions.page.contexts.clear();
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
      waitingForDebugger: false,
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

  /** Chrome attached a child target: it is announced to every subscription that auto-attaches on its parent. */
  addChild(tab: TabRecord, parentId: string | undefined, attached: Protocol.Target.AttachedToTargetEvent): void {
    const sessions = this.#tabs.get(tab);
    const parent = parentId === undefined ? sessions?.page : sessions?.children.get(parentId)?.state;
    if (!sessions || !parent) {
      // Under a session nobody holds any more: nobody will be told, so nobody would let it run.
      if (attached.waitingForDebugger) this.letRun(tab, attached.sessionId);
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
    if (ROOT_CHILD_TYPES.has(child.targetInfo.type)) {
      const same = this.#rootTargets.get(child.targetInfo.targetId) ?? [];
      this.#rootTargets.set(child.targetInfo.targetId, [...same, child]);
      if (same.length > 0) {
        // Already shown through another tab: this session waits its turn, and runs meanwhile.
        if (attached.waitingForDebugger) this.events.unclaimed(tab, child.sessionId);
        return;
      }
      this.#tellDiscoverers('Target.targetCreated', child.targetInfo);
      let claimed = false;
      for (const client of this.#clients.keys())
        claimed = this.#announceAtRoot(client, tab, child, attached.waitingForDebugger) || claimed;
      if (!claimed && attached.waitingForDebugger) this.events.unclaimed(tab, child.sessionId);
      return;
    }
    // Each client is told of a pause only if it asked for pauses; one nobody was told of is let run.
    let claimed = false;
    for (const [sub, pauses] of parent.autoAttach) {
      // A client gone is nobody to tell, nor to pause for. Its auto-attach can outlive it here (seen
      // in the target fuzz, seed 707819771: a raw client that paused new targets left, then a
      // cross-site iframe came), and announcing to it threw inside an event flush.
      if (!this.#clients.has(sub.client)) {
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

  /** A client turned root auto-attach on: show it the root-level children (service workers), each once. */
  announceRootChildren(client: ClientSession): void {
    for (const [shown] of this.#rootTargets.values()) {
      const tab = shown && this.#tabOfChild(shown);
      if (shown && tab) this.#announceAtRoot(client, tab, shown, false);
    }
  }

  /** The root-level children, each target once, for Target.getTargets. */
  rootChildren(): Protocol.Target.TargetInfo[] {
    return [...this.#rootTargets.values()].flatMap(([shown]) => (shown ? [shown.targetInfo] : []));
  }

  /** A root-level child went: the next session of the same target (another tab's) is shown to the clients (`promote`). */
  #forgetRoot(child: ChildTarget, promote = true): void {
    if (!ROOT_CHILD_TYPES.has(child.targetInfo.type)) return;
    const list = this.#rootTargets.get(child.targetInfo.targetId);
    if (!list) return;
    const wasShown = list[0] === child;
    const rest = list.filter((c) => c !== child);
    if (rest.length === 0) this.#rootTargets.delete(child.targetInfo.targetId);
    else this.#rootTargets.set(child.targetInfo.targetId, rest);
    const next = rest[0];
    if (!next) this.#tellDiscoverers('Target.targetDestroyed', child.targetInfo);
    const tab = next && this.#tabOfChild(next);
    if (!promote || !wasShown || !next || !tab) return;
    for (const client of this.#clients.keys()) this.#announceAtRoot(client, tab, next, false);
  }

  /** A root-level target came or went, for the clients that discover its type (Target.setDiscoverTargets). */
  #tellDiscoverers(method: 'Target.targetCreated' | 'Target.targetDestroyed', info: Protocol.Target.TargetInfo): void {
    for (const [client, entry] of this.#clients) {
      if (!entry.discover || !matchesFilter(info.type, entry.discover)) continue;
      if (method === 'Target.targetCreated') say(client, '', method, { targetInfo: info });
      else say(client, '', method, { targetId: info.targetId });
    }
  }

  #tabOfChild(child: ChildTarget): TabRecord | undefined {
    for (const [tab, sessions] of this.#tabs) if (sessions.children.get(child.sessionId) === child) return tab;
    return undefined;
  }

  /** Announces a root-level child to a browser client whose root auto-attach covers its type; true when it told the client the child waits for it. */
  #announceAtRoot(client: ClientSession, tab: TabRecord, child: ChildTarget, paused: boolean): boolean {
    const entry = this.#clients.get(client);
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

  /** A repeated auto-attach re-announces nothing on Chrome (measured): show `sub` the children it lacks. */
  announceChildren(sub: Subscription): void {
    // Runs when Chrome answers the auto-attach: the client or the tab may have gone meanwhile
    // (a detour, the tab closed), and a throw here would reach no caller.
    const entry = this.#clients.get(sub.client);
    const sessions = this.#tabs.get(sub.tab);
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
    this.#entry(client).bindings.set(child.sessionId, binding);
    say(client, parent.sessionId, 'Target.attachedToTarget', {
      sessionId: child.sessionId,
      targetInfo: child.targetInfo,
      waitingForDebugger,
    });
    if (child.state.scriptLoaded) say(client, child.sessionId, 'Inspector.workerScriptLoaded', {});
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

  /** Chrome detached a child target: its subscribers are told, its own children go first. */
  childDetached(tab: TabRecord, childId: string): void {
    const sessions = this.#tabs.get(tab);
    const child = sessions?.children.get(childId);
    if (!sessions || !child) return;
    for (const other of [...sessions.children.values()])
      if (other.parentId === childId) this.childDetached(tab, other.sessionId);
    sessions.children.delete(childId);
    for (const sub of child.state.subscribers) {
      const entry = this.#clients.get(sub.client);
      if (entry?.bindings.get(childId) !== sub) continue;
      entry.bindings.delete(childId);
      say(sub.client, sub.parent, 'Target.detachedFromTarget', {
        sessionId: childId,
        targetId: child.targetInfo.targetId,
      });
    }
    this.#forgetRoot(child); // after its detach: a client sees the target go before it comes back
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
    this.#stopWaitingFor(binding);
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

  /** Lets a paused child run that nobody will be told of. */
  letRun(tab: TabRecord, childId: string): void {
    this.events.unclaimed(tab, childId);
  }

  /** The client no longer holds a child it was told waits for it: the last such client gone, the child runs. */
  #stopWaitingFor(binding: ChildBinding): void {
    const { child, tab } = binding;
    if (!child.toldWaiting.delete(binding.client) || child.toldWaiting.size > 0) return;
    if (this.#tabs.get(tab)?.children.get(child.sessionId) === child) this.events.unclaimed(tab, child.sessionId);
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
