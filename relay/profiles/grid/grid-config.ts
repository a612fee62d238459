// The `grid` kind: a profile whose browsers come from a Selenium Grid 4 — its config.json keys
// (`grid: { url, capabilities?, maxBrowsers?, idleMs? }`), how `create-profile --grid-url` makes
// one, and its driver. Registered in ../kinds.ts.

import { ClawdError } from '../../errors';
import type { ConfigFail } from '../../home/profile-kinds';
import type { DriverKind } from '../driver-kinds';
import { GridDriver, type GridProfileConfig } from './grid-driver';

const DEFAULT_MAX_BROWSERS = 8;
const DEFAULT_IDLE_MS = 10 * 60_000;
/** Headless Chromium on the Grid's nodes unless the profile says otherwise. */
const DEFAULT_CAPABILITIES = { browserName: 'chrome', 'goog:chromeOptions': { args: ['--headless=new'] } };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseGrid(value: unknown, key: string, fail: ConfigFail): Omit<GridProfileConfig, 'color'> {
  if (!isObject(value)) return fail(key, 'must be {"url": "http://grid:4444", …}', value);
  if (typeof value.url !== 'string' || !/^https?:\/\/[^/]+/.test(value.url))
    fail(`${key}.url`, 'must be the Grid’s http(s) URL', value.url);
  if (value.capabilities !== undefined && !isObject(value.capabilities))
    fail(`${key}.capabilities`, 'must be an object of W3C capabilities', value.capabilities);
  const whole = (name: 'maxBrowsers' | 'idleMs', min: number, max: number, fallback: number) => {
    const got = value[name];
    if (got === undefined) return fallback;
    return Number.isInteger(got) && (got as number) >= min && (got as number) <= max
      ? (got as number)
      : fail(`${key}.${name}`, `must be a whole number from ${min} to ${max}`, got);
  };
  return {
    url: value.url as string,
    capabilities: (value.capabilities as Record<string, unknown> | undefined) ?? DEFAULT_CAPABILITIES,
    maxBrowsers: whole('maxBrowsers', 1, 1_000, DEFAULT_MAX_BROWSERS),
    idleMs: whole('idleMs', 1_000, 24 * 3_600_000, DEFAULT_IDLE_MS),
  };
}

export const gridKind: DriverKind = {
  kind: 'grid',
  defaultAsk: [],
  chosenBy: 'gridUrl',
  flags: {
    'grid-url': {
      input: 'gridUrl',
      value: 'URL',
      help: 'a grid profile: the Selenium Grid 4 that gives a browser per agent session (http://user:pass@grid:4444)',
    },
    capabilities: {
      input: 'capabilities',
      value: 'JSON',
      help: 'a grid profile: the W3C capabilities of its browsers (default headless Chrome)',
    },
  },
  parseOwnKeys: (entry, key, fail) => {
    parseGrid(entry.grid, `${key}.grid`, fail);
    // Kept as written: the defaults are not written back into the file.
    return { grid: entry.grid };
  },
  async newProfile(input) {
    const fail: ConfigFail = (key, rule, value) => {
      throw new ClawdError('invalid_profile', `${key} ${rule}, got ${JSON.stringify(value)}`);
    };
    let capabilities: unknown = input.capabilities;
    if (typeof capabilities === 'string') {
      try {
        capabilities = JSON.parse(capabilities);
      } catch {
        fail('capabilities', 'must be a JSON object', capabilities);
      }
    }
    const grid = { url: input.gridUrl, ...(capabilities === undefined ? {} : { capabilities }) };
    parseGrid(grid, 'grid', fail);
    return { grid };
  },
  create: (name, profile, { log }) =>
    new GridDriver(
      name,
      {
        ...parseGrid(profile.grid, `profiles.${name}.grid`, (key, rule) => {
          throw new ClawdError('config_invalid', `browser.${key} ${rule}`);
        }),
        color: profile.color,
      },
      log,
    ),
};
