// Driver kinds are plug-ins: config.json knows the kinds a parse is handed (their own keys checked
// by them), create-profile makes its entry through the one it names or a field of it chooses, and
// no code outside relay/profiles/ asks which kind a profile is.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultBrowserConfig, parseBrowserConfig } from '../../relay/home/config-schema';
import { DriverKinds, type DriverKind } from '../../relay/profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../../relay/profiles/kinds';
import type { ProfileDriver, ProfileStatus } from '../../relay/profiles/profile-driver';
import { statusLines } from '../../relay/operations/tab-operations';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A kind of this test's own: a browser somewhere, named by `place`. */
const placeKind: DriverKind = {
  kind: 'place',
  defaultAsk: ['download'],
  parseOwnKeys: (entry, key, fail) =>
    typeof entry.place === 'string' ? { place: entry.place } : fail(`${key}.place`, 'must be a string', entry.place),
  newProfile: async (input) => ({ place: String(input.place ?? 'nowhere') }),
  create: (name) => ({ name, driver: 'place' }) as unknown as ProfileDriver,
};

describe('driver kinds', () => {
  const config = (profiles: Record<string, unknown>) => ({
    ...JSON.parse(JSON.stringify(defaultBrowserConfig(18792, 18800))),
    profiles: { ...defaultBrowserConfig(18792, 18800).profiles, ...profiles },
  });

  it('are known to config.json when handed to its parse, their own keys checked by them', async () => {
    const builtIn = new DriverKinds(BUILT_IN_KINDS);
    const far = config({ far: { driver: 'place', color: '#123456', place: 'x' } });
    expect(() => parseBrowserConfig(far, 'c.json', builtIn)).toThrow(
      /browser\.profiles\.far\.driver must be one of "managed", .*, got "place"/,
    );
    const kinds = new DriverKinds([...BUILT_IN_KINDS, placeKind]);
    const parsed = parseBrowserConfig(far, 'c.json', kinds);
    expect(parsed.profiles.far).toEqual({ driver: 'place', color: '#123456', place: 'x' });
    expect(() => parseBrowserConfig(config({ far: { driver: 'place', color: '#123456' } }), 'c.json', kinds)).toThrow(
      'browser.profiles.far.place must be a string, got undefined',
    );
    // A reader that knows no kinds (a client after the token) keeps each profile's own keys as written.
    expect(parseBrowserConfig(far, 'c.json').profiles.far).toEqual({ driver: 'place', color: '#123456', place: 'x' });
    expect(await kinds.kind('place').newProfile({ place: 'y' }, parsed, 'http://relay')).toEqual({ place: 'y' });
    expect(() => kinds.kind('nope')).toThrow(/driver must be one of .*"place", got "nope"/);
  });

  it("choose a new profile's kind: the one named, else the one a field chooses, else the first", () => {
    const kinds = new DriverKinds([...BUILT_IN_KINDS, { ...placeKind, chosenBy: 'place' }]);
    expect(kinds.chosenFor({ driver: 'extension' }).kind).toBe('extension');
    expect(kinds.chosenFor({ cdpUrl: 'http://127.0.0.1:9' }).kind).toBe('remote');
    expect(kinds.chosenFor({ gridUrl: 'http://grid:4444' }).kind).toBe('grid');
    expect(kinds.chosenFor({ place: 'x' }).kind).toBe('place');
    expect(kinds.chosenFor({}).kind).toBe('managed');
    expect(() => kinds.chosenFor({ cdpUrl: 'http://127.0.0.1:9', gridUrl: 'http://grid:4444' })).toThrow(
      'give one of cdpUrl, gridUrl',
    );
    expect(() => new DriverKinds([placeKind, placeKind])).toThrow('two kinds of profile are named place');
  });

  it('say what is their own of a profile in status lines of their own, printed as they are', () => {
    const status = {
      profile: 'far',
      driver: 'place',
      state: 'running',
      pid: null,
      cdpPort: null,
      cdpUrl: 'http://127.0.0.1:9',
      browser: null,
      color: '#123456',
      details: ['placed in the far cupboard'],
    } as unknown as ProfileStatus;
    expect(statusLines(status)).toEqual([
      'far (place): running',
      '  http://127.0.0.1:9',
      '  placed in the far cupboard',
      '  color      #123456',
    ]);
  });

  it('are never asked about outside relay/profiles/ (what differs is a member of the driver)', () => {
    const sources = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
        const rel = path.join(dir, entry.name);
        if (entry.isDirectory()) return rel.startsWith('relay/profiles') ? [] : sources(rel);
        return entry.name.endsWith('.ts') ? [rel] : [];
      });
    const asked = sources('relay').flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => [`${file}:${i + 1}`, line] as const)
        .filter(([, line]) => /\.driver\s*[!=]==|instanceof\s+\w+Driver\b|profilesOf\(/.test(line))
        .map(([where]) => where),
    );
    expect(asked).toEqual([]);
  });
});
