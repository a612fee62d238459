// The server a test's native host started in the test's own home: what its serve.json says, and
// stopping it when the file ends (it runs detached, as for the person: nothing else would end it).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { until } from './waits';

/** The home's serve.json while a server runs there, else undefined. */
export function serveStateOf<T extends { pid: number }>(home: string): T | undefined {
  const file = path.join(home, 'serve.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

/** Stops the home's server, if one runs, and waits (bounded) until it is gone. */
export async function stopServerOf(home: string): Promise<void> {
  const state = serveStateOf(home);
  if (!state) return;
  try {
    process.kill(state.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  await until('the server to stop', () => !existsSync(path.join(home, 'serve.json')), 15_000).catch(() => {});
}
