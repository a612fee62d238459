// Ending a managed browser the way Chromium likes: `Browser.close` over CDP first. Measured on
// Chromium 156: after `Browser.close` the profile records a normal exit and Chromium removes its
// singleton folder (`/tmp/org.chromium.Chromium.XXXXXX` holding the SingletonSocket); after
// SIGTERM it exits with status 0 but leaves that folder behind, one per stop, forever. Signals
// stay the fallback for a browser that does not answer, and the leftovers of a killed browser are
// removed afterwards.

import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { isAlive } from './processes';

/**
 * Sends `Browser.close` on the browser's WebSocket; resolves true once Chromium has taken it
 * (the socket closes as the browser goes), false if it could not be asked within `timeoutMs`.
 */
export function requestBrowserClose(webSocketUrl: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(webSocketUrl, { handshakeTimeout: timeoutMs });
    const timer = setTimeout(() => finish(false), timeoutMs);
    let asked = false;
    function finish(result: boolean): void {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => {}); // a late socket error after we are done must not crash the process
      if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
      resolve(result);
    }
    ws.once('open', () => {
      asked = true;
      ws.send(JSON.stringify({ id: 1, method: 'Browser.close' }));
    });
    // Chromium answers {id: 1} and then drops the connection as it shuts down; either says yes.
    ws.on('message', () => finish(true));
    ws.once('close', () => finish(asked));
    ws.once('error', () => finish(false));
  });
}

const SINGLETONS = ['SingletonLock', 'SingletonCookie', 'SingletonSocket'];

/**
 * Removes what a browser that did not shut down cleanly leaves: the singleton links in its user
 * data dir and the temp folder the socket link points at. Only touches a folder that is in the
 * temp dir and holds nothing but singleton files, so a stray link cannot make us delete anything
 * else. Call only when no browser runs on this profile.
 */
export async function removeSingletonLeftovers(userDataDir: string, tempDir: string = os.tmpdir()): Promise<void> {
  const target = await fs.readlink(path.join(userDataDir, 'SingletonSocket')).catch(() => undefined);
  if (target) {
    const folder = path.dirname(target);
    const inTemp = path.dirname(path.resolve(folder)) === path.resolve(tempDir);
    const entries = inTemp ? await fs.readdir(folder).catch(() => undefined) : undefined;
    if (entries && entries.every((entry) => SINGLETONS.includes(entry)))
      await fs.rm(folder, { recursive: true, force: true });
  }
  await Promise.all(SINGLETONS.map((name) => fs.rm(path.join(userDataDir, name), { force: true })));
}

/**
 * Before a launch: if the profile's SingletonLock names a process on this host that is gone (a
 * browser that crashed or was killed), removes its leftovers. A lock held by a live process is
 * left alone — Chromium itself then refuses the profile, and the launch error says so.
 */
export async function removeStaleSingleton(userDataDir: string, tempDir: string = os.tmpdir()): Promise<boolean> {
  const lock = await fs.readlink(path.join(userDataDir, 'SingletonLock')).catch(() => undefined);
  const owner = lock?.match(/^(.*)-(\d+)$/);
  if (!owner || owner[1] !== os.hostname() || isAlive(Number(owner[2]))) return false;
  await removeSingletonLeftovers(userDataDir, tempDir);
  return true;
}
