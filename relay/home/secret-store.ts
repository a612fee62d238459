// Secrets the person keeps for a profile (`clawd secret-set NAME`): an agent types
// `{{secret:NAME}}` and the value goes into the page, but never back to the agent. Kept in the
// home's secrets.json (0600, like the token; written atomically), read again when it changed
// (another file, or another mtime), so `secret-set` needs no server and a running one sees the new value at its next
// call. Values never leave this module but through `kept` (for typing and masking). A TOTP seed
// (`secret-set NAME --totp`, totp-seed.ts) is kept the same way, marked as one: `{ "totp": … }`.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ClawdError } from '../errors';
import type { TotpSeed } from './totp';
import { keptTotp, readTotpSeed } from './totp-seed';

/** A secret's name: a letter, then letters, digits, `_` or `-` (64 at most). */
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A secret's value, or a TOTP seed. */
type Entry = string | { totp: TotpSeed };
type Stored = Record<string, Record<string, Entry>>; // profile → name → entry

/** What a profile keeps, by name: its secrets' values and its TOTP seeds (one name is one or the other). */
export interface KeptSecrets {
  values: ReadonlyMap<string, string>;
  totp: ReadonlyMap<string, TotpSeed>;
}

const fileOf = (home: string) => path.join(home, 'secrets.json');

export function checkSecretName(name: string): string {
  if (!SECRET_NAME.test(name))
    throw new ClawdError(
      'bad_request',
      `secret name ${JSON.stringify(name)} is not one: a letter, then letters, digits, _ or - (64 at most)`,
    );
  return name;
}

export class SecretStore {
  #cache: { version: string; stored: Stored } | undefined;

  constructor(private readonly home: string) {}

  async #read(): Promise<Stored> {
    const file = fileOf(this.home);
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat) return {};
    // Each write is a new file (written beside, then renamed): its inode with its mtime says which one.
    const version = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    if (this.#cache?.version === version) return this.#cache.stored;
    let stored: Stored;
    try {
      stored = JSON.parse(await fs.readFile(file, 'utf8')) as Stored;
    } catch {
      // Not the parser's words: they quote the file, secrets and all.
      throw new ClawdError(
        'bad_request',
        `${file} is damaged (not JSON): mend or remove it (clawd secret-set writes it anew)`,
      );
    }
    this.#cache = { version, stored };
    return stored;
  }

  /** The names kept for a profile (never the values). */
  async names(profile: string): Promise<string[]> {
    return Object.keys((await this.#read())[profile] ?? {}).sort();
  }

  /** A profile's secrets and TOTP seeds: for typing them (a seed's code) and for masking them in answers. */
  async kept(profile: string): Promise<KeptSecrets> {
    const values = new Map<string, string>();
    const totp = new Map<string, TotpSeed>();
    for (const [name, entry] of Object.entries((await this.#read())[profile] ?? {})) {
      if (typeof entry === 'string') {
        values.set(name, entry);
        continue;
      }
      const seed = keptTotp(entry);
      if (!seed)
        throw new ClawdError(
          'bad_request',
          `${fileOf(this.home)} holds something under ${name} (profile ${profile}) that is neither a secret nor a TOTP seed: set it again with clawd secret-set`,
        );
      totp.set(name, seed);
    }
    return { values, totp };
  }

  /** The name → value map of a profile's secrets (not its TOTP seeds). */
  async valuesOf(profile: string): Promise<ReadonlyMap<string, string>> {
    return (await this.kept(profile)).values;
  }

  async set(profile: string, name: string, value: string): Promise<void> {
    checkSecretName(name);
    if (value.length < 6)
      throw new ClawdError(
        'bad_request',
        'a secret needs at least 6 characters: a shorter one (a PIN) would be masked wherever the same characters appear — in refs and ids too',
      );
    await this.#put(profile, name, value);
  }

  /** Keeps a TOTP seed, from a base32 seed or an otpauth:// URI (totp_invalid, and nothing kept, when it is neither). */
  async setTotp(profile: string, name: string, given: string): Promise<TotpSeed> {
    checkSecretName(name);
    const totp = readTotpSeed(given);
    await this.#put(profile, name, { totp });
    return totp;
  }

  async #put(profile: string, name: string, entry: Entry): Promise<void> {
    const stored = structuredClone(await this.#read());
    (stored[profile] ??= {})[name] = entry;
    await this.#write(stored);
  }

  /** Forgets a secret; true when there was one. */
  async delete(profile: string, name: string): Promise<boolean> {
    const stored = structuredClone(await this.#read());
    if (stored[profile]?.[name] === undefined) return false;
    delete stored[profile]![name];
    await this.#write(stored);
    return true;
  }

  async #write(stored: Stored): Promise<void> {
    await fs.mkdir(this.home, { recursive: true });
    const file = fileOf(this.home);
    const temp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(temp, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
    await fs.rename(temp, file);
    this.#cache = undefined;
  }
}
