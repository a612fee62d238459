// Whether the extension is here, and how long we wait when it is not. Owns the current
// `/extension` link (a newer socket replaces a stale one), the browser version from its hello,
// the bounded wait of commands sent while it is away, and the grace period after which its tabs
// are given up. Frames from a replaced link never reach the switchboard.
//
// Measured: a debugger session outlives a service-worker restart, and any debugger or tab event
// wakes a fresh worker, so the extension usually comes back with the same tabs within seconds.

import { CLOSE, type BrowserInfo, type HelloFrame, type TabSession } from '../../shared/protocol';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { ExtensionLink, type ExtensionLinkHandlers, type LinkSocket } from './extension-link';

export interface PresenceHandlers extends Omit<ExtensionLinkHandlers, 'hello' | 'closed'> {
  /** The extension said hello: register its tabs, return their session ids. */
  hello(link: ExtensionLink, frame: HelloFrame): TabSession[];
  /** The extension stayed away past the grace period: its tabs are gone. */
  gone(): void;
}

export interface PresenceOptions {
  relayVersion: string;
  log: Logger;
  timeouts: {
    helloMs: number;
    extensionIdleMs: number;
    commandMs: number;
    reconnectWaitMs: number;
    tabGraceMs: number;
  };
}

interface LinkWaiter {
  resolve(link: ExtensionLink): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ExtensionPresence {
  #link: ExtensionLink | undefined;
  /** Sockets that have not proven the key yet (each ends by its hello deadline at the latest). */
  readonly #unproven = new Set<ExtensionLink>();
  #browser: BrowserInfo | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  readonly #waiters = new Set<LinkWaiter>();
  #closed = false;

  constructor(
    private readonly handlers: PresenceHandlers,
    private readonly options: PresenceOptions,
  ) {}

  /** The link once it has said hello. */
  get ready(): ExtensionLink | undefined {
    return this.#link?.hello ? this.#link : undefined;
  }

  /** The last browser that said hello (kept while it reconnects). */
  get browser(): BrowserInfo | undefined {
    return this.#browser;
  }

  /**
   * A new `/extension` socket passed the guards; `proof` is what its challenge needs (the key, the
   * relay's port, the extension's nonce). It takes over from the current link (a stale socket, or
   * another browser's) only once its hello proved the extension key: an unproven socket never
   * pushes the paired extension aside.
   */
  attach(ws: LinkSocket, proof: { key: () => string; port: number; clientNonce: string }): ExtensionLink {
    const { timeouts, relayVersion, log } = this.options;
    const current = (link: ExtensionLink) => link === this.#link;
    const link = new ExtensionLink(
      ws,
      {
        hello: (l, frame) => this.#onHello(l, frame),
        event: (l, frame) => current(l) && this.handlers.event(l, frame),
        tabAttached: (l, frame) => current(l) && this.handlers.tabAttached(l, frame),
        tabDetached: (l, frame) => current(l) && this.handlers.tabDetached(l, frame),
        tabUpdated: (l, frame) => current(l) && this.handlers.tabUpdated(l, frame),
        handBack: (l, frame) => current(l) && this.handlers.handBack(l, frame),
        tabParked: (l, frame) => current(l) && this.handlers.tabParked(l, frame),
        personInput: (l, frame) => current(l) && this.handlers.personInput(l, frame),
        panel: (l, frame) => current(l) && this.handlers.panel(l, frame),
        person: (l, frame) => current(l) && this.handlers.person(l, frame),
        closed: (l, code, reason) => {
          this.#unproven.delete(l);
          if (current(l)) this.#onClosed(code, reason);
        },
      },
      {
        ...proof,
        relayVersion,
        helloMs: timeouts.helloMs,
        idleMs: timeouts.extensionIdleMs,
        commandMs: timeouts.commandMs,
        log,
      },
    );
    this.#unproven.add(link);
    return link;
  }

  /** Drops the current extension (its key was replaced): it comes back with the new key, or not at all. */
  drop(code: number, reason: string): void {
    this.#link?.close(code, reason);
  }

  #onHello(link: ExtensionLink, frame: HelloFrame): TabSession[] {
    // Proven (the link checked the key before calling this): it is the extension from now on.
    this.#unproven.delete(link);
    const previous = this.#link;
    this.#link = link;
    if (previous && previous !== link)
      previous.close(CLOSE.replaced, 'replaced by a newer connection from the extension');
    clearTimeout(this.#graceTimer);
    this.#browser = frame.browser;
    this.options.log.info(
      `extension ${frame.extensionVersion} connected (${frame.browser.product}, ${frame.tabs.length} attached tab(s))`,
    );
    const sessions = this.handlers.hello(link, frame);
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(link);
    }
    this.#waiters.clear();
    return sessions;
  }

  #onClosed(code: number, reason: string): void {
    this.#link = undefined;
    this.options.log.info(`extension disconnected (${code}${reason ? `: ${reason}` : ''})`);
    if (this.#closed) return;
    clearTimeout(this.#graceTimer);
    this.#graceTimer = setTimeout(() => {
      this.options.log.info('extension did not come back: its tabs are detached');
      this.handlers.gone();
    }, this.options.timeouts.tabGraceMs);
  }

  /** Resolves with the link once it has said hello, waiting a bounded time for it. */
  awaitLink(label: string): Promise<ExtensionLink> {
    const ready = this.ready;
    if (ready) return Promise.resolve(ready);
    if (this.#closed)
      return Promise.reject(
        new ClawdError('extension_not_connected', `${label} was not sent: the relay is shutting down`),
      );
    const waitMs = this.options.timeouts.reconnectWaitMs;
    return new Promise((resolve, reject) => {
      const waiter: LinkWaiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(
            new ClawdError(
              'extension_not_connected',
              `${label} was not sent: the clawd extension is not connected (waited ${Math.round(waitMs / 1000)} s). Is the browser running with the extension loaded and paired (\`clawd pair\`)?`,
            ),
          );
        }, waitMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Closes the link and every timer; waits in progress fail with a clear error. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#graceTimer);
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new ClawdError('extension_not_connected', 'the relay is shutting down'));
    }
    this.#waiters.clear();
    this.#link?.close(CLOSE.goingAway, 'relay shutting down');
    for (const link of this.#unproven) link.close(CLOSE.goingAway, 'relay shutting down');
  }
}
