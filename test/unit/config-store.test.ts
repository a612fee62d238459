import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveHome, writeConfig } from '../../relay/home/config-store';
import { useTempDirs } from '../helpers/temp-dirs';

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
    await writeConfig(home, { token: 'a'.repeat(20) });
    const file = path.join(home, 'config.json');
    writeFileSync(file, '{"token": ');
    await expect(loadConfig(home)).rejects.toMatchObject({ code: 'config_invalid', message: expect.stringContaining(`${file} is not valid JSON`) });
    expect(readFileSync(file, 'utf8')).toBe('{"token": ');
    writeFileSync(file, '{"token": 42}');
    await expect(loadConfig(home)).rejects.toThrow(/"token" must be a string of at least 16 characters, got 42/);
  });

  it('keeps keys it does not know when writing', async () => {
    const home = tempHome();
    await writeConfig(home, { token: 'b'.repeat(20), later: { feature: true } });
    expect(await loadConfig(home)).toEqual({ token: 'b'.repeat(20), later: { feature: true } });
  });
});
