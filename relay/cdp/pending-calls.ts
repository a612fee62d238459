// One registry for requests awaiting an answer: an id, a labelled timeout, and rejectAll for
// when the other side goes away. Used for every request the relay sends to the extension, so
// no caller can wait without a bound and a dropped socket fails every waiter at once.
//
// Calls settle through a callback run synchronously when the answer is read, not through a
// promise: answers that arrive together must reach clients in the order they arrived, and
// promise chains of different depths reorder them (measured: a Runtime.enable replay overtook
// the earlier Page.getFrameTree response, and Playwright lost the page's main context).

import { ClawdError } from '../errors';

export type Settle<T> = (error: Error | undefined, value?: T) => void;

interface Pending<T> {
  settle: Settle<T>;
  timer: NodeJS.Timeout;
  label: string;
}

export class PendingCalls<T = unknown> {
  #nextId = 1;
  readonly #calls = new Map<number, Pending<T>>();

  /**
   * Registers a call and returns its id. `settle` runs once: with the answer, with the error,
   * or with a `command_timeout` naming `label` after `timeoutMs`. The timeout error is created
   * here, at send time, so its stack points at the caller rather than at a timer.
   */
  create(label: string, timeoutMs: number, settle: Settle<T>): number {
    const id = this.#nextId++;
    const timeoutError = new ClawdError('command_timeout', `${label} got no answer within ${Math.round(timeoutMs / 1000)} s`);
    const timer = setTimeout(() => {
      this.#calls.delete(id);
      settle(timeoutError);
    }, timeoutMs);
    this.#calls.set(id, { settle, timer, label });
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

  has(id: number): boolean {
    return this.#calls.has(id);
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
    for (const call of calls) clearTimeout(call.timer);
    this.#calls.clear();
    for (const call of calls) call.settle(why(call.label));
  }

  get size(): number {
    return this.#calls.size;
  }

  #take(id: number): Pending<T> | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    clearTimeout(call.timer);
    this.#calls.delete(id);
    return call;
  }
}
