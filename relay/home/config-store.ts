// The home folder and its config.json: where it is ($CLAWD_HOME, else ~/.clawd, or --home), how
// it is created (folder 0700, file 0600, a random token and the default profiles on first run),
// and how it changes: every write is temp file + fsync + rename, so a crash never leaves half a
// file, and read-modify-write runs under a lock file, so concurrent writers (two requests, two
// processes) never lose each other's updates. A file we cannot read is an error naming the file,
// the key and the value, and it is never overwritten.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_RELAY_PORT } from '../../shared/defaults';
import { firstFreePort, portRangeFromEnv } from '../browser/ports';
import { ClawdError } from '../errors';
import { writePrivateFile } from './private-file';
import { RESERVED_PORTS, defaultBrowserConfig, parseBrowserConfig, type BrowserConfig } from './config-schema';
import type { KindSchemas } from './profile-kinds';

export interface ClawdConfig {
  /** Required on every relay and control request except the health check. */
  token: string;
  browser: BrowserConfig;
  /**
   * `relay.extensionIds`: ids of our extension besides the pinned development one (a store install).
   * `relay.clientMaxBufferedMb`: output queued for a CDP client that stops reading before it is closed.
   */
  relay?: { extensionIds?: string[]; clientMaxBufferedMb?: number };
  /**
   * `extension.idleDetachMs`: a handed-over tab unused this long rests — the debugger lets go of it
   * (and Chrome's "started debugging" bar with the last one) until the next command; 0: never.
   */
  extension?: { idleDetachMs?: number };
  /** Keys this version does not know are kept as they are. */
  [key: string]: unknown;
}

const CONFIG_FILE = 'config.json';
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? env.CLAWD_HOME;
  return path.resolve(chosen && chosen !== '' ? chosen : path.join(os.homedir(), '.clawd'));
}

/** A new token: 24 random bytes, base64url (32 characters). */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

function configPath(home: string): string {
  return path.join(home, CONFIG_FILE);
}

/**
 * Parses and checks the file's text; errors name the file and the key. A missing `browser`
 * section gets the defaults. `kinds`: the profile kinds whose own keys are checked (else kept as
 * written: profile-kinds.ts).
 */
export function parseConfig(text: string, file: string, kinds?: KindSchemas): ClawdConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ClawdError(
      'config_invalid',
      `${file} is not valid JSON (${(error as Error).message}); fix or remove it`,
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ClawdError('config_invalid', `${file} must hold a JSON object`);
  }
  const config = value as Record<string, unknown>;
  if (typeof config.token !== 'string' || config.token.length < 16) {
    throw new ClawdError(
      'config_invalid',
      `${file}: "token" must be a string of at least 16 characters, got ${JSON.stringify(config.token)}`,
    );
  }
  const browser =
    config.browser === undefined ? defaultBrowserConfig() : parseBrowserConfig(config.browser, file, kinds);
  const relay = config.relay as { extensionIds?: unknown; clientMaxBufferedMb?: unknown } | undefined;
  if (relay !== undefined && (typeof relay !== 'object' || relay === null || Array.isArray(relay)))
    throw new ClawdError('config_invalid', `${file}: "relay" must be an object`);
  const ids = relay?.extensionIds;
  if (
    ids !== undefined &&
    (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && /^[a-p]{32}$/.test(id)))
  ) {
    throw new ClawdError(
      'config_invalid',
      `${file}: relay.extensionIds must be a list of Chrome extension ids (32 letters a–p, as chrome://extensions shows them), got ${JSON.stringify(ids)}`,
    );
  }
  const queued = relay?.clientMaxBufferedMb;
  if (
    queued !== undefined &&
    !(typeof queued === 'number' && Number.isInteger(queued) && queued >= 1 && queued <= 1024)
  ) {
    throw new ClawdError(
      'config_invalid',
      `${file}: relay.clientMaxBufferedMb must be an integer from 1 to 1024, got ${JSON.stringify(queued)}`,
    );
  }
  const extension = config.extension as { idleDetachMs?: unknown } | undefined;
  if (extension !== undefined && (typeof extension !== 'object' || extension === null || Array.isArray(extension)))
    throw new ClawdError('config_invalid', `${file}: "extension" must be an object`);
  const idle = extension?.idleDetachMs;
  if (idle !== undefined && !(typeof idle === 'number' && Number.isInteger(idle) && idle >= 0 && idle <= 86_400_000))
    throw new ClawdError(
      'config_invalid',
      `${file}: extension.idleDetachMs must be an integer number of milliseconds from 0 (never) to 86400000, got ${JSON.stringify(idle)}`,
    );
  return { ...config, token: config.token, browser };
}

/** Writes the config atomically with mode 0600. Use updateConfig to change an existing one. */
export async function writeConfig(home: string, config: ClawdConfig): Promise<void> {
  await writePrivateFile(configPath(home), JSON.stringify(config, null, 2) + '\n');
}

// One queue per home within this process, so our own writers do not contend for the lock file.
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` holding the home's lock file (exclusive across processes), waiting a bounded time for it. */
async function withLock<T>(home: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(home) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      await fs.mkdir(home, { recursive: true, mode: 0o700 });
      const lock = `${configPath(home)}.lock`;
      const deadline = Date.now() + LOCK_WAIT_MS;
      for (;;) {
        try {
          await (await fs.open(lock, 'wx', 0o600)).close();
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          const stat = await fs.stat(lock).catch(() => undefined);
          if (stat && Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
            await fs.rm(lock, { force: true }); // left by a process that died mid-write
            continue;
          }
          if (Date.now() > deadline)
            throw new ClawdError('internal', `${lock} is held by another clawd process; remove it if none is running`);
          await new Promise((resolve) => setTimeout(resolve, 15));
        }
      }
      try {
        return await work();
      } finally {
        await fs.rm(lock, { force: true });
      }
    });
  queues.set(home, run);
  try {
    return await run;
  } finally {
    if (queues.get(home) === run) queues.delete(home);
  }
}

async function readConfigFile(home: string): Promise<string | undefined> {
  try {
    return await fs.readFile(configPath(home), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClawdError('config_invalid', `cannot read ${configPath(home)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function firstRunConfig(relayPort: number): Promise<ClawdConfig> {
  const defaults = defaultBrowserConfig(relayPort);
  const range = portRangeFromEnv() ?? defaults.cdpPortRange;
  const port = await firstFreePort(range, new Set(), RESERVED_PORTS);
  const browser = defaultBrowserConfig(relayPort, port ?? range.from);
  if (portRangeFromEnv()) browser.cdpPortRange = range;
  return { token: generateToken(), browser };
}

/**
 * Reads the config, creating the home and a fresh config on first run (token, `clawd` managed
 * profile on the first free port of the range, `chrome` extension profile on `relayPort`).
 */
export async function loadConfig(
  home: string,
  options: { relayPort?: number; kinds?: KindSchemas } = {},
): Promise<ClawdConfig> {
  const text = await readConfigFile(home);
  if (text !== undefined) return parseConfig(text, configPath(home), options.kinds);
  return withLock(home, async () => {
    const again = await readConfigFile(home); // another first run may have won the lock
    if (again !== undefined) return parseConfig(again, configPath(home), options.kinds);
    const config = await firstRunConfig(options.relayPort ?? DEFAULT_RELAY_PORT);
    await writeConfig(home, config);
    return config;
  });
}

/**
 * Read-modify-write under the lock: `change` gets the current config (re-read inside the lock)
 * and returns the new one, which is validated before it is written. Returns what was written.
 */
export async function updateConfig(
  home: string,
  change: (config: ClawdConfig) => ClawdConfig | Promise<ClawdConfig>,
  kinds?: KindSchemas,
): Promise<ClawdConfig> {
  return withLock(home, async () => {
    const text = await readConfigFile(home);
    const current =
      text === undefined ? await firstRunConfig(DEFAULT_RELAY_PORT) : parseConfig(text, configPath(home), kinds);
    const next = await change(structuredClone(current));
    const checked = parseConfig(JSON.stringify(next), configPath(home), kinds);
    await writeConfig(home, checked);
    return checked;
  });
}
