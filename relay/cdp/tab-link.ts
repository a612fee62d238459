// The relay's way to a tab through the extension: one CDP command on a tab's page or child
// session, ordered by the tab's event fence, waiting (bounded) for the extension when it is
// away, for a debugger-session reset in progress and for a resting tab to wake (RestGate). Also the
// reset itself. The last hop of a command before ExtensionLink; it calls back nothing but the gate.

import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { seconds, within } from '../time-limit';
import { AgentInputs } from './agent-inputs';
import type { ExtensionLink } from './extension-link';
import type { ExtensionPresence } from './extension-presence';
import type { PersonInput } from '../../shared/protocol';
import type { Settle } from './pending-calls';
import type { TabRecord, TargetRegistry } from './target-registry';

/**
 * How long a page command's "the debugger is not attached" answer waits for the extension's word
 * that the tab went. Over a real CDP pipe a closing target's `detachedFromTarget` comes first and
 * clients drop what they had in flight (Puppeteer's TargetCloseError, which it ignores); through
 * chrome.debugger the failed command's answer can overtake the tab's onDetach, and an error
 * clients do not take for "closed" reached Puppeteer (`Network.enable: Debugger is not attached`,
 * seen in the target fuzz when a popup closed). Measured gap: a few milliseconds.
 */
export const TAB_GONE_WAIT_MS = 1_000;

/**
 * How long one command of a replay may hold the tab's other commands: Chrome answers them in a
 * few milliseconds, and past this the replay goes on (logged) and what it held goes after it, in
 * order on the same session, rather than waiting for the link's whole bound.
 */
export const REPLAY_STEP_MS = 5_000;

/** A command a replay sends past the commands it holds (`childId`: Chrome's session id of a child). */
export type ResyncSend = (method: string, params?: Record<string, unknown>, childId?: string) => Promise<unknown>;

/** Tabs at rest (tab-rest.ts), as the link asks them. */
export interface RestGate {
  /** A command is going to the tab: what to call once it is answered. */
  sending(tab: TabRecord): () => void;
  /** The wake a command for a resting tab waits for, if the tab rests. */
  waking(tab: TabRecord): Promise<void> | undefined;
  /** Chrome's session id of a child now (another after a wake) for the one a command was aimed at. */
  childNow(tab: TabRecord, childId: string): string;
}

export class TabLink {
  // Added while a tab's debugger session is being replaced; commands for the tab wait for it.
  // Removed when the reset settles.
  readonly #resets = new Map<TabRecord, Promise<void>>();
  // Input.* commands each tab was sent (by any client: every agent's input goes through here).
  readonly #input = new WeakMap<TabRecord, AgentInputs>();
  // Answers held until their tab's removal is known (or TAB_GONE_WAIT_MS), by tab: see gone().
  readonly #heldForGone = new Map<TabRecord, Set<() => void>>();
  /** Set once by the switchboard: a command for a resting tab wakes it first. */
  rest: RestGate | undefined;

  constructor(
    private readonly presence: ExtensionPresence,
    private readonly registry: TargetRegistry,
    private readonly log: Logger,
  ) {}

  /**
   * Sends a CDP command to the tab (or Chrome's child session `childId` in it). `settle` runs
   * synchronously when the answer is read, so answers reach clients in the order they came.
   * `passThrough`: the caller forwards the result unread (a large one may come as a RawJson).
   */
  send(
    tab: TabRecord,
    childId: string | undefined,
    method: string,
    params: Record<string, unknown>,
    settle: Settle<unknown>,
    passThrough = false,
  ): void {
    if (tab.parked !== undefined) {
      settle(
        new ClawdError(
          'target_paused',
          `${method}: the tab is showing ${tab.parked}, which cannot be automated; it comes back when the tab returns to a web page`,
        ),
      );
      return;
    }
    const waking = this.rest?.waking(tab);
    if (waking) {
      waking.then(
        () => this.send(tab, childId, method, params, settle, passThrough),
        (error: Error) => settle(error),
      );
      return;
    }
    const reset = this.#resets.get(tab);
    if (reset) {
      void reset.then(() => this.send(tab, childId, method, params, settle, passThrough));
      return;
    }
    const link = this.presence.ready;
    if (link) return this.#sendOn(link, tab, childId, method, params, settle, passThrough);
    this.presence.awaitLink(method).then(
      (l) => this.#sendOn(l, tab, childId, method, params, settle, passThrough),
      (error: Error) => settle(error),
    );
  }

  /** The promise form, for the relay's own housekeeping commands. */
  request(
    tab: TabRecord,
    childId: string | undefined,
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<unknown> {
    return new Promise((resolve, reject) =>
      this.send(tab, childId, method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  }

  /** Whether the tab's debugger session is being replaced (a reset or a replay). */
  replacing(tab: TabRecord): boolean {
    return this.#resets.has(tab);
  }

  /**
   * Replaces the tab's debugger session with a fresh one (nothing an agent set stays on the
   * user's page). False when there is nothing to do now: a reset is under way, the extension is
   * away, or the tab is gone.
   */
  reset(tab: TabRecord): boolean {
    const link = this.presence.ready;
    if (this.#resets.has(tab) || !link || !this.registry.holds(tab)) return false;
    const done = link
      .request({ op: 'resetTab', tabId: tab.tabId }, `resetting tab ${tab.tabId}`)
      .then(() => undefined)
      .catch((error: Error) => this.log.debug(`reset of tab ${tab.tabId}: ${error.message}`))
      .finally(() => {
        if (this.#resets.get(tab) === done) this.#resets.delete(tab);
      });
    this.#resets.set(tab, done);
    return true;
  }

  /**
   * Runs `work` on a tab whose debugger session Chrome replaced, with every other command for
   * the tab held until it is done; `work` sends through its own sender, past the hold.
   */
  resync(tab: TabRecord, work: (send: ResyncSend) => Promise<void>): Promise<void> {
    const send: ResyncSend = (method, params = {}, childId) =>
      within(
        new Promise<unknown>((resolve, reject) => {
          const link = this.presence.ready;
          if (!link)
            return reject(new ClawdError('extension_not_connected', `${method} was not sent: the extension is away`));
          this.#sendOn(link, tab, childId, method, params, (error, result) =>
            error ? reject(error) : resolve(result),
          );
        }),
        REPLAY_STEP_MS,
        () =>
          new ClawdError('command_timeout', `${method} of the replay was not answered in ${seconds(REPLAY_STEP_MS)}`),
      );
    const previous = this.#resets.get(tab) ?? Promise.resolve();
    const done = previous
      .then(() => work(send))
      .catch((error: Error) => this.log.warn(`resync of tab ${tab.tabId}: ${error.message}`))
      .finally(() => {
        if (this.#resets.get(tab) === done) this.#resets.delete(tab);
      });
    this.#resets.set(tab, done);
    return done;
  }

  /**
   * The tab was removed and clients were told: the page commands that failed because it went
   * answer now, after the `detachedFromTarget` their clients expect first.
   */
  gone(tab: TabRecord): void {
    const held = this.#heldForGone.get(tab);
    this.#heldForGone.delete(tab);
    for (const answer of held ?? []) answer();
  }

  /** Answers everything still held (the relay is closing). */
  close(): void {
    for (const tab of [...this.#heldForGone.keys()]) this.gone(tab);
  }

  /** Holds a "not attached" answer for a tab the relay still holds, until gone() or the bound. */
  #holdUntilGone(tab: TabRecord, answer: () => void): void {
    let held = this.#heldForGone.get(tab);
    if (!held) this.#heldForGone.set(tab, (held = new Set()));
    const once = () => {
      clearTimeout(timer);
      held.delete(once);
      if (held.size === 0 && this.#heldForGone.get(tab) === held) this.#heldForGone.delete(tab);
      answer();
    };
    const timer = setTimeout(once, TAB_GONE_WAIT_MS);
    held.add(once);
  }

  /** Whether input the tab's page saw (`seen`: what it says it saw) includes the person's, not only agents' input commands on their way or answered a moment ago. */
  includesPersons(tab: TabRecord, seen: readonly PersonInput[] | undefined): boolean {
    return this.#input.get(tab)?.includesPersons(seen) ?? true;
  }

  #sendOn(
    link: ExtensionLink,
    tab: TabRecord,
    childId: string | undefined,
    method: string,
    params: Record<string, unknown>,
    settle: Settle<unknown>,
    passThrough = false,
  ): void {
    if (!this.registry.holds(tab)) {
      settle(new ClawdError('target_closed', `${method} was not sent: tab ${tab.tabId} is no longer attached`));
      return;
    }
    // A child's Chrome session id changes when its tab wakes: a command aimed before goes to the new one.
    if (childId !== undefined && this.rest) childId = this.rest.childNow(tab, childId);
    const used = this.rest?.sending(tab);
    if (used) {
      const inner = settle;
      settle = (error, result) => {
        used();
        inner(error, result);
      };
    }
    if (method.startsWith('Input.')) {
      let inputs = this.#input.get(tab);
      if (!inputs) this.#input.set(tab, (inputs = new AgentInputs()));
      const answered = inputs.sending(method, params);
      const inner = settle;
      settle = (error, result) => {
        answered();
        inner(error, result);
      };
    }
    const seq = tab.fence.begin();
    const op =
      childId === undefined
        ? { op: 'cdp' as const, tabId: tab.tabId, method, params }
        : { op: 'cdp' as const, tabId: tab.tabId, sessionId: childId, method, params };
    link.requestWith(
      op,
      method,
      (error, result) => {
        if (
          childId === undefined &&
          error instanceof ClawdError &&
          error.code === 'target_closed' &&
          this.registry.holds(tab)
        ) {
          // The tab is going: its events are let through now, the answer after its removal.
          tab.fence.end(seq);
          this.#holdUntilGone(tab, () => settle(error));
          return;
        }
        try {
          settle(error, result); // the response (and anything it replays) reaches the client first,
        } finally {
          tab.fence.end(seq); // then the events that overtook it.
        }
      },
      undefined,
      passThrough,
    );
  }
}
