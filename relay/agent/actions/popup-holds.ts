// New tabs of watched tabs held for their watches (action-watch.ts) before their first load: one
// browser-level connection of clawd's own per watched browser, auto-attached to every new page.
//
// Why: a tab's own CDP session never hears of a new tab its page opens (a target=_blank link, a
// form sent to one, window.open, a Ctrl or middle click: measured on 156), and clawd's
// Playwright is told of one only once its first load has gone. Every new page of the browser
// waits (waitForDebuggerOnStart) until asked whose it is: one a watched tab opened is adopted
// by that tab's watches (fetch-hold.ts), any other is let run at once and let go. A tab Chrome
// opens on its own loads even while it waits, so document requests are paused at the browser
// too, and its first load waits there. The cost: each new page and document request there
// waits one round trip; the connection stays while its browser does.

import type { Protocol } from 'devtools-protocol';
import { CdpSocket, type CdpEvent } from '../../browser/cdp-socket';
import type { Logger } from '../../log';
import type { BrowserEndpoint } from '../../profiles/profile-driver';
import { FetchHold, REFUSED, type HoldSession, type PausedRequest } from './fetch-hold';

/** How long the connection may take to open and to answer a command. */
const COMMAND_MS = 5_000;
/**
 * How long a browser's connection stays once no tab there is held: the next call's watch comes
 * soon in a task; ended, the browser's new tabs and loads wait for nothing (and, the person's
 * own, are no longer held by the extension).
 */
const IDLE_MS = 10_000;

type Listener = (params: any) => void;

/** One browser's connection: new pages held, and each adopted pop-up's session's events. */
class BrowserHold {
  readonly #sessions = new Map<string, Map<string, Set<Listener>>>();
  /** New pages with no opener named, by target id: whether a held tab's watches took them (their first load waits for it). */
  readonly #unnamed = new Map<string, { sessionId: string; adopted: Promise<boolean> }>();

  constructor(
    readonly socket: CdpSocket,
    /** The browser, as the page finder names it (its holds are told apart by it). */
    private readonly browser: string,
    /** It shows a new tab only once it runs (the relay): one is adopted as it comes, for its later loads. */
    private readonly late: boolean,
    private readonly log: Logger,
    /** Where the browser is the relay: its address (a held tab may already show its /blocked page). */
    private readonly relayUrl?: string,
  ) {
    socket.onEvent((event) => this.#event(event));
    // The connection gone, the new tabs it held are no longer held: their holds are forgotten.
    void socket.gone.then(() => {
      for (const sessionId of [...this.#sessions.keys()]) this.#detached(sessionId);
    });
  }

  /** A session of a target the connection is attached to, as a hold uses one. */
  session(sessionId: string): HoldSession {
    const listeners = new Map<string, Set<Listener>>();
    this.#sessions.set(sessionId, listeners);
    return {
      send: (method, params) => this.socket.send(method, params, sessionId),
      on: (event, listener) => {
        const set = listeners.get(event) ?? new Set();
        set.add(listener);
        listeners.set(event, set);
      },
      detach: async () => {
        this.#sessions.delete(sessionId);
        await this.socket.send('Target.detachFromTarget', { sessionId }).catch(() => {});
      },
      ...(this.relayUrl !== undefined ? { blockedPage: (url: string) => isBlockedPageOf(this.relayUrl!, url) } : {}),
    };
  }

  #event(event: CdpEvent): void {
    if (event.method === 'Target.attachedToTarget' && event.sessionId === undefined)
      return void this.#attached(event.params as Protocol.Target.AttachedToTargetEvent);
    if (event.method === 'Target.detachedFromTarget') return this.#detached(event.params?.sessionId as string);
    if (event.method === 'Fetch.requestPaused' && event.sessionId === undefined)
      return this.#pausedAtBrowser(event.params as PausedRequest);
    if (event.sessionId === undefined) return;
    for (const listener of this.#sessions.get(event.sessionId)?.get(event.method) ?? []) listener(event.params);
  }

  /** The target went (a new tab closed), or the connection: its hold hears it from its session's listeners. */
  #detached(sessionId: string): void {
    for (const [targetId, unnamed] of this.#unnamed)
      if (unnamed.sessionId === sessionId) this.#unnamed.delete(targetId);
    for (const listener of this.#sessions.get(sessionId)?.get('Target.detachedFromTarget') ?? []) listener({});
    this.#sessions.delete(sessionId);
  }

  /**
   * A new page: adopted by the watches of the held tab that opened it before it runs — named as
   * its opener, or, with none named (a Ctrl or middle click), the held tab that asked for a new
   * tab — else let run and let go. One that cannot be held is closed before it runs.
   */
  async #attached(attached: Protocol.Target.AttachedToTargetEvent): Promise<void> {
    const { sessionId, targetInfo, waitingForDebugger } = attached;
    const session = this.session(sessionId);
    // Not paused: there before the hold — or, shown late, a new tab already running.
    if (!waitingForDebugger && !(this.late && targetInfo.openerId !== undefined)) return session.detach();
    let adopted: boolean;
    // Where the browser is the relay, a new tab the extension holds comes paused, its first load
    // made again once it runs; one it does not, running. One held that shows the relay's /blocked
    // page already (a form sent into it, which cannot be sent again; a site the policy blocks)
    // has no load coming: adopted as loaded, or the call waited 6 s for a load that never came.
    const nothingComes = this.relayUrl !== undefined && isBlockedPageOf(this.relayUrl, targetInfo.url);
    const how = this.late
      ? waitingForDebugger && !nothingComes
        ? 'held'
        : 'late'
      : targetInfo.openerId
        ? 'paused'
        : 'early';
    const adopting = targetInfo.openerId
      ? FetchHold.adopt(targetInfo.openerId, targetInfo.targetId, session, how)
      : // Chrome opened it on its own, and its first load is on its way already (held at the browser).
        FetchHold.expected(this.browser).then((opener) =>
          opener ? FetchHold.adopt(opener, targetInfo.targetId, session, how) : false,
        );
    if (!targetInfo.openerId)
      this.#unnamed.set(targetInfo.targetId, { sessionId, adopted: adopting.catch(() => false) });
    const close = async (why: string) => {
      this.log.warn(`a new tab a watched tab opened could not be watched (${why}): it is closed`);
      await this.socket.send('Target.closeTarget', { targetId: targetInfo.targetId }).catch(() => {});
    };
    try {
      adopted = await adopting;
    } catch (error) {
      return close((error as Error).message);
    }
    // Its opener's page went as it opened it (`open(url); close()`): no watch is left to judge it.
    if (!adopted && waitingForDebugger && targetInfo.openerId && FetchHold.wentWatched(targetInfo.openerId))
      return close('the watched tab that opened it went as it did');
    if (waitingForDebugger) await this.socket.send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
    if (!adopted) await session.detach();
  }

  /**
   * A document request paused at the browser: the first load of a page Chrome opened on its own
   * waits for whose it is and is judged by that tab's watches (fetch-hold.ts `judgeFirst`); any
   * other goes at once (a held tab's own interception judges its loads).
   */
  #pausedAtBrowser(paused: PausedRequest): void {
    const { requestId } = paused;
    const go = () => void this.socket.send('Fetch.continueRequest', { requestId }).catch(() => {});
    const fail = () => void this.socket.send('Fetch.failRequest', { requestId, errorReason: REFUSED }).catch(() => {});
    const unnamed = this.#unnamed.get(paused.frameId);
    if (!unnamed) return go();
    void unnamed.adopted.then((adopted) => {
      if (!adopted || !FetchHold.judgeFirst(paused, go, fail)) go();
    });
  }
}

/** Whether `url` is the /blocked page of the relay at `relayUrl` (its CDP address: the same port, on loopback). */
export function isBlockedPageOf(relayUrl: string, url: string): boolean {
  try {
    const [relay, page] = [new URL(relayUrl), new URL(url)];
    const loopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
    return (
      page.protocol === 'http:' &&
      page.pathname === '/blocked' &&
      page.port === relay.port &&
      loopback(page.hostname) &&
      loopback(relay.hostname)
    );
  } catch {
    return false;
  }
}

export class PopupHolds {
  /** By the browser's endpoint (as the page finder names it). */
  readonly #browsers = new Map<string, Promise<BrowserHold>>();
  /** When each browser's connection was last asked for, and its idle timer. */
  readonly #used = new Map<string, { at: number; timer?: NodeJS.Timeout }>();
  readonly #stopListening: () => void;
  #closed = false;

  constructor(private readonly log: Logger) {
    this.#stopListening = FetchHold.whenIdle((key) => this.#idle(key));
  }

  /**
   * Holds the new pages of the browser `key` from now on: connects once to its socket (asked of
   * `socket` then), again after it dropped. Throws when it cannot.
   */
  async hold(key: string, socket: () => Promise<BrowserEndpoint>, late = false): Promise<void> {
    if (this.#closed) throw new Error('clawd is stopping');
    const used = this.#used.get(key);
    clearTimeout(used?.timer);
    this.#used.set(key, { at: Date.now() });
    const held = this.#browsers.get(key);
    if (held && (await held.catch(() => undefined))?.socket.open) return;
    if (this.#browsers.get(key) !== held) return this.hold(key, socket, late); // another call started one meanwhile
    const starting = socket().then((endpoint) => this.#start(key, endpoint, late));
    this.#browsers.set(key, starting);
    try {
      const browser = await starting;
      void browser.socket.gone.then(() => {
        if (this.#browsers.get(key) === starting) this.#browsers.delete(key);
      });
    } catch (error) {
      if (this.#browsers.get(key) === starting) this.#browsers.delete(key);
      throw error;
    }
  }

  /** The browser's last hold went: its connection ends once nothing held it for IDLE_MS. */
  #idle(key: string): void {
    const used = this.#used.get(key);
    if (!used || this.#closed) return;
    clearTimeout(used.timer);
    used.timer = setTimeout(
      () => {
        if (this.#used.get(key) !== used || FetchHold.holding(key)) return;
        if (Date.now() - used.at < IDLE_MS) return this.#idle(key);
        this.#used.delete(key);
        const browser = this.#browsers.get(key);
        this.#browsers.delete(key);
        void browser?.then(
          (b) => b.socket.close(),
          () => {},
        );
      },
      Math.max(0, IDLE_MS - (Date.now() - used.at)),
    );
    used.timer.unref?.();
  }

  close(): void {
    this.#closed = true;
    this.#stopListening();
    for (const { timer } of this.#used.values()) clearTimeout(timer);
    this.#used.clear();
    for (const browser of this.#browsers.values())
      void browser.then(
        (b) => b.socket.close(),
        () => {},
      );
    this.#browsers.clear();
  }

  async #start(key: string, endpoint: BrowserEndpoint, late: boolean): Promise<BrowserHold> {
    const socket = await CdpSocket.open(endpoint, COMMAND_MS, COMMAND_MS, (said) =>
      this.log.debug(`pop-up hold: ${said}`),
    );
    // Listening before it asks: a page attached right after must not go unheard (it would stay paused).
    const browser = new BrowserHold(socket, key, late, this.log, late ? endpoint.url : undefined);
    try {
      // Pages only: a pop-up is one; their frames and workers are their own watches' business.
      await socket.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: true,
        flatten: true,
        filter: [{ type: 'page' }, { exclude: true }],
      });
      // Chrome starts the first load of a tab it opens on its own (a Ctrl or middle click, a
      // script's Ctrl-click) before any debugger may pause the tab; the browser's own
      // interception still holds it (measured on 156). Not where the browser is the relay.
      if (!late)
        await socket.send('Fetch.enable', {
          patterns: [
            { resourceType: 'Document', requestStage: 'Request' },
            { resourceType: 'Document', requestStage: 'Response' },
          ],
        });
    } catch (error) {
      socket.close();
      throw error;
    }
    return browser;
  }
}
