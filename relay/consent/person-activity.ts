// The person's own hands on a handed-over tab: while they type, click or scroll in it (and for
// `idleMs` after, browser.personIdleMs), the tab is theirs. Agent calls that would change it
// wait here until the person has been idle that long, within the call's bound, and then answer
// 423 `person_active`; reads go on. The extension says when the person touched a tab (it tells
// their input from the agent's, which it dispatches itself). Keyed by the tab's page target id.
// Timers: one per active tab (its idle moment, told to listeners and waiters) and one per
// waiting call (its bound), all ended by close().

import { ClawdError } from '../errors';
import { seconds } from '../time-limit';

interface Active {
  /** When the person last touched the tab (ms). */
  last: number;
  timer: NodeJS.Timeout;
  /** Calls waiting for the tab to be idle. */
  waiters: Set<() => void>;
}

export class PersonActivity {
  // Added on the person's input, removed once they have been idle for idleMs (or the tab is forgotten).
  readonly #active = new Map<string, Active>();
  // Bounds of waiting calls, cleared when they settle.
  readonly #bounds = new Set<NodeJS.Timeout>();

  constructor(
    private readonly idleMs: () => number,
    /** The tab became the person's, or idle again (the event stream, the side panel). */
    private readonly changed: (targetId: string, state: 'active' | 'idle') => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** The person touched the tab just now. */
  input(targetId: string): void {
    const at = this.now();
    const active = this.#active.get(targetId);
    if (active) {
      active.last = at;
      return; // its timer looks again when it fires
    }
    const fresh: Active = { last: at, timer: this.#idleTimer(targetId, this.idleMs()), waiters: new Set() };
    this.#active.set(targetId, fresh);
    this.changed(targetId, 'active');
  }

  /** How long until the tab is idle again (0 when it is). */
  busyFor(targetId: string): number {
    const active = this.#active.get(targetId);
    return active ? Math.max(0, active.last + this.idleMs() - this.now()) : 0;
  }

  /** Resolves once the person has been idle on the tab for idleMs; rejects 423 person_active when `timeoutMs` runs out first. */
  waitIdle(targetId: string, timeoutMs: number, what: string): Promise<void> {
    const active = this.#active.get(targetId);
    if (!active || this.busyFor(targetId) === 0) return Promise.resolve();
    const refusal = () =>
      new ClawdError(
        'person_active',
        `${what}: the person is using this tab (their last input ${seconds(this.now() - (this.#active.get(targetId)?.last ?? this.now()))} ago); agents wait until they have been idle for ${seconds(this.idleMs())}. Try again in a moment, or use another tab`,
      );
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(bound);
        this.#bounds.delete(bound);
        active.waiters.delete(done);
        resolve();
      };
      const bound = setTimeout(
        () => {
          this.#bounds.delete(bound);
          active.waiters.delete(done);
          reject(refusal());
        },
        Math.max(0, timeoutMs),
      );
      this.#bounds.add(bound);
      active.waiters.add(done);
    });
  }

  /** The tab went away. */
  forget(targetId: string): void {
    const active = this.#active.get(targetId);
    if (!active) return;
    clearTimeout(active.timer);
    this.#active.delete(targetId);
    for (const waiter of [...active.waiters]) waiter();
  }

  close(): void {
    for (const targetId of [...this.#active.keys()]) this.forget(targetId);
    for (const bound of this.#bounds) clearTimeout(bound);
    this.#bounds.clear();
  }

  #idleTimer(targetId: string, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      const active = this.#active.get(targetId);
      if (!active) return;
      const left = this.busyFor(targetId);
      if (left > 0) {
        active.timer = this.#idleTimer(targetId, left); // the person went on meanwhile
        return;
      }
      this.#active.delete(targetId);
      this.changed(targetId, 'idle');
      for (const waiter of [...active.waiters]) waiter();
    }, ms);
  }
}
