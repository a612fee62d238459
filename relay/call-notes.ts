// What happened on the way to an answer that the caller should hear of besides the answer (a
// stopped profile started on first use). Kept per call with AsyncLocalStorage, so concurrent
// calls never hear each other's notes; the door that took the call says them: an HTTP header
// (X-Clawd-Note), a line before an MCP tool's text, a progress line on the CLI.

import { AsyncLocalStorage } from 'node:async_hooks';

const calls = new AsyncLocalStorage<string[]>();

/** Runs one call, collecting what `noteForCaller` says during it. */
export async function collectNotes<T>(work: () => Promise<T>): Promise<{ value: T; notes: string[] }> {
  const notes: string[] = [];
  const value = await calls.run(notes, work);
  return { value, notes };
}

/** Tells the caller of the current call something (plain ASCII: it may travel as a header). Outside a call: nobody hears it. */
export function noteForCaller(note: string): void {
  calls.getStore()?.push(note);
}
