// Who may change a tab: one model for every driver. A tab is free, held by an agent session, or
// handed over to the person. An agent call that names a session takes a free tab when it changes
// it and keeps it while it stays active (a hold lapses after `idleMs` without a call); another
// session's changing calls are refused with 423 `tab_held`, naming the holder, while reads pass.
// A hand-over gives the tab to the person: every agent's changing call is refused with 423
// `user_in_control` until it is given back, and an agent can wait for that, bounded.
// Holds expire by time checked on use, so the only timers are those of waiting agents, owned here.

import { ClawdError } from '../../errors';
import { MAX_HANDOFF_WAIT_MS, type HandoffEnd, type HolderView } from '../../operations/control-operations';
import { tabOfKey, type TabKey } from './tab-key';

export const DEFAULT_HOLD_IDLE_MS = 10 * 60_000;

interface AgentHold {
  kind: 'agent';
  session: string;
  lastUsed: number;
}

interface Waiter {
  resolve(end: HandoffEnd): void;
  timer: NodeJS.Timeout;
}

interface PersonHold {
  kind: 'person';
  reason: string;
  since: number;
  /** The hold the hand-over interrupted is gone: the agent asks again once the tab is back. */
  waiters: Set<Waiter>;
  /** When the hand-over ends by itself, if the agent gave it a time limit. */
  expires: number | undefined;
  /** The person took the tab in the live view; no agent asked for it. */
  takenOver: boolean;
}

/** What changed in who controls a tab, for the event stream. */
export type ControlChange =
  | { kind: 'hold'; tab: TabKey; state: 'taken' | 'released'; session: string }
  | { kind: 'handoff'; tab: TabKey; state: 'started'; reason: string }
  | { kind: 'handoff'; tab: TabKey; state: 'ended'; by: HandoffEnd };

export class TabControl {
  // Tab key (profile and target id) → its holder. Added by a session's changing call or a
  // hand-over; removed when released, expired (noticed on the next look) or given back.
  readonly #holds = new Map<TabKey, AgentHold | PersonHold>();
  // Tab key → how its last hand-over ended when no wait heard it, until a wait does or an agent
  // changes the tab: a wait that reaches the server just after the person gave the tab back hears
  // how, not "never handed over".
  readonly #ended = new Map<TabKey, HandoffEnd>();

  constructor(
    private readonly idleMs = DEFAULT_HOLD_IDLE_MS,
    private readonly now: () => number = Date.now,
    private readonly changed: (change: ControlChange) => void = () => {},
  ) {}

  /**
   * Before a call that changes the tab: refused while the person has it or another session
   * holds it; a named session takes (or keeps) the tab.
   */
  change(tab: TabKey, session: string | undefined): void {
    const hold = this.check(tab, session);
    this.#ended.delete(tab);
    if (session === undefined) return;
    if (!hold) this.changed({ kind: 'hold', tab, state: 'taken', session });
    this.#holds.set(tab, { kind: 'agent', session, lastUsed: this.now() });
  }

  /** Refuses, as `change` would, without taking the tab; answers the session's own hold, if any. */
  check(tab: TabKey, session: string | undefined): AgentHold | undefined {
    const hold = this.#current(tab);
    if (hold?.kind === 'person') {
      throw new ClawdError(
        'user_in_control',
        `the person has this tab: "${hold.reason}". Wait until they give it back (GET /handoff/wait), then take a new snapshot`,
      );
    }
    if (hold && hold.session !== session) {
      throw new ClawdError(
        'tab_held',
        `the tab is held by the agent session "${hold.session}"${session ? '' : ' (this call names no session)'}: use another tab, or wait until it is released (DELETE /tabs/:id/hold) or idle for ${Math.round(this.idleMs / 60_000)} minutes`,
      );
    }
    return hold;
  }

  /**
   * The person gave the tab to a session (they dragged it into its tab group): the session holds
   * it, whoever held it before; a hand-over of it to the person ends.
   */
  assign(tab: TabKey, session: string): void {
    const previous = this.#current(tab);
    if (previous?.kind === 'person') this.#end(tab, previous, 'person');
    else if (previous && previous.session !== session)
      this.changed({ kind: 'hold', tab, state: 'released', session: previous.session });
    if (previous?.kind !== 'agent' || previous.session !== session)
      this.changed({ kind: 'hold', tab, state: 'taken', session });
    this.#holds.set(tab, { kind: 'agent', session, lastUsed: this.now() });
  }

  /** The person pressed Stop: every hold and hand-over of the profile's tabs ends. */
  releaseProfile(profile: string): void {
    for (const [tab, hold] of [...this.#holds]) {
      if (tabOfKey(tab).profile !== profile) continue;
      if (hold.kind === 'person') this.#end(tab, hold, 'person');
      else {
        this.#holds.delete(tab);
        this.changed({ kind: 'hold', tab, state: 'released', session: hold.session });
      }
    }
  }

  /** Releases a session's hold (any session's, when none is named); false when there was none. */
  release(tab: TabKey, session: string | undefined): boolean {
    const hold = this.#current(tab);
    if (hold?.kind !== 'agent') return false;
    if (session !== undefined && hold.session !== session)
      throw new ClawdError('tab_held', `the tab is held by the agent session "${hold.session}", not "${session}"`);
    this.#holds.delete(tab);
    this.changed({ kind: 'hold', tab, state: 'released', session: hold.session });
    return true;
  }

  /** The tab is gone: its hold goes, and anyone waiting for it to come back hears 'agent'. */
  forget(tab: TabKey): void {
    this.#ended.delete(tab);
    const hold = this.#holds.get(tab);
    if (hold?.kind === 'person') this.#end(tab, hold, 'agent');
    else if (hold) {
      this.#holds.delete(tab);
      this.changed({ kind: 'hold', tab, state: 'released', session: hold.session });
    }
  }

  /** The tabs an agent handed to the person and that are still theirs (not a take-over of their own). */
  handedOver(): Array<{ tab: TabKey; reason: string }> {
    return [...this.#holds.keys()].flatMap((tab) => {
      const hold = this.#current(tab);
      return hold?.kind === 'person' && !hold.takenOver ? [{ tab, reason: hold.reason }] : [];
    });
  }

  holder(tab: TabKey): HolderView | undefined {
    const hold = this.#current(tab);
    if (!hold) return undefined;
    if (hold.kind === 'agent') return { kind: 'agent', session: hold.session };
    return {
      kind: 'person',
      reason: hold.reason,
      since: new Date(hold.since).toISOString(),
      ...(hold.takenOver ? { takenOver: true as const } : {}),
    };
  }

  /**
   * Gives the tab to the person, ending any agent's hold on it. An agent's hand-over never
   * replaces a tab the person took themselves (a take-over, a recording): that is theirs to end.
   */
  handOff(tab: TabKey, reason: string, timeoutMs: number | undefined, takenOver = false): void {
    const previous = this.#current(tab);
    if (previous?.kind === 'person' && previous.takenOver && !takenOver) throw personsOwn(previous);
    if (previous?.kind === 'person') this.#end(tab, previous, 'agent');
    if (previous?.kind === 'agent') this.changed({ kind: 'hold', tab, state: 'released', session: previous.session });
    this.#holds.set(tab, {
      kind: 'person',
      reason,
      since: this.now(),
      waiters: new Set(),
      expires: timeoutMs === undefined ? undefined : this.now() + timeoutMs,
      takenOver,
    });
    this.changed({ kind: 'handoff', tab, state: 'started', reason });
  }

  /**
   * The person takes the tab (in the live view, or to record in it): an agent's hold ends, a
   * hand-over already running stays. False when the tab was the person's already.
   */
  takeOver(tab: TabKey, reason = 'The person took over in the live view'): boolean {
    if (this.#current(tab)?.kind === 'person') return false;
    this.handOff(tab, reason, undefined, true);
    return true;
  }

  /**
   * The hand-over ends: the person gave the tab back, or the agent took it back — never a tab the
   * person took themselves (user_in_control). False when there was none.
   */
  giveBack(tab: TabKey, by: 'person' | 'agent'): boolean {
    const hold = this.#current(tab);
    if (hold?.kind !== 'person') return false;
    if (by === 'agent' && hold.takenOver) throw personsOwn(hold);
    this.#end(tab, hold, by);
    return true;
  }

  /** The person's own take-over for `reason` ends (their recording stopped); false when it is not what holds the tab. */
  endTakeOver(tab: TabKey, reason: string): boolean {
    const hold = this.#current(tab);
    if (hold?.kind !== 'person' || !hold.takenOver || hold.reason !== reason) return false;
    this.#end(tab, hold, 'person');
    return true;
  }

  /**
   * Resolves when the hand-over of `tab` ends, or with 'timeout' after `timeoutMs`; at once with how
   * the last one ended when no wait heard it and no agent changed the tab since, else 'none'.
   */
  wait(tab: TabKey, timeoutMs: number): Promise<HandoffEnd | 'none'> {
    const hold = this.#current(tab);
    if (hold?.kind !== 'person') {
      const ended = this.#ended.get(tab) ?? 'none';
      this.#ended.delete(tab);
      return Promise.resolve(ended);
    }
    const left = hold.expires === undefined ? Infinity : Math.max(0, hold.expires - this.now());
    const bound = Math.min(timeoutMs, MAX_HANDOFF_WAIT_MS, left);
    // When the hand-over's own limit comes first, this wait's timer is its end (a timer can fire a
    // millisecond before the clock says the limit is reached; the hand-over must not outlive it).
    const endsHandoff = left <= Math.min(timeoutMs, MAX_HANDOFF_WAIT_MS);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          // Ending the hand-over answers this wait too (it heard the end).
          if (endsHandoff && this.#holds.get(tab) === hold) return this.#end(tab, hold, 'timeout');
          hold.waiters.delete(waiter);
          resolve('timeout');
        }, bound),
      };
      hold.waiters.add(waiter);
    });
  }

  /** Ends every wait (the server is stopping). */
  close(): void {
    for (const [tab, hold] of [...this.#holds]) if (hold.kind === 'person') this.#end(tab, hold, 'timeout');
    this.#holds.clear();
    this.#ended.clear();
  }

  #end(tab: TabKey, hold: PersonHold, by: HandoffEnd): void {
    if (this.#holds.get(tab) === hold) {
      this.#holds.delete(tab);
      if (hold.waiters.size === 0) this.#ended.set(tab, by);
      this.changed({ kind: 'handoff', tab, state: 'ended', by });
    }
    for (const waiter of hold.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(by);
    }
    hold.waiters.clear();
  }

  /** The tab's hold, once lapsed holds and expired hand-overs are forgotten. */
  #current(tab: TabKey): AgentHold | PersonHold | undefined {
    const hold = this.#holds.get(tab);
    if (hold?.kind === 'agent' && this.now() - hold.lastUsed > this.idleMs) {
      this.#holds.delete(tab);
      this.changed({ kind: 'hold', tab, state: 'released', session: hold.session });
      return undefined;
    }
    if (hold?.kind === 'person' && hold.expires !== undefined && this.now() >= hold.expires) {
      this.#end(tab, hold, 'timeout');
      return undefined;
    }
    return hold;
  }
}

function personsOwn(hold: PersonHold): ClawdError {
  return new ClawdError(
    'user_in_control',
    `the person took this tab themselves ("${hold.reason}"): it is theirs to give back`,
  );
}
