// Pop-ups of watched tabs held for their watch (action-watch.ts). A tab's own CDP session never
// hears of a new tab its page opens (a link's target=_blank, a form sent to one, window.open: no
// auto-attach of a page reaches them, measured on 156), and clawd's Playwright is told of one only
// once its first load has gone. So clawd keeps one browser-level connection of its own per browser
// a watch is on, auto-attached to every new page and holding it (waitForDebuggerOnStart) until
// asked whose it is: a page opened by a watched tab is adopted by that tab's watches
// (fetch-hold.ts `adopt`) before it runs, any other is let run at once and let go.

import type { Protocol } from 'devtools-protocol';
import { CdpSocket, type CdpEvent } from '../../browser/cdp-socket';
import type { Logger } from '../../log';
import type { BrowserEndpoint } from '../../profiles/profile-driver';
import { FetchHold, type HoldSession } from './fetch-hold';

/** How long the connection may take to open and to answer a command. */
const COMMAND_MS = 5_000;

type Listener = (params: any) => void;

/** One browser's connection: new pages held, and each adopted pop-up's session's events. */
class BrowserHold {
  readonly #sessions = new Map<string, Map<string, Set<Listener>>>();

  constructor(
    readonly socket: CdpSocket,
    private readonly log: Logger,
  ) {
    socket.onEvent((event) => this.#event(event));
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
    };
  }

  #event(event: CdpEvent): void {
    if (event.method === 'Target.attachedToTarget' && event.sessionId === undefined)
      return void this.#attached(event.params as Protocol.Target.AttachedToTargetEvent);
    if (event.method === 'Target.detachedFromTarget') {
      // The target went (a pop-up closed): its hold hears it from its own session's listeners.
      const sessionId = event.params?.sessionId as string;
      for (const listener of this.#sessions.get(sessionId)?.get('Target.detachedFromTarget') ?? []) listener({});
      this.#sessions.delete(sessionId);
      return;
    }
    if (event.sessionId === undefined) return;
    for (const listener of this.#sessions.get(event.sessionId)?.get(event.method) ?? []) listener(event.params);
  }

  /** A new page: adopted by its opener's watches before it runs, else let run and let go. */
  async #attached(attached: Protocol.Target.AttachedToTargetEvent): Promise<void> {
    const { sessionId, targetInfo, waitingForDebugger } = attached;
    const session = this.session(sessionId);
    let adopted = false;
    if (waitingForDebugger && targetInfo.openerId !== undefined)
      adopted = await FetchHold.adopt(targetInfo.openerId, targetInfo.targetId, session).catch((error: unknown) => {
        this.log.warn(`a pop-up of a watched tab could not be watched: ${(error as Error).message}; it is closed`);
        void this.socket.send('Target.closeTarget', { targetId: targetInfo.targetId }).catch(() => {});
        return true;
      });
    if (waitingForDebugger) await this.socket.send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
    if (!adopted) await session.detach();
  }
}

export class PopupHolds {
  /** By the browser's endpoint (as the page finder names it). */
  readonly #browsers = new Map<string, Promise<BrowserHold>>();
  #closed = false;

  constructor(private readonly log: Logger) {}

  /**
   * Holds the new pages of the browser `key` from now on: connects once to its socket (asked of
   * `socket` then), again after it dropped. Throws when it cannot.
   */
  async hold(key: string, socket: () => Promise<BrowserEndpoint>): Promise<void> {
    if (this.#closed) throw new Error('clawd is stopping');
    const held = this.#browsers.get(key);
    if (held && (await held.catch(() => undefined))?.socket.open) return;
    if (this.#browsers.get(key) !== held) return this.hold(key, socket); // another call started one meanwhile
    const starting = socket().then((endpoint) => this.#start(endpoint));
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

  close(): void {
    this.#closed = true;
    for (const browser of this.#browsers.values())
      void browser.then(
        (b) => b.socket.close(),
        () => {},
      );
    this.#browsers.clear();
  }

  async #start(endpoint: BrowserEndpoint): Promise<BrowserHold> {
    const socket = await CdpSocket.open(endpoint, COMMAND_MS, COMMAND_MS, (said) =>
      this.log.debug(`pop-up hold: ${said}`),
    );
    // Listening before it asks: a page attached right after must not go unheard (it would stay paused).
    const browser = new BrowserHold(socket, this.log);
    try {
      // Pages only: a pop-up is one; their frames and workers are their own watches' business.
      await socket.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: true,
        flatten: true,
        filter: [{ type: 'page' }, { exclude: true }],
      });
    } catch (error) {
      socket.close();
      throw error;
    }
    return browser;
  }
}
