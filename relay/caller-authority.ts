// Whose call this is: an agent's (the token: what agents are given) or the person's terminal
// (the token and the person's key, which clawd's person commands read from the home). Kept per
// call with AsyncLocalStorage, set by the control API's guard, so an operation deep inside (the
// policy, which only the person may loosen) asks it without every layer passing it along.
// Outside any call, and wherever the guard did not run, a call is an agent's.

import { AsyncLocalStorage } from 'node:async_hooks';

export type Authority = 'agent' | 'person';

const callers = new AsyncLocalStorage<Authority>();

/** Runs `work` as a call of `authority`. */
export function asCaller<T>(authority: Authority, work: () => T): T {
  return callers.run(authority, work);
}

/** The current call's authority; `agent` unless the guard said the person. */
export function callerAuthority(): Authority {
  return callers.getStore() ?? 'agent';
}
