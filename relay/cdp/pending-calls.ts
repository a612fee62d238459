// One registry for requests awaiting an answer: an id, a labelled timeout, and rejectAll for
// when the other side goes away. Used for every request the relay sends to the extension, so
// no caller can wait without a bound and a dropped socket fails every waiter at once.

import { ClawdError } from '../errors';

interface Pending<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  label: string;
}

export class PendingCalls<T = unknown> {
  #nextId = 1;
  readonly #calls = new Map<number, Pending<T>>();

  /**
   * Registers a call and returns its id and promise. The promise rejects with `command_timeout`
   * naming `label` after `timeoutMs`. The error is created here, at send time, so its stack
   * points at the caller rather than at the socket handler that notices the silence.
   */
  create(label: string, timeoutMs: number): { id: number; promise: Promise<T> } {
    const id = this.#nextId++;
    const timeoutError = new ClawdError('command_timeout', `${label} got no answer within ${Math.round(timeoutMs / 1000)} s`);
    const promise = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#calls.delete(id);
        reject(timeoutError);
      }, timeoutMs);
      this.#calls.set(id, { resolve, reject, timer, label });
    });
    return { id, promise };
  }

  has(id: number): boolean {
    return this.#calls.has(id);
  }

  resolve(id: number, value: T): boolean {
    const call = this.#take(id);
    call?.resolve(value);
    return call !== undefined;
  }

  reject(id: number, error: Error): boolean {
    const call = this.#take(id);
    call?.reject(error);
    return call !== undefined;
  }

  /** Fails every waiter, e.g. when the socket closed; `why` receives each call's label. */
  rejectAll(why: (label: string) => Error): void {
    const calls = [...this.#calls.values()];
    for (const call of calls) clearTimeout(call.timer);
    this.#calls.clear();
    for (const call of calls) call.reject(why(call.label));
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
