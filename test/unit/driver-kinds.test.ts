// Driver kinds are plug-ins: config.json knows a kind once its module registered it (its own keys
// checked by it), create-profile makes its entry through it, and no code outside relay/profiles/
// asks which kind a profile is.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultBrowserConfig, parseBrowserConfig } from '../../relay/home/config-schema';
import { driverKind, registerDriverKind, type DriverKind } from '../../relay/profiles/driver-kinds';
import type { ProfileDriver } from '../../relay/profiles/profile-driver';
import '../../relay/profiles/kinds'; // the profile kinds, known to config parsing

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

  it('are known to config.json once registered, their own keys checked by them', async () => {
    expect(() =>
      parseBrowserConfig(config({ far: { driver: 'place', color: '#123456', place: 'x' } }), 'c.json'),
    ).toThrow(/browser\.profiles\.far\.driver must be one of "managed", .*, got "place"/);
    registerDriverKind(placeKind);
    const parsed = parseBrowserConfig(config({ far: { driver: 'place', color: '#123456', place: 'x' } }), 'c.json');
    expect(parsed.profiles.far).toEqual({ driver: 'place', color: '#123456', place: 'x' });
    expect(() => parseBrowserConfig(config({ far: { driver: 'place', color: '#123456' } }), 'c.json')).toThrow(
      'browser.profiles.far.place must be a string, got undefined',
    );
    expect(await driverKind('place').newProfile({ place: 'y' }, parsed, 'http://relay')).toEqual({ place: 'y' });
    expect(() => driverKind('nope')).toThrow(/driver must be one of .*"place", got "nope"/);
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
