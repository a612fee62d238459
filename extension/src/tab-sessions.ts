// The handed-over tabs' debugger sessions as the relay and the extension share them: the relay's
// commands go to Chrome through here and the tabs' events come back through here, so the two
// things both need on one session — its auto-attach (tab-auto-attach.ts) and its Fetch
// (tab-fetch.ts) — carry the extension's own needs too (the first moments of the held sites'
// workers, worker-sockets.ts), and the relay sees what it would see alone.

import type { PolicyConfig } from '../../shared/origin-policy';
import type { TargetInfo } from '../../shared/protocol';
import { socketConditions } from '../../shared/origin-policy';
import type { DebuggingBar } from './debugging-bar';
import type { Holds } from './holds';
import { TabAutoAttach, type TabEvent } from './tab-auto-attach';
import { TabFetch } from './tab-fetch';
import type { TabAttachments } from './tab-attachments';
import type { WorkerSockets } from './worker-sockets';
import type { WorkerState } from './worker-state';

export class TabSessions {
  readonly #autoAttach: TabAutoAttach;
  readonly #fetch: TabFetch;
  /**
   * Whether the person's own rules (not only clawd's addresses) hold WebSockets: the held sites'
   * workers are held through the tabs' sessions then, and no tab rests. clawd's own doors refuse
   * a page's socket by its Origin anyway, so for those alone a resting tab's workers may go.
   */
  #held = false;

  constructor(
    private readonly attachments: TabAttachments,
    state: WorkerState,
    private readonly workers: WorkerSockets,
    /** An event for the relay. */
    out: (event: TabEvent) => void,
    /** What the extension holds paused, kept across its worker's restarts (holds.ts). */
    holds: Holds,
    /** Chrome's debugging bar: a woken tab lets it come before its first command. */
    private readonly bar: DebuggingBar,
  ) {
    this.#fetch = new TabFetch(
      (tabId, method, params) => attachments.sendCommand(tabId, undefined, method, params),
      out,
      (url) => workers.starting(url),
      (relay) => void state.save('relayFetch', relay),
      holds,
    );
    this.#autoAttach = new TabAutoAttach(
      (tabId, sessionId, method, params) => attachments.sendCommand(tabId, sessionId, method, params),
      (event) => this.#fetch.event(event),
      (relay) => void state.save('relayAutoAttach', relay),
      true,
      holds,
    );
    // The sessions outlive the extension's worker: what is on them is known again before their
    // events go on, and what the last worker held paused is let go. A policy kept from the relay
    // is coming when there is one (background.ts puts it in force at the start).
    void Promise.all([state.loaded, attachments.ready, holds.left]).then(
      ([{ relayAutoAttach, relayFetch, policy }, , left]) => {
        this.#fetch.restore(attachments.attachedTabIds, relayFetch, left);
        this.#autoAttach.restore(attachments.attachedTabIds, relayAutoAttach, left, policy !== null);
        workers.restore(left, policy !== null);
      },
    );
  }

  /** A CDP command of the relay's on a tab or one of its children. */
  command(
    tabId: number,
    sessionId: string | undefined,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<unknown> {
    if (sessionId === undefined && this.attachments.has(tabId)) {
      if (method === 'Target.setAutoAttach') return this.#autoAttach.relayAsked(tabId, params ?? {});
      if (method === 'Fetch.enable' || method === 'Fetch.disable')
        return this.#fetch.relayAsked(tabId, method, params ?? {});
      if (method === 'Target.detachFromTarget') return this.#detach(tabId, params ?? {});
    }
    if (sessionId !== undefined) {
      const answered = this.#autoAttach.relayChildCommand(tabId, sessionId, method, params);
      if (answered) return answered;
    }
    return this.attachments.sendCommand(tabId, sessionId, method, params);
  }

  /**
   * The relay's last client lets go of a child: a worker with the rules on that session is held by
   * a session of the extension's own first (bounded), as rules from two sessions both hold
   * (measured) and a detached one's go with it.
   */
  async #detach(tabId: number, params: Record<string, unknown>): Promise<unknown> {
    const worker =
      typeof params.sessionId === 'string' ? this.#autoAttach.ruledWorker(tabId, params.sessionId) : undefined;
    if (worker) await this.workers.take(worker.targetId, worker.url);
    return this.attachments.sendCommand(tabId, undefined, 'Target.detachFromTarget', params);
  }

  /** An event of a tab's session (or a child's), on its way to the relay. */
  event(event: TabEvent): void {
    this.#autoAttach.event(event);
  }

  /** The policy changed: what the extension needs on the sessions follows its WebSocket rules. */
  hold(config: PolicyConfig): void {
    const conditions = socketConditions(config);
    this.#held =
      socketConditions({
        ...(config.block ? { block: config.block } : {}),
        ...(config.allow ? { allow: config.allow } : {}),
      }).length > 0;
    void this.#autoAttach.hold(conditions);
    void this.#fetch.hold(conditions.length > 0);
  }

  /** A tab's session is new or attached again (`fresh`: a reset, nothing of the relay's is on it). */
  attached(tabId: number, fresh: boolean): Promise<void> {
    return Promise.all([this.#autoAttach.attached(tabId, fresh), this.#fetch.attached(tabId, fresh)]).then(() => {});
  }

  forget(tabId: number): void {
    this.#autoAttach.forget(tabId);
    this.#fetch.forget(tabId);
  }

  /**
   * The relay asks to let the tab rest: its session goes (what the relay set on it with it; it
   * sets it again on waking). Refused while the extension needs the session for the policy.
   */
  async rest(tabId: number): Promise<{ at: number }> {
    if (this.#held) throw new Error("the person's rules hold the tab's site's workers through its debugger session");
    const at = await this.attachments.rest(tabId);
    this.forget(tabId);
    this.bar.sessions(this.attachments.attachedTabIds.length);
    return { at };
  }

  /** The tab is attached again after a rest: a fresh session, nothing of the relay's on it yet. */
  async wake(tabId: number): Promise<{ targetInfo: TargetInfo }> {
    const quietSince = this.bar.quietSince;
    const targetInfo = await this.attachments.wake(tabId);
    this.bar.sessions(this.attachments.attachedTabIds.length);
    // The bar coming moves the page: the relay's first command (a screenshot) waits for it.
    await this.bar.came(tabId, quietSince);
    await this.attached(tabId, true);
    return { targetInfo };
  }
}
