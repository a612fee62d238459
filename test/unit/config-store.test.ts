import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig, resolveHome, updateConfig, writeConfig } from '../../relay/home/config-store';
import { DriverKinds } from '../../relay/profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../../relay/profiles/kinds';
import { defaultBrowserConfig } from '../../relay/home/config-schema';
import { useTempDirs } from '../helpers/temp-dirs';
import { quiet } from '../helpers/waits';

describe('the home folder and config.json', () => {
  const temp = useTempDirs('clawd-home-');
  const tempHome = () => temp.home();

  it('resolves --home, then $CLAWD_HOME, then ~/.clawd', () => {
    expect(resolveHome('/x/y', { CLAWD_HOME: '/z' })).toBe('/x/y');
    expect(resolveHome(undefined, { CLAWD_HOME: '/z' })).toBe('/z');
    expect(resolveHome(undefined, {})).toBe(path.join(os.homedir(), '.clawd'));
  });

  it('creates the folder and a 0600 config with a random token on first run, and keeps it', async () => {
    const home = tempHome();
    const first = await loadConfig(home);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(path.join(home, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect((await loadConfig(home)).token).toBe(first.token);
    expect(readdirSync(home)).toEqual(['config.json']);
  });

  it('gives concurrent first runs one token', async () => {
    const home = tempHome();
    const tokens = new Set((await Promise.all(Array.from({ length: 8 }, () => loadConfig(home)))).map((c) => c.token));
    expect(tokens.size).toBe(1);
    expect(JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')).token).toBe([...tokens][0]);
  });

  it('names the file and the problem for a bad config, and leaves it untouched', async () => {
    const home = tempHome();
    await writeConfig(home, { token: 'a'.repeat(20), browser: defaultBrowserConfig() });
    const file = path.join(home, 'config.json');
    writeFileSync(file, '{"token": ');
    await expect(loadConfig(home)).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining(`${file} is not valid JSON`),
    });
    expect(readFileSync(file, 'utf8')).toBe('{"token": ');
    writeFileSync(file, '{"token": 42}');
    await expect(loadConfig(home)).rejects.toThrow(/"token" must be a string of at least 16 characters, got 42/);
  });

  it('takes a list of extension ids for relay.extensionIds, and names a bad one', () => {
    const token = 'x'.repeat(24);
    expect(
      parseConfig(
        JSON.stringify({ token, relay: { extensionIds: ['abcdefghijklmnopabcdefghijklmnop'] } }),
        'config.json',
      ).relay,
    ).toEqual({ extensionIds: ['abcdefghijklmnopabcdefghijklmnop'] });
    expect(() => parseConfig(JSON.stringify({ token, relay: { extensionIds: ['not-an-id'] } }), 'config.json')).toThrow(
      /relay\.extensionIds must be a list of Chrome extension ids .* got \["not-an-id"\]/,
    );
    expect(() => parseConfig(JSON.stringify({ token, relay: 'x' }), 'config.json')).toThrow(
      '"relay" must be an object',
    );
  });

  it('takes relay.clientMaxBufferedMb in megabytes, and names a bad value', () => {
    const token = 'x'.repeat(24);
    expect(parseConfig(JSON.stringify({ token, relay: { clientMaxBufferedMb: 32 } }), 'config.json').relay).toEqual({
      clientMaxBufferedMb: 32,
    });
    for (const bad of [0, 2048, 1.5, '64']) {
      expect(() => parseConfig(JSON.stringify({ token, relay: { clientMaxBufferedMb: bad } }), 'config.json')).toThrow(
        `relay.clientMaxBufferedMb must be an integer from 1 to 1024, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('takes extension.idleDetachMs (0: never), and names a bad value', () => {
    const token = 'x'.repeat(24);
    for (const ms of [0, 30_000]) {
      const parsed = parseConfig(JSON.stringify({ token, extension: { idleDetachMs: ms } }), 'config.json');
      expect(parsed.extension).toEqual({ idleDetachMs: ms });
    }
    for (const bad of [-1, 1.5, '30000', 86_400_001]) {
      expect(() => parseConfig(JSON.stringify({ token, extension: { idleDetachMs: bad } }), 'config.json')).toThrow(
        `extension.idleDetachMs must be an integer number of milliseconds from 0 (never) to 86400000, got ${JSON.stringify(bad)}`,
      );
    }
    expect(() => parseConfig(JSON.stringify({ token, extension: [] }), 'config.json')).toThrow(
      '"extension" must be an object',
    );
  });

  it('keeps keys it does not know, and fills in a missing browser section', async () => {
    const home = tempHome();
    mkdirSync(home);
    writeFileSync(path.join(home, 'config.json'), JSON.stringify({ token: 'b'.repeat(20), later: { feature: true } }));
    expect(await loadConfig(home)).toEqual({
      token: 'b'.repeat(20),
      later: { feature: true },
      browser: defaultBrowserConfig(),
    });
  });

  it('creates the clawd and chrome profiles on first run', async () => {
    const home = tempHome();
    const { browser } = await loadConfig(home, { relayPort: 4321 });
    expect(browser.defaultProfile).toBe('clawd');
    expect(browser.profiles.clawd).toEqual({ driver: 'managed', cdpPort: expect.any(Number), color: '#FF4500' });
    expect(browser.profiles.chrome).toEqual({ driver: 'extension', cdpUrl: 'http://127.0.0.1:4321', color: '#00AA00' });
  });

  it('loses no update when writers run at once', async () => {
    const home = tempHome();
    await loadConfig(home);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        updateConfig(home, (config) => {
          config.browser.profiles[`p${i}`] = { driver: 'managed', cdpPort: 30_000 + i, color: '#123456' };
          return config;
        }),
      ),
    );
    const { profiles } = (await loadConfig(home)).browser;
    expect(
      Object.keys(profiles)
        .filter((n) => n.startsWith('p'))
        .sort(),
    ).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`).sort());
    expect(readdirSync(home).sort()).toEqual(['config.json']);
  });

  it('waits while another process holds the lock, then writes', async () => {
    const home = tempHome();
    await loadConfig(home);
    const lock = path.join(home, 'config.json.lock');
    writeFileSync(lock, 'another process'); // what a second clawd process holds while it writes
    let written = false;
    const update = updateConfig(home, (config) => ({ ...config, marker: 1 })).then(() => (written = true));
    await quiet(150);
    expect(written).toBe(false);
    rmSync(lock);
    await update;
    expect(JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')).marker).toBe(1);
  });

  it('breaks a lock left by a process that died', async () => {
    const home = tempHome();
    await loadConfig(home);
    const lock = path.join(home, 'config.json.lock');
    writeFileSync(lock, 'dead process');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await updateConfig(home, (config) => ({ ...config, marker: 2 }));
    expect(JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')).marker).toBe(2);
    expect(existsSync(lock)).toBe(false);
  });

  it('refuses to write a config that does not validate, and keeps the old one', async () => {
    const home = tempHome();
    await loadConfig(home);
    const before = readFileSync(path.join(home, 'config.json'), 'utf8');
    await expect(
      updateConfig(
        home,
        (config) => {
          config.browser.profiles.bad = { driver: 'managed', cdpPort: 70_000, color: '#123456' };
          return config;
        },
        new DriverKinds(BUILT_IN_KINDS),
      ),
    ).rejects.toThrow(/browser\.profiles\.bad\.cdpPort must be an integer from 1 to 65535, got 70000/);
    expect(readFileSync(path.join(home, 'config.json'), 'utf8')).toBe(before);
  });
});
