import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseHostAnswer, parseHostHello } from '../../shared/native-host-protocol';
import { hostManifest, launcherScript } from '../../relay/native-host/host-places';
import {
  hostFolder,
  installNativeHost,
  uninstallNativeHost,
  type HostTarget,
} from '../../relay/native-host/host-install';
import { installedPlaces } from '../../relay/native-host/host-status';
import { readNativeMessage, writeNativeMessage } from '../../relay/native-host/native-messaging';
import { HostLookups, type HostLookup } from '../../extension/src/native-host';

describe('what clawd install writes', () => {
  it('the manifest names the launcher and only the extension’s origin, with the slash Chrome wants', () => {
    expect(
      hostManifest('/h/native-host/clawd-native-host.sh', ['chrome-extension://abc', 'chrome-extension://def/']),
    ).toEqual({
      name: 'com.clawd.browser',
      description: expect.any(String),
      path: '/h/native-host/clawd-native-host.sh',
      type: 'stdio',
      allowed_origins: ['chrome-extension://abc/', 'chrome-extension://def/'],
    });
  });

  it('the launcher runs the bin’s native-host for its home, quoting paths with spaces, quotes and other letters', () => {
    const posix = launcherScript('linux', {
      node: '/opt/node 20/bin/node',
      bin: "/src/it's/clawd.js",
      home: '/home/ann/.clawd',
      args: ['--relay-port', '0'],
    });
    expect(posix.fileName).toBe('clawd-native-host.sh');
    expect(posix.text).toBe(
      "#!/bin/sh\nexec '/opt/node 20/bin/node' '/src/it'\\''s/clawd.js' 'native-host' '--home' '/home/ann/.clawd' '--relay-port' '0'\n",
    );
    const windows = launcherScript('win32', {
      node: 'C:\\Program Files\\nodejs\\node.exe',
      bin: 'C:\\Users\\Ann Ödön\\clawd\\dist\\clawd.js',
      home: 'C:\\Users\\Ann Ödön\\100%\\.clawd',
    });
    expect(windows.fileName).toBe('clawd-native-host.bat');
    expect(windows.text).toBe(
      '@echo off\r\n"C:\\Program Files\\nodejs\\node.exe" "C:\\Users\\Ann Ödön\\clawd\\dist\\clawd.js" "native-host" "--home" "C:\\Users\\Ann Ödön\\100%%\\.clawd"\r\n',
    );
  });
});

describe("Chrome's native messaging framing", () => {
  it('reads a message split across chunks and writes one with its little-endian length', async () => {
    const input = new PassThrough();
    const reading = readNativeMessage(input, 1_000);
    const body = Buffer.from(JSON.stringify({ type: 'hello', extensionVersion: '0.1.0' }));
    const header = Buffer.alloc(4);
    header.writeUInt32LE(body.length);
    const whole = Buffer.concat([header, body]);
    input.write(whole.subarray(0, 2));
    input.write(whole.subarray(2, 9));
    input.write(whole.subarray(9));
    expect(await reading).toEqual({ type: 'hello', extensionVersion: '0.1.0' });

    const output = new PassThrough();
    await writeNativeMessage(output, { type: 'error', message: 'é' });
    const written = output.read() as Buffer;
    expect(written.readUInt32LE(0)).toBe(written.length - 4);
    expect(JSON.parse(written.subarray(4).toString('utf8'))).toEqual({ type: 'error', message: 'é' });
  });

  it('refuses what is not Chrome talking: a huge length, not JSON, an end, silence', async () => {
    const frame = (length: number, text = '') => {
      const h = Buffer.alloc(4);
      h.writeUInt32LE(length);
      return Buffer.concat([h, Buffer.from(text)]);
    };
    const huge = new PassThrough();
    const hugeRead = readNativeMessage(huge, 1_000);
    huge.write(frame(10 * 1024 * 1024));
    await expect(hugeRead).rejects.toThrow(/10485760 bytes/);
    const garbled = new PassThrough();
    const garbledRead = readNativeMessage(garbled, 1_000);
    garbled.write(frame(3, 'abc'));
    await expect(garbledRead).rejects.toThrow(/not JSON/);
    const ended = new PassThrough();
    const endedRead = readNativeMessage(ended, 1_000);
    ended.end(frame(10, 'ab'));
    await expect(endedRead).rejects.toThrow(/ended before/);
    await expect(readNativeMessage(new PassThrough(), 50)).rejects.toThrow(/no message within/);
  });

  it('both sides parse what the other says, and say plainly what they could not', () => {
    expect(parseHostHello({ type: 'hello' })).toEqual({ type: 'hello', extensionVersion: '' });
    expect(parseHostHello({ type: 'bye' })).toBeUndefined();
    expect(parseHostHello(null)).toBeUndefined();
    expect(
      parseHostAnswer({ type: 'server', relayPort: 18792, key: 'k', version: '0.1.0', home: '/h', started: true }),
    ).toEqual({
      type: 'server',
      relayPort: 18792,
      key: 'k',
      version: '0.1.0',
      home: '/h',
      started: true,
    });
    expect(parseHostAnswer({ type: 'server', relayPort: 70000, key: 'k' })).toMatchObject({ type: 'error' });
    expect(parseHostAnswer({ type: 'server', relayPort: 1, key: '' })).toMatchObject({ type: 'error' });
    // An older host that answers the token: not a key, so not taken for one.
    expect(parseHostAnswer({ type: 'server', relayPort: 1, token: 't' })).toMatchObject({ type: 'error' });
    expect(parseHostAnswer({ type: 'error', message: 'no' })).toEqual({ type: 'error', message: 'no' });
    expect(parseHostAnswer('x')).toEqual({ type: 'error', message: expect.stringContaining('something else') });
  });
});

describe('clawd install and uninstall (Linux rules, on a folder of the test’s own)', () => {
  it('installs for the browsers this person has, finds them again, and takes them away', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-host-install-'));
    try {
      const home = path.join(root, 'clawd home');
      mkdirSync(path.join(root, '.config', 'chromium', 'Default'), { recursive: true });
      mkdirSync(path.join(root, '.config', 'BraveSoftware', 'Brave-Browser', 'Default'), { recursive: true });
      const target: HostTarget = {
        home,
        platform: 'linux',
        folders: { homedir: root, clawdManifestDir: hostFolder(home) },
      };
      const installed = await installNativeHost({
        ...target,
        node: '/usr/bin/node',
        bin: '/opt/clawd/dist/clawd.js',
        extensionOrigins: ['chrome-extension://abc'],
      });
      expect(installed.places.map((p) => p.place.browser)).toEqual(['chromium', 'brave']);
      expect(statSync(installed.launcher).mode & 0o111).not.toBe(0);
      expect(readFileSync(installed.launcher, 'utf8')).toContain(`'native-host' '--home' '${home}'`);
      const manifest = JSON.parse(
        readFileSync(path.join(root, '.config', 'chromium', 'NativeMessagingHosts', 'com.clawd.browser.json'), 'utf8'),
      ) as { path: string };
      expect(manifest.path).toBe(installed.launcher);
      expect((await installedPlaces(target)).map((p) => p.browser)).toEqual(['chromium', 'brave']);
      // Another home's install is not this one's.
      expect(await installedPlaces({ ...target, home: path.join(root, 'other') })).toEqual([]);

      const removedFrom = (results: Awaited<ReturnType<typeof uninstallNativeHost>>) =>
        results.filter((r) => r.removed.length > 0).map((r) => r.place.browser);
      expect(removedFrom(await uninstallNativeHost({ ...target, browser: 'brave' }))).toEqual(['brave']);
      expect((await installedPlaces(target)).map((p) => p.browser)).toEqual(['chromium']);
      expect(removedFrom(await uninstallNativeHost(target))).toEqual(['chromium']);
      expect(existsSync(hostFolder(home))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('says where it looked when no browser is there', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-host-install-'));
    try {
      await expect(
        installNativeHost({
          home: path.join(root, 'h'),
          platform: 'linux',
          folders: { homedir: root, clawdManifestDir: path.join(root, 'h', 'native-host') },
          node: 'node',
          bin: 'clawd.js',
          extensionOrigins: ['chrome-extension://abc'],
        }),
      ).rejects.toThrow(
        /no Chromium-family browser found for this user: pass --browser NAME, or --user-data-dir DIR .*Looked for:\n {2}Google Chrome: .*\/\.config\/google-chrome\n/s,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the extension asking the host', () => {
  const server = {
    type: 'server' as const,
    relayPort: 18800,
    key: 'new',
    version: '0.1.0',
    home: '/h',
    started: true,
  };

  it('applies an answer that differs from the settings, asks again only after a while, one question at a time', async () => {
    let clock = 0;
    let asked = 0;
    const applied: Array<[number, boolean]> = [];
    let answer: (value: HostLookup) => void = () => {};
    const lookups = new HostLookups(
      async () => ({ relayPort: 18792, key: 'old' }),
      async (s, changed) => void applied.push([s.relayPort, changed]),
      () => {
        asked++;
        return new Promise((resolve) => (answer = resolve));
      },
      () => clock,
    );
    const first = lookups.ask(true)!;
    expect(lookups.ask(true)).toBe(first); // one in flight
    answer({ kind: 'server', server });
    expect(await first).toEqual({ kind: 'server', server });
    expect(applied).toEqual([[18800, true]]);
    clock += 5_000;
    expect(lookups.ask()).toBeUndefined(); // too soon
    clock += 5_000;
    const second = lookups.ask()!;
    answer({ kind: 'absent', message: 'Specified native messaging host not found.' });
    expect((await second).kind).toBe('absent');
    expect(asked).toBe(2);
    expect(applied).toHaveLength(1); // nothing from a host that is not there
  });

  it('an answer equal to the settings is applied as unchanged (the link is woken, nothing saved)', async () => {
    const applied: boolean[] = [];
    const lookups = new HostLookups(
      async () => ({ relayPort: 18800, key: 'new' }),
      async (_s, changed) => void applied.push(changed),
      async () => ({ kind: 'server', server }),
    );
    await lookups.ask(true);
    expect(applied).toEqual([false]);
  });
});
