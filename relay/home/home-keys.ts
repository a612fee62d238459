// The two keys that are not the agent's: keys.json in the home (0600), beside config.json, whose
// token is what agents are given. `person` is the person's terminal: clawd's person commands
// (view, pair, token --rotate, policy-set, profile admin) read it and send it only after the
// server proved it knows it. `extension` is what the paired extension presents on /extension
// (pairing and the native host hand it over; it is never printed). An agent given the token
// holds neither; a program running as the person can read this file, as it can the person's
// other files (the README says so).

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ClawdError } from '../errors';
import { createPrivateFile, writePrivateFile } from './private-file';

export interface HomeKeys {
  person: string;
  extension: string;
}

const KEYS_FILE = 'keys.json';

export function keysPath(home: string): string {
  return path.join(home, KEYS_FILE);
}

const newKey = () => randomBytes(24).toString('base64url');
const text = (keys: HomeKeys) => JSON.stringify(keys, null, 2) + '\n';
const isKey = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{32,}$/.test(value);

function parseKeys(text: string, file: string): HomeKeys {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const keys = value as Partial<HomeKeys> | undefined;
  if (!keys || !isKey(keys.person) || !isKey(keys.extension))
    throw new ClawdError(
      'config_invalid',
      `${file} is damaged (it must hold {"person", "extension"} keys): remove it, restart clawd serve and pair the extension again (\`clawd pair\`)`,
    );
  return { person: keys.person, extension: keys.extension };
}

/** The home's keys, made on first use: two first uses at once agree on one file (link fails on the loser). */
export async function loadKeys(home: string): Promise<HomeKeys> {
  const file = keysPath(home);
  try {
    return parseKeys(await fs.readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await createPrivateFile(file, text({ person: newKey(), extension: newKey() }));
  return parseKeys(await fs.readFile(file, 'utf8'), file);
}

/** A new extension key, saved before it is used (the person's key stays). */
export async function rotateExtensionKey(home: string): Promise<HomeKeys> {
  const keys = { ...(await loadKeys(home)), extension: newKey() };
  await writePrivateFile(keysPath(home), text(keys));
  return keys;
}
