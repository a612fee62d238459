// The context of one call to an operation. What happened on the way to an answer that the
// caller should hear of besides the answer (a
// stopped profile started on first use). Kept per call with AsyncLocalStorage, so concurrent
// calls never hear each other's notes; the door that took the call says them: an HTTP header
// (X-Clawd-Note), a line before an MCP tool's text, a progress line on the CLI. A note is also
// handed at once to the door's listener, so a call that waits (for the person's answer) can
// say so while it waits.

import { AsyncLocalStorage } from 'node:async_hooks';

interface CallNotes {
  notes: string[];
  live?: (note: string) => void;
  /** Aborted when the caller goes away (its HTTP request closed, its MCP request cancelled). */
  signal?: AbortSignal;
}

const calls = new AsyncLocalStorage<CallNotes>();

/** Runs one call, collecting what `noteForCaller` says during it; `live` hears each note as it is said. */
export async function collectNotes<T>(
  work: () => Promise<T>,
  live?: (note: string) => void,
  signal?: AbortSignal,
): Promise<{ value: T; notes: string[] }> {
  const store: CallNotes = { notes: [], ...(live ? { live } : {}), ...(signal ? { signal } : {}) };
  const value = await calls.run(store, work);
  return { value, notes: store.notes };
}

/** The current call's signal: aborted when its caller has gone (a wait for the person then ends). */
export function callerSignal(): AbortSignal | undefined {
  return calls.getStore()?.signal;
}

/**
 * The current call's own ear, kept for calls it makes in turn (a recipe's steps): what they say
 * reaches this call's caller, not only the inner call's store.
 */
export function callerNotes(): ((note: string) => void) | undefined {
  const store = calls.getStore();
  return (
    store &&
    ((note: string) => {
      store.notes.push(note);
      store.live?.(note);
    })
  );
}

/** Tells the caller of the current call something (plain ASCII: it may travel as a header). Outside a call: nobody hears it. */
export function noteForCaller(note: string): void {
  const store = calls.getStore();
  if (!store) return;
  store.notes.push(note);
  store.live?.(note);
}
