// The pool kind's own keys: config.json's `pool` checked with a clear error, create-profile's
// `--pool-size` chosen by and checked, a cdpUrl refused (its browsers are clawd's own).

import { describe, expect, it } from 'vitest';
import { defaultBrowserConfig, parseBrowserConfig } from '../../relay/home/config-schema';
import { DriverKinds } from '../../relay/profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../../relay/profiles/kinds';
import { poolKind } from '../../relay/profiles/pool/pool-config';

const kinds = new DriverKinds(BUILT_IN_KINDS);
const base = defaultBrowserConfig(18792, 18800);
const withPool = (pool: unknown) => ({
  ...JSON.parse(JSON.stringify(base)),
  profiles: { ...base.profiles, fast: { driver: 'pool', color: '#123456', ...(pool === undefined ? {} : { pool }) } },
});

describe('the pool kind', () => {
  it('takes its keys from config.json as written, and says which one is wrong', () => {
    expect(parseBrowserConfig(withPool(undefined), 'c.json', kinds).profiles.fast).toMatchObject({ driver: 'pool' });
    expect(parseBrowserConfig(withPool({ size: 0, idleMs: 60_000 }), 'c.json', kinds).profiles.fast).toMatchObject({
      pool: { size: 0, idleMs: 60_000 },
    });
    expect(() => parseBrowserConfig(withPool({ size: 'two' }), 'c.json', kinds)).toThrow(
      /browser\.profiles\.fast\.pool\.size must be a whole number from 0 to 16, got "two"/,
    );
    expect(() => parseBrowserConfig(withPool({ size: 5, maxBrowsers: 3 }), 'c.json', kinds)).toThrow(
      /pool\.size must not be over maxBrowsers \(3\), got 5/,
    );
    expect(() => parseBrowserConfig(withPool([2]), 'c.json', kinds)).toThrow(/pool must be \{"size": 2/);
  });

  it('is chosen by --pool-size, checks it, and refuses a cdpUrl', async () => {
    expect(kinds.chosenFor({ poolSize: '3' }).kind).toBe('pool');
    expect(await poolKind.newProfile({ poolSize: '3' }, base, '')).toEqual({ pool: { size: 3 } });
    expect(await poolKind.newProfile({}, base, '')).toEqual({});
    await expect(poolKind.newProfile({ poolSize: '-1' }, base, '')).rejects.toThrow(
      'pool.size must be a whole number from 0 to 16, got "-1"',
    );
    await expect(poolKind.newProfile({ cdpUrl: 'http://127.0.0.1:9222' }, base, '')).rejects.toThrow(
      /cdpUrl is not for a pool profile/,
    );
  });
});
