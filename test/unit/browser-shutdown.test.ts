import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { removeSingletonLeftovers, removeStaleSingleton, requestBrowserClose } from '../../relay/browser/shutdown';
import { useTempDirs } from '../helpers/temp-dirs';

describe('leftovers of a browser that did not shut down cleanly', () => {
  const temp = useTempDirs('clawd-shutdown-');

  /** A profile dir and a fake temp dir holding Chromium's singleton folder, linked as Chromium links them. */
  function profile(opts: { lockOwner?: string; extraInFolder?: string; folderOutsideTemp?: boolean } = {}) {
    const root = path.dirname(temp.home());
    const tempDir = path.join(root, 'tmp');
    const userDataDir = path.join(root, 'user-data');
    mkdirSync(userDataDir, { recursive: true });
    const folder = path.join(
      opts.folderOutsideTemp ? path.join(root, 'elsewhere') : tempDir,
      'org.chromium.Chromium.abc123',
    );
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'SingletonSocket'), '');
    writeFileSync(path.join(folder, 'SingletonCookie'), '');
    if (opts.extraInFolder) writeFileSync(path.join(folder, opts.extraInFolder), 'keep me');
    symlinkSync(path.join(folder, 'SingletonSocket'), path.join(userDataDir, 'SingletonSocket'));
    symlinkSync('1234567', path.join(userDataDir, 'SingletonCookie'));
    symlinkSync(opts.lockOwner ?? `${os.hostname()}-999999`, path.join(userDataDir, 'SingletonLock'));
    return { tempDir, userDataDir, folder };
  }

  it('removes the singleton links and the temp folder the socket link points at', async () => {
    const p = profile();
    await removeSingletonLeftovers(p.userDataDir, p.tempDir);
    expect(existsSync(p.folder)).toBe(false);
    expect(readdirSync(p.userDataDir)).toEqual([]);
  });

  it('never deletes a folder outside the temp dir, or one holding anything else', async () => {
    for (const opts of [{ folderOutsideTemp: true }, { extraInFolder: 'notes.txt' }]) {
      const p = profile(opts);
      await removeSingletonLeftovers(p.userDataDir, p.tempDir);
      expect(existsSync(p.folder), JSON.stringify(opts)).toBe(true);
      expect(readdirSync(p.userDataDir)).toEqual([]);
    }
  });

  it('treats a lock as stale only when its process on this host is gone', async () => {
    const live = profile({ lockOwner: `${os.hostname()}-${process.pid}` });
    expect(await removeStaleSingleton(live.userDataDir, live.tempDir)).toBe(false);
    expect(existsSync(live.folder)).toBe(true);

    const otherHost = profile({ lockOwner: 'some-other-host-999999' });
    expect(await removeStaleSingleton(otherHost.userDataDir, otherHost.tempDir)).toBe(false);
    expect(existsSync(otherHost.folder)).toBe(true);

    const dead = profile();
    expect(await removeStaleSingleton(dead.userDataDir, dead.tempDir)).toBe(true);
    expect(existsSync(dead.folder)).toBe(false);

    const none = mkdtempSync(path.join(path.dirname(temp.home()), 'empty-'));
    expect(await removeStaleSingleton(none)).toBe(false);
  });
});

describe('asking a browser to close over CDP', () => {
  const servers: WebSocketServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });
  async function server(onMessage: (socket: import('ws').WebSocket, data: string) => void): Promise<string> {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    servers.push(wss);
    await new Promise((resolve) => wss.once('listening', resolve));
    wss.on('connection', (socket) => socket.on('message', (data) => onMessage(socket, String(data))));
    return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/devtools/browser/x`;
  }

  it('sends Browser.close and says yes when the browser answers or hangs up', async () => {
    const seen: string[] = [];
    const answers = await server((socket, data) => {
      seen.push(JSON.parse(data).method);
      socket.send(JSON.stringify({ id: 1, result: {} }));
    });
    expect(await requestBrowserClose(answers, 2_000)).toBe(true);
    expect(seen).toEqual(['Browser.close']);
    const hangsUp = await server((socket) => socket.terminate());
    expect(await requestBrowserClose(hangsUp, 2_000)).toBe(true);
  });

  it('says no, within its bound, when nobody listens or nobody answers', async () => {
    const silent = await server(() => {});
    expect(await requestBrowserClose(silent, 200)).toBe(false);
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => wss.once('listening', resolve));
    const port = (wss.address() as AddressInfo).port;
    await new Promise((resolve) => wss.close(resolve));
    expect(await requestBrowserClose(`ws://127.0.0.1:${port}/`, 2_000)).toBe(false);
  });
});
