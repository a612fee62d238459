// serve.json in the home: where the running `clawd serve` listens, so the CLI (and doctor) find
// it even when it was started on other ports. Written on start (0600), removed on clean stop;
// a file left by a crashed server is recognised by its dead pid.

import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface ServeState {
  pid: number;
  version: string;
  controlUrl: string;
  relayUrl: string;
}

const file = (home: string) => path.join(home, 'serve.json');

export async function writeServeState(home: string, state: ServeState): Promise<void> {
  const temp = `${file(home)}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  await fs.rename(temp, file(home));
}

export async function readServeState(home: string): Promise<ServeState | undefined> {
  try {
    const state = JSON.parse(await fs.readFile(file(home), 'utf8')) as ServeState;
    return typeof state.controlUrl === 'string' && typeof state.relayUrl === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Removes serve.json if it is still ours (another server may have replaced it). */
export async function removeServeState(home: string): Promise<void> {
  const state = await readServeState(home);
  if (state?.pid === process.pid) await fs.rm(file(home), { force: true });
}
