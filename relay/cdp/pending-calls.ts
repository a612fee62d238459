// One registry for requests awaiting an answer: an id, a labelled deadline, and rejectAll for
// when the other side goes away. Used for every request the relay sends to the extension, so
// no caller can wait without a bound and a dropped socket fails every waiter at once.
//
// Calls settle through a callback run synchronously when the answer is read, not through a
// promise: answers that arrive together must reach clients in the order they arrived, and
// promise chains of different depths reorder them (measured: a Runtime.enable replay overtook
// the earlier Page.getFrameTree response, and Playwright lost the page's main context).
//
// This is the relay's hottest path (every CDP command), so deadlines are checked by one sweep
// timer rather than a timer per call, and the timeout error is made only when a call times out
// (measured: building an Error per request was 17% of the relay's CPU under load).

import { ClawdError } from '../errors';

export type Settle<T> = (error: Error | undefined, value?: T) => void;

interface Pending<T> {
  settle: Settle<T>;
  deadline: number;
  label: string;
  timeoutMs: number;
  /** The caller forwards the answer without reading it: a large one may come as raw JSON (raw-json.ts). */
  passThrough: boolean;
}

/** Deadlines are checked this often at most; a call times out within this much of its bound. */
const SWEEP_MS = 250;

export class PendingCalls<T = unknown> {
  #nextId = 1;
  readonly #calls = new Map<number, Pending<T>>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Registers a call and returns its id. `settle` runs once: with the answer, with the error,
   * or with a `command_timeout` naming `label` once `timeoutMs` has passed.
   */
  create(label: string, timeoutMs: number, settle: Settle<T>, passThrough = false): number {
    const id = this.#nextId++;
    this.#calls.set(id, { settle, deadline: this.now() + timeoutMs, label, timeoutMs, passThrough });
    // unref: an idle sweeper lingers one period before it stops itself; it must not hold the
    // process open (a pending call always has a socket that does).
    this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(SWEEP_MS, timeoutMs)).unref();
    return id;
  }

  /** The promise form, for callers that do not need arrival order. */
  createPromise(label: string, timeoutMs: number): { id: number; promise: Promise<T> } {
    let id = 0;
    const promise = new Promise<T>((resolve, reject) => {
      id = this.create(label, timeoutMs, (error, value) => (error ? reject(error) : resolve(value as T)));
    });
    return { id, promise };
  }

  resolve(id: number, value: T): boolean {
    const call = this.#take(id);
    call?.settle(undefined, value);
    return call !== undefined;
  }

  reject(id: number, error: Error): boolean {
    const call = this.#take(id);
    call?.settle(error);
    return call !== undefined;
  }

  /** Fails every waiter, e.g. when the socket closed; `why` receives each call's label. */
  rejectAll(why: (label: string) => Error): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    this.#stopSweeping();
    for (const call of calls) call.settle(why(call.label));
  }

  /** Whether call `id` is pending and its caller forwards the answer unread. */
  passesThrough(id: number): boolean {
    return this.#calls.get(id)?.passThrough === true;
  }

  get size(): number {
    return this.#calls.size;
  }

  #take(id: number): Pending<T> | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    // The sweeper stops itself once it finds nothing pending: stopping it here would clear and
    // re-arm an interval on every call of a sequential caller.
    this.#calls.delete(id);
    return call;
  }

  #sweep(): void {
    const now = this.now();
    for (const [id, call] of this.#calls) {
      if (call.deadline > now) continue;
      this.#calls.delete(id);
      call.settle(
        new ClawdError('command_timeout', `${call.label} got no answer within ${Math.round(call.timeoutMs / 1000)} s`),
      );
    }
    if (this.#calls.size === 0) this.#stopSweeping();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
