// The home folder and its config.json: where it is ($CLAWD_HOME, else ~/.clawd, or --home), how
// it is created (folder 0700, file 0600, a random token on first run), and how it is written
// (temp file + fsync + rename, so a crash never leaves half a file). A file we cannot read is
// an error naming the file and the problem, and it is never overwritten.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClawdError } from '../errors';

export interface ClawdConfig {
  /** Required on every relay and control request except the health check. */
  token: string;
  /** Everything else in the file is kept as it is (later features add their keys). */
  [key: string]: unknown;
}

export const CONFIG_FILE = 'config.json';

export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? env.CLAWD_HOME;
  return path.resolve(chosen && chosen !== '' ? chosen : path.join(os.homedir(), '.clawd'));
}

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

function configPath(home: string): string {
  return path.join(home, CONFIG_FILE);
}

/** Parses and checks the file's text; errors name the file and the key. */
export function parseConfig(text: string, file: string): ClawdConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ClawdError('config_invalid', `${file} is not valid JSON (${(error as Error).message}); fix or remove it`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ClawdError('config_invalid', `${file} must hold a JSON object`);
  }
  const config = value as Record<string, unknown>;
  if (typeof config.token !== 'string' || config.token.length < 16) {
    throw new ClawdError('config_invalid', `${file}: "token" must be a string of at least 16 characters, got ${JSON.stringify(config.token)}`);
  }
  return config as ClawdConfig;
}

/** Writes a complete temp file beside the config and returns its path. */
async function writeTemp(home: string, config: ClawdConfig): Promise<string> {
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  const temp = `${configPath(home)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(config, null, 2) + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/** Writes the config atomically with mode 0600. */
export async function writeConfig(home: string, config: ClawdConfig): Promise<void> {
  const temp = await writeTemp(home, config);
  try {
    await fs.rename(temp, configPath(home));
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/** Creates the config only if none exists (link fails on an existing name); false if one did. */
async function createConfig(home: string, config: ClawdConfig): Promise<boolean> {
  const temp = await writeTemp(home, config);
  try {
    await fs.link(temp, configPath(home));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/** Reads the config, creating the home folder and a fresh config with a random token on first run. */
export async function loadConfig(home: string): Promise<ClawdConfig> {
  const file = configPath(home);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ClawdError('config_invalid', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    // Two first runs at once must agree on one token: only one creation can win.
    const config: ClawdConfig = { token: generateToken() };
    if (await createConfig(home, config)) return config;
    text = await fs.readFile(file, 'utf8');
  }
  return parseConfig(text, file);
}
