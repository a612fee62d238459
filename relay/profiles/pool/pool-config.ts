// The `pool` kind: a profile of clawd's own browsers, a fresh one per agent session, a few kept
// warm — its config.json keys (`pool: { size?, maxBrowsers?, idleMs? }`), how `create-profile
// --driver pool [--pool-size N]` makes one, and its driver. Registered in ../kinds.ts.

import { ClawdError } from '../../errors';
import type { ConfigFail } from '../../home/profile-kinds';
import type { DriverKind } from '../driver-kinds';
import { guardWaits, rawClientRules } from '../raw-client-rules';
import { PoolDriver, type PoolProfileConfig } from './pool-driver';

const DEFAULTS = { size: 2, maxBrowsers: 8, idleMs: 10 * 60_000 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parsePool(value: unknown, key: string, fail: ConfigFail): Omit<PoolProfileConfig, 'color'> {
  if (value === undefined) return DEFAULTS;
  if (!isObject(value))
    return fail(key, 'must be {"size": 2, "maxBrowsers": 8, "idleMs": 600000} (each optional)', value);
  const whole = (name: keyof typeof DEFAULTS, min: number, max: number) => {
    const got = value[name];
    if (got === undefined) return DEFAULTS[name];
    return Number.isInteger(got) && (got as number) >= min && (got as number) <= max
      ? (got as number)
      : fail(`${key}.${name}`, `must be a whole number from ${min} to ${max}`, got);
  };
  const parsed = {
    size: whole('size', 0, 16),
    maxBrowsers: whole('maxBrowsers', 1, 64),
    idleMs: whole('idleMs', 1_000, 24 * 3_600_000),
  };
  if (parsed.size > parsed.maxBrowsers)
    fail(`${key}.size`, `must not be over maxBrowsers (${parsed.maxBrowsers})`, parsed.size);
  return parsed;
}

export const poolKind: DriverKind = {
  kind: 'pool',
  defaultAsk: [],
  chosenBy: 'poolSize',
  flags: {
    'pool-size': {
      input: 'poolSize',
      value: 'N',
      help: 'a pool profile: a fresh browser per agent session, N kept warm (default 2; 0: launched when asked)',
    },
  },
  parseOwnKeys: (entry, key, fail) => {
    parsePool(entry.pool, `${key}.pool`, fail);
    // Kept as written: the defaults are not written back into the file.
    return entry.pool === undefined ? {} : { pool: entry.pool };
  },
  async newProfile(input) {
    const fail: ConfigFail = (key, rule, value) => {
      throw new ClawdError('invalid_profile', `${key} ${rule}, got ${JSON.stringify(value)}`);
    };
    if (input.cdpUrl !== undefined)
      fail(
        'cdpUrl',
        'is not for a pool profile (its browsers are clawd’s own): leave it out, or use driver "remote"',
        input.cdpUrl,
      );
    if (input.poolSize === undefined) return {};
    const size =
      typeof input.poolSize === 'string' && /^\d+$/.test(input.poolSize) ? Number(input.poolSize) : input.poolSize;
    const pool = { size };
    parsePool(pool, 'pool', fail);
    return { pool };
  },
  create: (name, profile, { settings, home, log, relay, policy, rawGate, targetSetUp, warmed }) =>
    new PoolDriver(
      name,
      {
        ...parsePool(profile.pool, `profiles.${name}.pool`, (key, rule) => {
          throw new ClawdError('config_invalid', `browser.${key} ${rule}`);
        }),
        color: profile.color,
      },
      settings,
      home,
      log,
      {
        token: relay.token,
        agentKey: relay.agentKey,
        rules: (client) => rawClientRules({ policy, profile: name, gate: rawGate(), identity: client, targetSetUp }),
        ownRules: () => guardWaits(targetSetUp, policy),
      },
      warmed,
    ),
};
