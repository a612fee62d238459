// Chrome's one auto-attach on a handed-over tab's debugger session, shared by the relay (its
// clients' Target.setAutoAttach on the tab) and the extension itself: while the policy takes
// WebSockets offline, a service worker of the tab's sites is attached paused, before its script
// runs, and gets those rules on that session first (measured to hold its first WebSocket; a
// session of the extension's own attached to the paused worker does not: its rules are lost).
// worker-sockets.ts, which looks for workers every second, holds them from then on. The relay is
// shown no child, event or pause only the extension asked for: a worker its filter leaves out is
// the extension's alone, a pause it did not ask for is let go before it hears of the child, and
// the Network events the rules need are kept from it until one of its clients enables Network
// there (a client's Network.disable there is answered, not done: the rules need the domain on).
// A client's own network conditions there come after the rules (the first rule that matches a
// request decides, and conditions set on a session replace what it had: both measured).
//
// A change of who wants children turns Chrome's auto-attach off and on again rather than guessing
// how Chrome treats the children a new filter no longer covers: off detaches every child (the
// relay is told of the ones it knew, as on a Chrome of its own), on attaches the running ones again.
//
// A new worker held for its rules is in the book of pauses (holds.ts) until Chrome has the word to
// run: one the extension's last worker left waiting is let run by the next, after the rules.
// Kept whole (under the 400-line cap): what the relay asked and what the extension asked are merged
// into one setAutoAttach; its state is auto-attach-state.ts.

import {
  filterIncludes,
  keyOf,
  newTabState,
  OFF,
  OWN,
  type FilterEntry,
  type Params,
  type TabEvent,
  type TabState,
} from './auto-attach-state';
import { NO_BOOK, type PauseBook } from './holds';
import { socketRules } from './worker-sockets';
import type { HeldPause } from './worker-state';

export { filterIncludes, type TabEvent } from './auto-attach-state';

/** How long a new worker waits for its rules before it runs anyway. */
const SEND_MS = 2_000;

const CONDITIONS = 'Network.emulateNetworkConditions';
const CONDITIONS_BY_RULE = 'Network.emulateNetworkConditionsByRule';

export class TabAutoAttach {
  #rules: Params[] = [];
  readonly #tabs = new Map<number, TabState>();
  #own(): boolean {
    return this.#rules.length > 0;
  }

  /** Events that came before the state was restored (a debugger event can wake the worker). */
  #early: TabEvent[] | undefined;
  /** New workers the last worker of the extension left waiting, let run once the rules are known (`hold`). */
  #left: Array<{ tabId: number; sessionId: string }> = [];
  /** Whether the rules are known (the first `hold`). */
  #ruled = false;
  /** Whether `restore` came; events wait for it, and for the rules when a policy is coming. */
  #restored = false;
  #earlyTimer: ReturnType<typeof setTimeout> | undefined;

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
    /** Whether events wait for `restore` (the extension's worker; not a test). */
    waitForRestore = false,
    /** Where the new workers it holds are kept while held (holds.ts). */
    private readonly pauses: PauseBook = NO_BOOK,
  ) {
    if (waitForRestore) this.#early = [];
  }

  /**
   * After a worker start: the attached tabs, the relay's auto-attach of those it had asked, and
   * what the last worker left held (`left`): a new worker of a tab's, waiting for a word that
   * worker never said.
   */
  restore(tabIds: number[], relay: Array<[number, Params]>, left: HeldPause[] = [], rulesComing = false): void {
    for (const tabId of tabIds) this.#state(tabId);
    for (const [tabId, params] of relay) {
      const tab = this.#tabs.get(tabId);
      // Chrome has the relay's ask (or it merged with ours, told again when the policy comes).
      if (tab) [tab.relay, tab.told] = [params, keyOf(params)];
    }
    for (const pause of left)
      if ('sessionId' in pause) {
        // A tab no longer attached: its session, and the pause with it, are gone.
        if (this.#tabs.has(pause.tabId)) this.#left.push(pause);
        else this.pauses.done(pause);
      }
    if (this.#ruled) this.#letLeftRun();
    this.#restored = true;
    // A new worker's attach may be what woke this worker: with a policy coming (the last one the
    // relay sent), its events wait for the rules, or it would run without them (bounded).
    if (rulesComing && !this.#ruled) this.#earlyTimer = setTimeout(() => this.#goOn(), SEND_MS);
    else this.#goOn();
  }

  /** The events that came before the state (and the rules) were known, in order. */
  #goOn(): void {
    clearTimeout(this.#earlyTimer);
    const early = this.#early ?? [];
    this.#early = undefined;
    for (const event of early) this.event(event);
  }

  /**
   * The workers the last worker left waiting: the rules (if the policy has any), then they run.
   * The relay never heard of them: they are the extension's (shown again if the relay's
   * auto-attach starts over).
   */
  #letLeftRun(): void {
    for (const pause of this.#left.splice(0)) {
      const { tabId, sessionId } = pause;
      const tab = this.#tabs.get(tabId);
      if (!tab) {
        this.pauses.done(pause);
        continue;
      }
      tab.mine.add(sessionId);
      if (this.#own()) {
        tab.ruled.add(sessionId);
        tab.quiet.add(sessionId);
      }
      // Done once Chrome has the word (a worker that stops before could leave it unsaid).
      void (this.#own() ? this.#rulesTo(tabId, sessionId) : Promise.resolve())
        .then(() => this.#release(tabId, sessionId))
        .then(() => this.pauses.done(pause));
    }
  }

  /** The policy's WebSocket rules (network conditions); none: the extension catches no worker. */
  hold(conditions: Array<{ urlPattern: string; offline: boolean }>): Promise<void> {
    const rules = socketRules(conditions);
    const changed = JSON.stringify(rules) !== JSON.stringify(this.#rules);
    this.#rules = rules;
    this.#ruled = true;
    const work: Array<Promise<unknown>> = [];
    for (const [tabId, tab] of this.#tabs) {
      work.push(this.#apply(tabId));
      // The workers that have the old rules on their session get the new ones (none: taken off).
      if (changed) for (const child of tab.ruled) work.push(this.#rulesTo(tabId, child));
    }
    this.#letLeftRun();
    if (this.#restored) this.#goOn();
    return Promise.all(work.map((w) => w.catch(() => {}))).then(() => {});
  }

  /**
   * The relay's command on a child session: undefined to send it as it is, or the answer. A
   * worker's Network, which the rules need, is the relay's to hear once a client enables it, and
   * is never turned off under them; a client's own network conditions there follow the rules
   * (sent alone they would replace them).
   */
  relayChildCommand(
    tabId: number,
    sessionId: string,
    method: string,
    params: Params = {},
  ): Promise<unknown> | undefined {
    const tab = this.#tabs.get(tabId);
    if (!tab?.ruled.has(sessionId)) return undefined;
    if (method === 'Network.enable') tab.quiet.delete(sessionId);
    else if (method === 'Network.disable') {
      tab.quiet.add(sessionId);
      return Promise.resolve({});
    } else if (method === CONDITIONS || method === CONDITIONS_BY_RULE) {
      const theirs =
        method === CONDITIONS
          ? [{ ...params, urlPattern: '' }] // what the old command means: every request
          : ((params.matchedNetworkConditions as Params[] | undefined) ?? []);
      tab.theirs.set(sessionId, theirs);
      const ours = this.#rules.length;
      return this.#conditionsTo(tabId, sessionId).then((answer) =>
        method === CONDITIONS ? {} : { ruleIds: ((answer as { ruleIds?: string[] }).ruleIds ?? []).slice(ours) },
      );
    }
    return undefined;
  }

  /**
   * The worker behind a child session that has the rules, if the policy still holds WebSockets:
   * before the relay's last client lets go of it (Chrome then detaches that session, and its rules
   * go with it), the extension's own session on the worker takes the rules (worker-sockets.ts).
   */
  ruledWorker(tabId: number, sessionId: string): { targetId: string; url: string } | undefined {
    const tab = this.#tabs.get(tabId);
    if (!tab || !this.#own() || !tab.ruled.has(sessionId)) return undefined;
    return tab.targets.get(sessionId);
  }

  /** A tab was attached (a new session, or attached again; `fresh`: the relay's asks are gone too). */
  async attached(tabId: number, fresh: boolean): Promise<void> {
    const tab = this.#state(tabId);
    if (fresh && tab.relay) {
      tab.relay = undefined;
      this.#keep();
    }
    tab.told = '';
    tab.mine.clear();
    this.#doneHolding(tabId, tab);
    tab.ruled.clear();
    tab.quiet.clear();
    tab.theirs.clear();
    tab.targets.clear();
    await this.#apply(tabId).catch(() => {});
  }

  /** The tab is no longer attached. */
  forget(tabId: number): void {
    const tab = this.#tabs.get(tabId);
    if (tab) this.#doneHolding(tabId, tab);
    if (this.#tabs.delete(tabId)) this.#keep();
  }

  /** The tab's session started over or is gone: the new workers it held are not held by us any more. */
  #doneHolding(tabId: number, tab: TabState): void {
    for (const sessionId of tab.holding.keys()) this.pauses.done({ tabId, sessionId });
    tab.holding.clear();
  }

  /** The relay's Target.setAutoAttach on a tab's own session. */
  async relayAsked(tabId: number, params: Params): Promise<unknown> {
    const tab = this.#state(tabId);
    const was = tab.relay;
    tab.relay = params.autoAttach === true ? params : undefined;
    this.#keep();
    if (!this.#own()) {
      // Nothing of the extension's: the relay's command as it asked.
      tab.told = keyOf(params);
      return this.send(tabId, undefined, 'Target.setAutoAttach', params);
    }
    // The relay's children change: Chrome starts over (off, then on), so the relay sees the
    // children it would see alone, and the extension's are attached again as its own.
    if ((was === undefined) !== (tab.relay === undefined)) await this.#tell(tabId, OFF);
    return this.#apply(tabId);
  }

  /** A tab's event: to the relay, held back while a new worker gets its rules, or the extension's own. */
  event(event: TabEvent): void {
    if (this.#early) return void this.#early.push(event);
    const tab = this.#tabs.get(event.tabId);
    if (!tab) return void this.out(event);
    const { tabId, sessionId, method, params = {} } = event;
    if (sessionId !== undefined) {
      const held = tab.holding.get(sessionId);
      if (held) return void held.push(event);
      const restarted = method === 'Inspector.targetReloadedAfterCrash';
      // A worker Chrome stopped and started again waits for a debugger (it kept its rules): the
      // extension's runs; one of the relay's that the relay did not ask to pause runs too.
      if (tab.mine.has(sessionId)) return void (restarted && this.#release(tabId, sessionId));
      if (tab.quiet.has(sessionId) && method.startsWith('Network.')) return;
      if (restarted && tab.relay?.waitForDebuggerOnStart !== true) void this.#release(tabId, sessionId);
      return void this.out(event);
    }
    if (method === 'Target.detachedFromTarget') {
      const child = params.sessionId as string;
      tab.ruled.delete(child);
      tab.quiet.delete(child);
      tab.theirs.delete(child);
      tab.targets.delete(child);
      // Gone before the relay heard of it, or the extension's: the relay is not told.
      if (tab.holding.delete(child)) return void this.pauses.done({ tabId, sessionId: child });
      if (tab.mine.delete(child)) return;
      return void this.out(event);
    }
    if (method !== 'Target.attachedToTarget') return void this.out(event);
    const info = (params.targetInfo ?? {}) as { type?: string; targetId?: string; url?: string };
    const child = params.sessionId as string;
    if (info.type !== 'service_worker' || !this.#own()) return void this.#attachedChild(tab, event, []);
    const held: TabEvent[] = [];
    tab.holding.set(child, held);
    // Kept while held: a next worker of the extension lets it run should this one stop meanwhile.
    this.pauses.add({ tabId, sessionId: child });
    tab.ruled.add(child);
    tab.quiet.add(child);
    if (info.targetId !== undefined) tab.targets.set(child, { targetId: info.targetId, url: info.url ?? '' });
    void this.#rulesTo(tabId, child)
      .catch(() => {})
      .then(() => {
        // Detached meanwhile (or the session started over): nothing to say.
        if (tab.holding.get(child) !== held) return;
        tab.holding.delete(child);
        // Done once Chrome has the word to run, or the relay the pause (a worker that stops
        // before could leave it unsaid).
        void this.#attachedChild(tab, event, held).then(() => this.pauses.done({ tabId, sessionId: child }));
      });
  }

  /** A child Chrome attached: the relay's, or the extension's alone; running unless the relay wants it paused. */
  #attachedChild(tab: TabState, event: TabEvent, held: TabEvent[]): Promise<unknown> {
    const params = event.params ?? {};
    const child = params.sessionId as string;
    const type = (params.targetInfo as { type?: string } | undefined)?.type;
    const waiting = params.waitingForDebugger === true;
    // A service worker Chrome says does not wait may wait all the same: one paused at its start
    // for a session that then ended (the extension reloaded while it held it) had its script
    // fetched but runs only once a session says so, and is attached again as not waiting
    // (measured on 150 and 156). To one that runs, the word is nothing.
    const mayWait = !waiting && type === 'service_worker';
    if (!tab.relay || !filterIncludes(tab.relay.filter, type)) {
      tab.mine.add(child);
      return waiting || mayWait ? this.#release(event.tabId, child) : Promise.resolve();
    }
    // Paused for the extension's sake only: it runs, and the relay is told it does not wait.
    let released: Promise<unknown> = Promise.resolve();
    if (waiting && tab.relay.waitForDebuggerOnStart !== true) {
      released = this.#release(event.tabId, child);
      this.out({ ...event, params: { ...params, waitingForDebugger: false } });
    } else {
      if (mayWait) released = this.#release(event.tabId, child);
      this.out(event);
    }
    for (const later of held) this.event(later);
    return released;
  }

  /** Chrome's auto-attach for the tab: the relay's (with service workers, paused, while the extension catches them), or the extension's alone. */
  #apply(tabId: number): Promise<unknown> {
    const tab = this.#state(tabId);
    const relay = tab.relay;
    let params = OFF;
    if (relay && this.#own())
      params = {
        ...relay,
        waitForDebuggerOnStart: true,
        ...(filterIncludes(relay.filter, 'service_worker')
          ? {}
          : { filter: [{ type: 'service_worker' }, ...(relay.filter as FilterEntry[])] }),
      };
    else if (relay) params = relay;
    else if (this.#own()) params = OWN;
    // A session no one has told anything auto-attaches nothing: it need not be told so.
    if (tab.told === '' && params === OFF) return Promise.resolve({});
    return this.#tell(tabId, params);
  }

  #tell(tabId: number, params: Params): Promise<unknown> {
    const tab = this.#state(tabId);
    const told = keyOf(params);
    if (tab.told === told) return Promise.resolve({});
    tab.told = told;
    return this.send(tabId, undefined, 'Target.setAutoAttach', params);
  }

  /** The rules to a worker's session, bounded: a new one waits for them, and must not wait for good. */
  async #rulesTo(tabId: number, child: string): Promise<void> {
    // Network.enable is not awaited: a worker waiting for its debugger answers it only once it runs.
    void this.send(tabId, child, 'Network.enable').catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#conditionsTo(tabId, child),
      new Promise((resolve) => (timer = setTimeout(resolve, SEND_MS))),
    ]).catch((error: Error) => console.warn(`clawd: a new worker's WebSocket rules: ${error.message}`));
    clearTimeout(timer);
  }

  /** A ruled worker's session: the rules, then what the relay's clients set there. */
  #conditionsTo(tabId: number, child: string): Promise<unknown> {
    const theirs = this.#tabs.get(tabId)?.theirs.get(child) ?? [];
    return this.send(tabId, child, CONDITIONS_BY_RULE, { matchedNetworkConditions: [...this.#rules, ...theirs] });
  }

  /** The word to run (answered, or failed: a child gone), once it is said. */
  #release(tabId: number, child: string): Promise<unknown> {
    return this.send(tabId, child, 'Runtime.runIfWaitingForDebugger').catch(() => {});
  }

  #state(tabId: number): TabState {
    let tab = this.#tabs.get(tabId);
    if (!tab) this.#tabs.set(tabId, (tab = newTabState()));
    return tab;
  }

  #keep(): void {
    this.keep([...this.#tabs].flatMap(([tabId, tab]) => (tab.relay ? [[tabId, tab.relay] as [number, Params]] : [])));
  }
}
