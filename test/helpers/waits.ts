// Every way a test waits, in one place, each with a bound and a label so a failure says what
// never happened: poll until a condition holds, fail if a promise stays pending, take the next
// matching message from a stream, or let a moment pass to show that something does NOT happen;
// and answer the person's questions while a call waits for them.

import { SIDE_PANEL, type PersonQuestions, type Question } from '../../relay/consent/person-questions';

/**
 * Polls `probe` until it returns something other than undefined or false; fails after `timeoutMs`.
 * A probe's error is kept for the failure's message, or thrown at once where `stopsOn` says so.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  everyMs = 50,
  stopsOn: (error: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      if (stopsOn(error)) throw error;
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    await quiet(everyMs);
  }
}

/** Rejects if `promise` has not settled after `ms`: for behaviour that must "not hang". */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Lets `ms` pass. Only for asserting that something does NOT happen (an event that must not be
 * delivered, a write that must wait for a lock); to wait for something, use `until`.
 */
export function quiet(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The next item from `subscribe` (a stream of messages) that matches, within `timeoutMs`.
 * `subscribe` registers a listener and returns its removal.
 */
export function nextMatching<M>(
  subscribe: (listener: (message: M) => void) => () => void,
  matches: (message: M) => boolean,
  what: string,
  timeoutMs: number,
): Promise<M> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const off = subscribe((message) => {
      if (!matches(message)) return;
      clearTimeout(timer);
      off();
      resolve(message);
    });
  });
}

/**
 * Answers, as the person's side panel would, each question `decide` has an answer for (true:
 * allow, false: deny, undefined: leave it) while `call` runs: those already waiting and each one
 * asked meanwhile, told by the questions' own events. Returns what the call returns.
 */
export async function answeringWhile<T>(
  questions: PersonQuestions,
  decide: (question: Question) => boolean | undefined,
  call: Promise<T>,
): Promise<T> {
  const answer = (question: Question) => {
    const allow = decide(question);
    if (allow !== undefined) questions.answer(question.id, allow, SIDE_PANEL);
  };
  // After the asking call has its question in place: answered on the next turn.
  const off = questions.onChange((change) => {
    if (change.state === 'asked') setImmediate(() => answer(change.question));
  });
  try {
    for (const question of questions.pending()) answer(question);
    return await call;
  } finally {
    off();
  }
}
