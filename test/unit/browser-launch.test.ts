import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chromeColor, decorateProfile, readDecoration } from '../../relay/browser/decorate';
import { candidates, findExecutable } from '../../relay/browser/executable';
import { decideLaunch, launchArgs } from '../../relay/browser/launch-args';
import { launchHint } from '../../relay/browser/managed-browser';
import { parsePs } from '../../relay/browser/processes';

describe('launch decisions', () => {
  it('adds --no-sandbox as root and goes headless without a display, saying why', () => {
    expect(decideLaunch({ headless: false, noSandbox: false }, 'linux', {}, 0)).toEqual({
      headless: true,
      headlessReason: 'no display',
      noSandbox: true,
      noSandboxReason: 'running as root',
    });
    expect(decideLaunch({ headless: false, noSandbox: false }, 'linux', { DISPLAY: ':0' }, 1000)).toEqual({
      headless: false,
      noSandbox: false,
    });
    expect(decideLaunch({ headless: true, noSandbox: true }, 'darwin', {}, 501)).toEqual({
      headless: true,
      headlessReason: 'config',
      noSandbox: true,
      noSandboxReason: 'config',
    });
  });

  it('launches a managed browser on its pipe, listening on no port of its own', () => {
    const args = launchArgs({
      userDataDir: '/h/profiles/clawd/user-data',
      choice: { headless: true, noSandbox: false },
      extraArgs: [],
      platform: 'linux',
    });
    expect(args).toContain('--remote-debugging-pipe');
    expect(
      args.filter((a) => a.startsWith('--remote-debugging-port') || a.startsWith('--remote-debugging-address')),
    ).toEqual([]);
  });

  it('launches on its own user data dir and port, never the user profile, never 9222', () => {
    const args = launchArgs({
      userDataDir: '/h/profiles/clawd/user-data',
      cdpPort: 18800,
      choice: { headless: true, noSandbox: false },
      extraArgs: ['--lang=en'],
      platform: 'linux',
    });
    expect(args).toContain('--user-data-dir=/h/profiles/clawd/user-data');
    expect(args).toContain('--remote-debugging-port=18800');
    expect(args).toEqual(
      expect.arrayContaining([
        '--no-first-run',
        '--disable-sync',
        '--disable-background-networking',
        '--headless=new',
        '--window-size=1280,900',
        '--lang=en',
      ]),
    );
    expect(args).not.toContain('--no-sandbox');
    expect(args.at(-1)).toBe('about:blank');
    expect(args.join(' ')).not.toContain('9222');
  });

  it('hints at the fix for the usual launch failures', () => {
    expect(launchHint('Running as root without --no-sandbox is not supported')).toMatch(/"noSandbox": true/);
    expect(launchHint('Missing X server or $DISPLAY')).toMatch(/"headless": true/);
    expect(launchHint('something else')).toMatch(/executablePath/);
  });
});

describe('finding the browser', () => {
  it('takes the config, then CLAWD_CHROME_PATH, then the first installed candidate', () => {
    const has =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    expect(findExecutable('/opt/c/chrome', {}, has('/opt/c/chrome'))).toEqual({
      path: '/opt/c/chrome',
      source: 'config',
    });
    expect(findExecutable(undefined, { CLAWD_CHROME_PATH: '/x/chromium' }, has('/x/chromium'))).toEqual({
      path: '/x/chromium',
      source: 'CLAWD_CHROME_PATH',
    });
    expect(() => findExecutable('/missing', {}, has())).toThrow(/browser.executablePath "\/missing" does not exist/);
    expect(() => findExecutable(undefined, {}, has())).toThrow(/No Chrome-family browser found/);
  });

  it('prefers Canary, then Chromium, then Chrome, then Brave and Edge, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const order = [
        ...new Set(candidates(platform, { LOCALAPPDATA: 'C:\\\\L', PROGRAMFILES: 'C:\\\\P' }).map((c) => c.name)),
      ];
      expect(order).toEqual(['Chrome Canary', 'Chromium', 'Chrome', 'Brave', 'Edge']);
    }
    expect(candidates('darwin').map((c) => c.path)).toContain(
      path.join(os.homedir(), 'Applications', 'Chromium.app/Contents/MacOS/Chromium'),
    );
    expect(candidates('linux').map((c) => c.path)).toEqual(
      expect.arrayContaining(['/usr/bin/chromium', '/snap/bin/chromium']),
    );
  });
});

describe('profile decoration', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("writes name, colour and clean-exit flags, merging into Chromium's own files", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-deco-'));
    dirs.push(dir);
    await decorateProfile(dir, 'clawd', '#FF4500');
    writeFileSync(
      path.join(dir, 'Default', 'Preferences'),
      JSON.stringify({
        ...JSON.parse(readFileSync(path.join(dir, 'Default', 'Preferences'), 'utf8')),
        kept: 1,
        profile: { name: 'clawd', exit_type: 'SessionEnded' },
      }),
    );
    await decorateProfile(dir, 'clawd', '#FF4500');
    expect(await readDecoration(dir)).toEqual({ name: 'clawd', color: '#FF4500' });
    const prefs = JSON.parse(readFileSync(path.join(dir, 'Default', 'Preferences'), 'utf8'));
    expect(prefs).toMatchObject({
      kept: 1,
      profile: { name: 'clawd', exit_type: 'Normal', exited_cleanly: true },
      browser: { theme: { user_color: chromeColor('#FF4500') } },
    });
    expect(chromeColor('#FF4500')).toBe(-47872); // what Chromium 156 itself stores
  });
});

it('reads ps output into pids and command lines', () => {
  expect(parsePs('  12 /usr/bin/chromium --user-data-dir=/a b\n 3 node x\n\n')).toEqual([
    { pid: 12, args: '/usr/bin/chromium --user-data-dir=/a b' },
    { pid: 3, args: 'node x' },
  ]);
});
