// Chrome's one auto-attach on a handed-over tab's debugger session, shared by the relay (its
// clients' Target.setAutoAttach on the tab) and the extension itself: while the policy takes
// WebSockets offline, a service worker of the tab's sites is attached paused, before its script
// runs, and gets those rules first (worker-sockets.ts finds workers by looking every second, which
// a brand-new worker's first WebSocket escapes; measured). What only the extension asked for — its
// children, their events, a pause the relay did not ask for — is never shown to the relay.
//
// A change of who wants what turns Chrome's auto-attach off and on again rather than guessing how
// Chrome treats the children a new filter no longer covers: off detaches every child (the relay
// is told of the ones it knew, as on a Chrome of its own), on attaches the running ones again.

import { socketRules } from './worker-sockets';

type Params = Record<string, unknown>;
export type TabEvent = { tabId: number; sessionId?: string; method: string; params?: Params };

/** How long a new worker waits for its rules before it runs anyway. */
const SEND_MS = 2_000;
/** What the extension asks for alone: service workers only, paused before they run. */
const OWN: Params = {
  autoAttach: true,
  flatten: true,
  waitForDebuggerOnStart: true,
  filter: [{ type: 'service_worker' }],
};
const OFF: Params = { autoAttach: false, waitForDebuggerOnStart: false };

interface TabState {
  /** The relay's last Target.setAutoAttach on the tab (autoAttach true), or undefined. */
  relay: Params | undefined;
  /** What Chrome was last told (JSON), '' for nothing since the session started. */
  told: string;
  /** Children Chrome attached that the relay was not shown. */
  readonly mine: Set<string>;
  /** Events waiting while a new worker gets its rules (they go out in order after it). */
  queue?: TabEvent[];
}

export class TabAutoAttach {
  #rules: Params[] = [];
  readonly #tabs = new Map<number, TabState>();

  constructor(
    /** Sends a command on the tab's session or a child's. */
    private readonly send: (
      tabId: number,
      sessionId: string | undefined,
      method: string,
      params?: Params,
    ) => Promise<unknown>,
    /** An event for the relay. */
    private readonly out: (event: TabEvent) => void,
    /** The relay's auto-attach per tab, kept across worker restarts (the sessions outlive it). */
    private readonly keep: (relay: Array<[number, Params]>) => void = () => {},
  ) {}

  /** The relay's auto-attach of tabs still attached since before the worker restarted. */
  restore(relay: Array<[number, Params]>): void {
    for (const [tabId, params] of relay) this.#state(tabId).relay = params;
  }

  /** The policy's WebSocket rules (network conditions); none: the extension wants no child. */
  hold(conditions: Array<{ urlPattern: string; offline: boolean }>): Promise<void> {
    this.#rules = socketRules(conditions);
    return Promise.all([...this.#tabs.keys()].map((tabId) => this.#apply(tabId).catch(() => {}))).then(() => {});
  }

  /** A tab was attached (or its session is fresh, or it was attached again): what Chrome should know. */
  async attached(tabId: number, fresh: boolean): Promise<void> {
    const tab = this.#state(tabId);
    if (fresh) {
      tab.relay = undefined;
      tab.mine.clear();
      this.#keep();
    }
    tab.told = '';
    await this.#apply(tabId).catch(() => {});
  }

  /** The tab is no longer attached. */
  forget(tabId: number): void {
    if (this.#tabs.delete(tabId)) this.#keep();
  }

  /** The relay's Target.setAutoAttach on a tab's own session. */
  async relayAsked(tabId: number, params: Params): Promise<unknown> {
    const tab = this.#state(tabId);
    const was = tab.relay;
    tab.relay = params.autoAttach === true ? params : undefined;
    this.#keep();
    if (this.#rules.length === 0) {
      tab.told = JSON.stringify(params);
      return this.send(tabId, undefined, 'Target.setAutoAttach', params);
    }
    // The relay's children change: Chrome starts over (off, then on), so the relay sees the
    // children it would see alone, and the extension's are attached again as its own.
    if ((was === undefined) !== (tab.relay === undefined)) await this.#tell(tabId, OFF);
    return this.#apply(tabId);
  }

  /** A tab's event: to the relay, held back, or the extension's own. */
  event(event: TabEvent): void {
    const tab = this.#tabs.get(event.tabId);
    if (!tab) {
      this.out(event);
      return;
    }
    // In order, and at once unless a new worker is getting its rules (the relay orders a tab's
    // events against its commands' answers as they arrive).
    if (tab.queue) return void tab.queue.push(event);
    const held = this.#event(tab, event);
    if (held) this.#drainAfter(tab, held);
  }

  #drainAfter(tab: TabState, held: Promise<void>): void {
    tab.queue ??= [];
    void held.then(
      () => this.#drain(tab),
      () => this.#drain(tab),
    );
  }

  #drain(tab: TabState): void {
    while (tab.queue && tab.queue.length > 0) {
      const held = this.#event(tab, tab.queue.shift()!);
      if (held) return this.#drainAfter(tab, held);
    }
    tab.queue = undefined;
  }

  /** One event; a promise when the ones after it must wait (a new worker getting its rules). */
  #event(tab: TabState, event: TabEvent): Promise<void> | void {
    const { tabId, sessionId, method, params = {} } = event;
    const restarted = method === 'Inspector.targetReloadedAfterCrash' && sessionId !== undefined;
    if (sessionId !== undefined && tab.mine.has(sessionId)) {
      // Started again after Chrome stopped it: it kept its rules, it waits for no one.
      if (restarted) this.#release(tabId, sessionId);
      return;
    }
    if (sessionId !== undefined || (method !== 'Target.attachedToTarget' && method !== 'Target.detachedFromTarget')) {
      // A worker the relay knows, started again, waits for a debugger: one the relay did not ask
      // to pause is let go (it kept its rules).
      if (restarted && this.#rules.length > 0 && tab.relay?.waitForDebuggerOnStart !== true)
        this.#release(tabId, sessionId);
      this.out(event);
      return;
    }
    const child = params.sessionId as string;
    if (method === 'Target.detachedFromTarget') {
      if (!tab.mine.delete(child)) this.out(event);
      return;
    }
    const info = params.targetInfo as { type?: string } | undefined;
    if (info?.type === 'service_worker' && this.#rules.length > 0)
      return this.#rulesTo(tabId, child).then(() => this.#attachedChild(tab, event));
    this.#attachedChild(tab, event);
  }

  /** A child Chrome attached: the relay's, or the extension's alone; running unless the relay wants it paused. */
  #attachedChild(tab: TabState, event: TabEvent): void {
    const params = event.params ?? {};
    const child = params.sessionId as string;
    const waiting = params.waitingForDebugger === true;
    if (tab.relay === undefined) {
      tab.mine.add(child);
      if (waiting) this.#release(event.tabId, child);
      return;
    }
    // Paused for the extension's sake only: it runs, and the relay is told it does not wait.
    if (waiting && tab.relay.waitForDebuggerOnStart !== true) {
      this.#release(event.tabId, child);
      this.out({ ...event, params: { ...params, waitingForDebugger: false } });
      return;
    }
    this.out(event);
  }

  /** Chrome's auto-attach for the tab: the relay's, paused for the extension's rules when it has any. */
  #apply(tabId: number): Promise<unknown> {
    const tab = this.#state(tabId);
    const own = this.#rules.length > 0;
    const params = tab.relay ? (own ? { ...tab.relay, waitForDebuggerOnStart: true } : tab.relay) : own ? OWN : OFF;
    // A fresh session auto-attaches nothing: it need not be told so.
    if (tab.told === '' && params === OFF) return Promise.resolve({});
    return this.#tell(tabId, params);
  }

  #tell(tabId: number, params: Params): Promise<unknown> {
    const tab = this.#state(tabId);
    const told = JSON.stringify(params);
    if (tab.told === told) return Promise.resolve({});
    tab.told = told;
    return this.send(tabId, undefined, 'Target.setAutoAttach', params);
  }

  /** The rules to a new worker, bounded: it waits for them, and must not wait for good. */
  async #rulesTo(tabId: number, child: string): Promise<void> {
    // Network.enable is not awaited: a worker waiting for its debugger answers it only once it runs.
    void this.send(tabId, child, 'Network.enable').catch(() => {});
    const sent = this.send(tabId, child, 'Network.emulateNetworkConditionsByRule', {
      matchedNetworkConditions: this.#rules,
    }).catch((error: Error) => console.warn(`clawd: a new worker's WebSocket rules: ${error.message}`));
    await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, SEND_MS))]);
  }

  #release(tabId: number, child: string): void {
    void this.send(tabId, child, 'Runtime.runIfWaitingForDebugger').catch(() => {});
  }

  #state(tabId: number): TabState {
    let tab = this.#tabs.get(tabId);
    if (!tab) {
      tab = { relay: undefined, told: '', mine: new Set() };
      this.#tabs.set(tabId, tab);
    }
    return tab;
  }

  #keep(): void {
    this.keep([...this.#tabs].flatMap(([tabId, tab]) => (tab.relay ? [[tabId, tab.relay] as [number, Params]] : [])));
  }
}
