// The shape of config.json's `browser` section, its defaults, and its validation. Pure: no I/O.
// Every problem is reported with the key's path and the value found, e.g.
// `browser.profiles.work.cdpPort must be an integer from 1 to 65535, got "abc"`.

import { DEFAULT_RELAY_PORT, LOOPBACK_HOST } from '../../shared/defaults';
import { OriginPolicy, type PolicyConfig } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import { parseAskKinds, type AskKind } from '../../shared/ask-kinds';
import type { ConfigFail, KindSchemas } from './profile-kinds';

/** A profile's kind: the name a driver module registered (relay/profiles/kinds.ts). */
export type Driver = string;

export interface ProfileConfig {
  driver: Driver;
  /** Managed profiles: the CDP port, allocated once from the range and kept. */
  cdpPort?: number;
  /** Extension and remote profiles: where their CDP endpoint is. */
  cdpUrl?: string;
  /** A kind's own further keys (checked by the kind: relay/profiles/). */
  [own: string]: unknown;
  color: string;
  /** This profile's origin policy: replaces `browser.policy` for it. */
  policy?: PolicyConfig;
  /** What the person is asked before (the default: storage on an extension profile, nothing elsewhere). */
  ask?: AskKind[];
}

export interface BrowserConfig {
  enabled: boolean;
  defaultProfile: string;
  headless: boolean;
  noSandbox: boolean;
  attachOnly: boolean;
  executablePath?: string;
  extraArgs: string[];
  evaluateEnabled: boolean;
  /** The action log keeps typed text itself, not only its length (never a password field's). */
  logText: boolean;
  /** An agent call on a managed profile that is not running starts it (default true). */
  autoStart: boolean;
  /** A download an agent causes is cancelled past this many megabytes (default 500). */
  downloadLimitMb: number;
  /** How long after the person's last input in a tab of their browser agents stay off it (default 3,000). */
  personIdleMs: number;
  /** Managed CDP ports are allocated from this range (inclusive). */
  cdpPortRange: { from: number; to: number };
  /** The sites agents may reach, unless a profile has its own policy. */
  policy?: PolicyConfig;
  profiles: Record<string, ProfileConfig>;
}

const PROFILE_NAME_RULE =
  'lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters';
const PROFILE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const DEFAULT_PERSON_IDLE_MS = 3_000;
const DEFAULT_CDP_PORT_RANGE = { from: 18800, to: 18899 } as const;
const LOBSTER_ORANGE = '#FF4500';
/** Colours for new profiles: the first one no profile uses yet. */
const PALETTE = [LOBSTER_ORANGE, '#0066CC', '#00AA00', '#9933CC', '#CC0066', '#FF9900', '#009999', '#666666'];
/** Reserved for ad-hoc developer workflows (spec): never a managed profile's port. */
export const RESERVED_PORTS = new Set([9222]);

export function profileNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !PROFILE_NAME.test(name)) {
    return `invalid profile name ${JSON.stringify(name)}: use ${PROFILE_NAME_RULE}`;
  }
  return undefined;
}

export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/** The `browser` section a first run writes: the managed `clawd` profile and the extension `chrome` profile. */
export function defaultBrowserConfig(
  relayPort: number = DEFAULT_RELAY_PORT,
  clawdPort: number = DEFAULT_CDP_PORT_RANGE.from,
): BrowserConfig {
  return {
    enabled: true,
    defaultProfile: 'clawd',
    headless: true,
    noSandbox: false,
    attachOnly: false,
    extraArgs: [],
    evaluateEnabled: false,
    logText: false,
    autoStart: true,
    downloadLimitMb: 500,
    personIdleMs: DEFAULT_PERSON_IDLE_MS,
    cdpPortRange: { ...DEFAULT_CDP_PORT_RANGE },
    profiles: {
      clawd: { driver: 'managed', cdpPort: clawdPort, color: LOBSTER_ORANGE },
      chrome: { driver: 'extension', cdpUrl: `http://${LOOPBACK_HOST}:${relayPort}`, color: '#00AA00' },
    },
  };
}

/** A TCP port (1–65535), for a kind's own keys too. */
export function parsePort(key: string, got: unknown, fail: ConfigFail): number {
  return Number.isInteger(got) && (got as number) >= 1 && (got as number) <= 65535
    ? (got as number)
    : fail(key, 'must be an integer from 1 to 65535', got);
}

/** Where a CDP endpoint is: an http(s) or ws(s) URL, for the kinds that attach to one. */
export function parseCdpUrl(key: string, got: unknown, fail: ConfigFail): string {
  return typeof got === 'string' && /^(https?|wss?):\/\//.test(got)
    ? got
    : fail(key, 'must be an http(s) or ws(s) URL', got);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a parsed `browser` section; `file` names the file in messages. Missing keys take
 * defaults. `kinds`: the profile kinds whose own keys are checked (a profile of another kind is
 * refused); without, each profile's own keys are kept as written (profile-kinds.ts).
 */
export function parseBrowserConfig(value: unknown, file: string, kinds?: KindSchemas): BrowserConfig {
  const fail = (key: string, rule: string, got: unknown): never => {
    throw new ClawdError('config_invalid', `${file}: browser.${key} ${rule}, got ${JSON.stringify(got)}`);
  };
  if (!isObj(value)) fail('', 'must be an object', value);
  const v = value as Obj;
  const defaults = defaultBrowserConfig();
  const bool = (key: keyof BrowserConfig) => {
    const got = v[key];
    if (got === undefined) return defaults[key] as boolean;
    return typeof got === 'boolean' ? got : fail(key, 'must be true or false', got);
  };
  const port = (key: string, got: unknown) => parsePort(key, got, fail);
  const range =
    v.cdpPortRange === undefined
      ? defaults.cdpPortRange
      : isObj(v.cdpPortRange)
        ? { from: port('cdpPortRange.from', v.cdpPortRange.from), to: port('cdpPortRange.to', v.cdpPortRange.to) }
        : fail('cdpPortRange', 'must be {"from": port, "to": port}', v.cdpPortRange);
  if (range.from > range.to) fail('cdpPortRange', 'must have from ≤ to', v.cdpPortRange);
  if (v.executablePath !== undefined && typeof v.executablePath !== 'string')
    fail('executablePath', 'must be a path', v.executablePath);
  if (v.extraArgs !== undefined && (!Array.isArray(v.extraArgs) || !v.extraArgs.every((a) => typeof a === 'string')))
    fail('extraArgs', 'must be a list of strings', v.extraArgs);
  if (!isObj(v.profiles)) fail('profiles', 'must be an object of named profiles', v.profiles);
  const profiles: Record<string, ProfileConfig> = {};
  for (const [name, raw] of Object.entries(v.profiles as Obj))
    profiles[name] = parseProfile(name, raw, file, fail, kinds);
  const defaultProfile = v.defaultProfile ?? defaults.defaultProfile;
  if (typeof defaultProfile !== 'string' || !profiles[defaultProfile])
    fail('defaultProfile', `must name one of the profiles (${Object.keys(profiles).join(', ')})`, defaultProfile);
  checkPortsDiffer(profiles, fail);
  return {
    enabled: bool('enabled'),
    defaultProfile: defaultProfile as string,
    headless: bool('headless'),
    noSandbox: bool('noSandbox'),
    attachOnly: bool('attachOnly'),
    ...(typeof v.executablePath === 'string' ? { executablePath: v.executablePath } : {}),
    extraArgs: (v.extraArgs as string[] | undefined) ?? [],
    evaluateEnabled: bool('evaluateEnabled'),
    logText: bool('logText'),
    autoStart: bool('autoStart'),
    downloadLimitMb: downloadLimit(v.downloadLimitMb, fail),
    personIdleMs: personIdle(v.personIdleMs, fail),
    cdpPortRange: range,
    ...(v.policy !== undefined ? { policy: parsePolicy(v.policy, 'browser.policy', file) } : {}),
    profiles,
  };
}

/** One entry of `browser.profiles`: the keys every kind has, then its kind's own. */
function parseProfile(name: string, raw: unknown, file: string, fail: ConfigFail, kinds?: KindSchemas): ProfileConfig {
  const key = `profiles.${name}`;
  const problem = profileNameProblem(name);
  if (problem) throw new ClawdError('config_invalid', `${file}: browser.profiles: ${problem}`);
  if (!isObj(raw)) fail(key, 'must be an object', raw);
  const p = raw as Obj;
  // An entry without a driver, as earlier versions wrote them: remote with a cdpUrl, else managed.
  const driver = p.driver ?? (p.cdpUrl ? 'remote' : 'managed');
  if (typeof driver !== 'string') fail(`${key}.driver`, 'must be the name of a kind of profile', p.driver);
  const kind = kinds?.get(driver as string);
  if (kinds && !kind)
    fail(
      `${key}.driver`,
      `must be one of ${kinds
        .names()
        .map((k) => `"${k}"`)
        .join(', ')}`,
      p.driver,
    );
  if (typeof p.color !== 'string' || !/^#[0-9A-Fa-f]{6}$/.test(p.color))
    fail(`${key}.color`, 'must be a colour like "#FF4500"', p.color);
  const profile: ProfileConfig = { driver: driver as Driver, color: (p.color as string).toUpperCase() };
  if (p.policy !== undefined) profile.policy = parsePolicy(p.policy, `browser.${key}.policy`, file);
  if (p.ask !== undefined) {
    const kinds = parseAskKinds(p.ask);
    if (typeof kinds === 'string') fail(`${key}.ask`, kinds, p.ask);
    profile.ask = kinds as AskKind[];
  }
  return { ...profile, ...(kind ? kind.parseOwnKeys(p, key, fail) : ownKeysAsWritten(p)) };
}

/** Keys every profile has; the rest of an entry is its kind's own. */
const COMMON_KEYS = new Set(['driver', 'color', 'policy', 'ask']);

/** A profile's own keys as the file holds them, for a reader that knows no kinds. */
function ownKeysAsWritten(entry: Obj): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !COMMON_KEYS.has(key)));
}

/** No two profiles on one fixed CDP port. */
function checkPortsDiffer(profiles: Record<string, ProfileConfig>, fail: ConfigFail): void {
  const ports = new Map<number, string>();
  for (const [name, profile] of Object.entries(profiles)) {
    if (profile.cdpPort === undefined) continue;
    const other = ports.get(profile.cdpPort);
    if (other) fail(`profiles.${name}.cdpPort`, `must differ from profile ${other}'s`, profile.cdpPort);
    ports.set(profile.cdpPort, name);
  }
}

/** An origin policy `{ allow?: [...], block?: [...] }`, each pattern checked; errors name the key and the pattern. */
export function parsePolicy(value: unknown, key: string, file: string): PolicyConfig {
  const fail = (message: string): never => {
    throw new ClawdError('config_invalid', `${file}: ${message}`);
  };
  if (!isObj(value))
    return fail(`${key} must be {"allow": [origins], "block": [origins]}, got ${JSON.stringify(value)}`);
  const policy: PolicyConfig = {};
  for (const list of ['allow', 'block'] as const) {
    const got = value[list];
    if (got === undefined) continue;
    if (!Array.isArray(got) || !got.every((p) => typeof p === 'string'))
      fail(`${key}.${list} must be a list of origin patterns, got ${JSON.stringify(got)}`);
    policy[list] = got as string[];
  }
  for (const other of Object.keys(value))
    if (other !== 'allow' && other !== 'block') fail(`${key} takes allow and block, not ${other}`);
  try {
    new OriginPolicy(policy, key);
  } catch (error) {
    fail((error as Error).message);
  }
  return policy;
}

/** The policy in force for a profile: its own, else the global one, else none. */
export function policyOf(
  config: BrowserConfig,
  profile: string,
): { source: 'profile' | 'global' | 'none'; config: PolicyConfig } {
  const own = config.profiles[profile]?.policy;
  if (own) return { source: 'profile', config: own };
  if (config.policy) return { source: 'global', config: config.policy };
  return { source: 'none', config: {} };
}

function downloadLimit(value: unknown, fail: (key: string, rule: string, value: unknown) => never): number {
  if (value === undefined) return 500;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 100_000)
    fail('downloadLimitMb', 'must be a number of megabytes above 0, at most 100000', value);
  return value as number;
}

function personIdle(value: unknown, fail: (key: string, rule: string, value: unknown) => never): number {
  if (value === undefined) return DEFAULT_PERSON_IDLE_MS;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 60_000)
    fail('personIdleMs', 'must be a whole number of milliseconds from 0 to 60000', value);
  return value as number;
}

/** What the person is asked before on a profile: its own list, else its kind's default. */
export function askOf(config: BrowserConfig, profile: string, kinds: KindSchemas): AskKind[] {
  const own = config.profiles[profile];
  if (own?.ask) return own.ask;
  return [...((own && kinds.get(own.driver)?.defaultAsk) ?? [])];
}

/** The first colour of the palette no profile uses (cycling when all are taken). */
export function nextColor(config: BrowserConfig): string {
  const used = new Set(Object.values(config.profiles).map((p) => p.color.toUpperCase()));
  return PALETTE.find((c) => !used.has(c)) ?? PALETTE[Object.keys(config.profiles).length % PALETTE.length]!;
}
