// Chrome's one request interception (`Fetch`) on a handed-over tab's debugger session, shared by
// the relay (its clients' Fetch.enable on the tab) and the extension: while the policy takes
// WebSockets offline, a worker script's request is held (bounded) while worker-sockets.ts tries
// to stop the new shared worker before its first line (`starting`) — a shared worker is never
// reported to a tab's session, and its script request is the one moment it exists and has not
// run. Chrome starts it unpaused all the same, so that is a race (DEVELOPERS.md). A request the
// relay's patterns do not cover is never shown to the relay: the extension lets it go itself. A
// request held is in the book of pauses (holds.ts) until it goes on: one the extension's last
// worker left held goes on when the next starts.

import { NO_BOOK, type PauseBook } from './holds';
import type { HeldPause } from './worker-state';

type Params = Record<string, unknown>;
export type TabEvent = { tabId: number; sessionId?: string; method: string; params?: Params };

interface Pattern {
  urlPattern?: string;
  resourceType?: string;
  requestStage?: string;
}

/** What the extension holds: requests of type Other (a worker's script is one), before they leave. */
const OWN: Pattern = { urlPattern: '*', resourceType: 'Other', requestStage: 'Request' };

/** Whether a Fetch pattern (`*` and `?` wildcards, `\` escapes) covers a paused request. */
export function patternCovers(pattern: Pattern, url: string, resourceType: string, atResponse: boolean): boolean {
  if ((pattern.requestStage ?? 'Request') !== (atResponse ? 'Response' : 'Request')) return false;
  if (pattern.resourceType !== undefined && pattern.resourceType !== resourceType) return false;
  const glob = pattern.urlPattern ?? '*';
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) source += glob[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(url);
}

export class TabFetch {
  #own = false;
  /** The relay's Fetch.enable per tab (its params), while on. */
  readonly #relay = new Map<number, Params>();
  /** What Chrome was last told per tab (JSON; absent: nothing since the session started). */
  readonly #told = new Map<number, string>();
  readonly #tabs = new Set<number>();

  constructor(
    /** Sends a command on the tab's own session. */
    private readonly send: (tabId: number, method: string, params?: Params) => Promise<unknown>,
    /** An event for the relay. */
    private readonly out: (event: TabEvent) => void,
    /** A worker's script is about to be fetched: resolves once it is caught (bounded there). */
    private readonly starting: (url: string) => Promise<void>,
    /** The relay's Fetch per tab, kept across worker restarts (the sessions outlive it). */
    private readonly keep: (relay: Array<[number, Params]>) => void = () => {},
    /** Where the requests it holds are kept while held (holds.ts). */
    private readonly pauses: PauseBook = NO_BOOK,
  ) {}

  /**
   * After a worker start: the attached tabs, the relay's Fetch on those it had asked, and the
   * requests the last worker left held (`left`), which go on now: the worker it was catching is
   * found by worker-sockets.ts's look every second instead.
   */
  restore(tabIds: number[], relay: Array<[number, Params]>, left: HeldPause[] = []): void {
    for (const tabId of tabIds) this.#tabs.add(tabId);
    for (const [tabId, params] of relay)
      if (this.#tabs.has(tabId)) {
        this.#relay.set(tabId, params);
        this.#told.set(tabId, JSON.stringify(params)); // what Chrome has, unless merged with ours (told again)
      }
    for (const pause of left)
      if ('requestId' in pause)
        // A tab no longer attached: its session, and the pause with it, are gone.
        void (
          this.#tabs.has(pause.tabId)
            ? this.send(pause.tabId, 'Fetch.continueRequest', { requestId: pause.requestId })
            : Promise.resolve()
        )
          .catch(() => {})
          .then(() => this.pauses.done(pause));
  }

  #keep(): void {
    this.keep([...this.#relay]);
  }

  /** Whether the extension holds requests (the policy takes WebSockets offline). */
  hold(own: boolean): Promise<void> {
    this.#own = own;
    return Promise.all([...this.#tabs].map((tabId) => this.#apply(tabId).catch(() => {}))).then(() => {});
  }

  /** A tab was attached, or its session is fresh (`fresh`: nothing of the relay's is on it). */
  async attached(tabId: number, fresh: boolean): Promise<void> {
    this.#tabs.add(tabId);
    // Attached again after a detour (a new session: the relay asks again) or afresh: told nothing yet.
    this.#told.delete(tabId);
    if (fresh && this.#relay.delete(tabId)) this.#keep();
    await this.#apply(tabId).catch(() => {});
  }

  forget(tabId: number): void {
    this.#tabs.delete(tabId);
    this.#told.delete(tabId);
    if (this.#relay.delete(tabId)) this.#keep();
  }

  /** The relay's Fetch.enable or Fetch.disable on a tab's own session. */
  async relayAsked(tabId: number, method: 'Fetch.enable' | 'Fetch.disable', params: Params): Promise<unknown> {
    this.#tabs.add(tabId);
    const was = this.#relay.has(tabId);
    if (method === 'Fetch.enable') this.#relay.set(tabId, params);
    else this.#relay.delete(tabId);
    if (was !== this.#relay.has(tabId) || method === 'Fetch.enable') this.#keep();
    if (!this.#own) {
      // Nothing of the extension's: the relay's command as it asked.
      this.#told.set(tabId, method === 'Fetch.disable' ? 'off' : JSON.stringify(params));
      return this.send(tabId, method, method === 'Fetch.disable' ? undefined : params);
    }
    if (method === 'Fetch.disable' && was) {
      // Chrome lets every request the relay held go only on a disable: then the extension's own again.
      this.#told.set(tabId, 'off');
      await this.send(tabId, 'Fetch.disable');
    }
    return this.#apply(tabId);
  }

  /** A tab event: a paused request is the relay's, the extension's, or both; others pass. */
  event(event: TabEvent): void {
    const { tabId, sessionId, method } = event;
    if (sessionId !== undefined || !this.#tabs.has(tabId)) return this.out(event);
    if (method !== 'Fetch.requestPaused' && method !== 'Fetch.authRequired') return this.out(event);
    // Nothing of the extension's: the relay's, as before (its patterns are the only ones).
    if (!this.#own && this.#relay.has(tabId)) return this.out(event);
    const p = event.params ?? {};
    const requestId = p.requestId;
    const url = (p.request as { url?: string } | undefined)?.url ?? '';
    const atResponse = p.responseStatusCode !== undefined || p.responseErrorReason !== undefined;
    // Read when the request goes on: the relay may have changed its patterns meanwhile.
    const relayWants = () => {
      const relay = this.#relay.get(tabId);
      const patterns = (relay?.patterns as Pattern[] | undefined) ?? [{}];
      return (
        relay !== undefined &&
        patterns.some((pattern) => patternCovers(pattern, url, String(p.resourceType), atResponse))
      );
    };
    if (method === 'Fetch.authRequired') {
      if (relayWants()) return this.out(event);
      void this.send(tabId, 'Fetch.continueWithAuth', {
        requestId,
        authChallengeResponse: { response: 'Default' },
      }).catch(() => {});
      return;
    }
    /** The request to the relay, or on its way (answered, or failed: a request gone). */
    const goOn = (): Promise<unknown> => {
      if (relayWants()) return Promise.resolve(this.out(event));
      return this.send(tabId, 'Fetch.continueRequest', { requestId }).catch(() => {});
    };
    if (this.#own && !atResponse && p.resourceType === 'Other') {
      // Kept while held: a next worker of the extension lets it go should this one stop meanwhile.
      const pause = { tabId, requestId: String(requestId) };
      this.pauses.add(pause);
      // Done once Chrome has the word to go on, or the relay the request (a worker that stops
      // before could leave it unsaid).
      void this.starting(url)
        .catch(() => {})
        .then(goOn)
        .then(() => this.pauses.done(pause));
    } else void goOn();
  }

  /** Chrome's Fetch for the tab: the relay's patterns with the extension's, or either alone. */
  #apply(tabId: number): Promise<unknown> {
    const relay = this.#relay.get(tabId);
    let method = 'Fetch.enable';
    let params: Params = {};
    if (relay && this.#own) {
      const patterns = (relay.patterns as Pattern[] | undefined) ?? [{}];
      params = { ...relay, patterns: [...patterns, OWN] };
    } else if (relay) params = relay;
    else if (this.#own) params = { patterns: [OWN] };
    else method = 'Fetch.disable';
    const told = method === 'Fetch.disable' ? 'off' : JSON.stringify(params);
    // A fresh session intercepts nothing: it need not be told so.
    if ((this.#told.get(tabId) ?? 'off') === told) return Promise.resolve({});
    this.#told.set(tabId, told);
    return this.send(tabId, method, method === 'Fetch.disable' ? undefined : params);
  }
}
