// Secrets the person keeps for a profile (`clawd secret-set NAME`): an agent types
// `{{secret:NAME}}` and the value goes into the page, but never back to the agent. Kept in the
// home's secrets.json (0600, like the token; written atomically), read again when it changed
// (another file, or another mtime), so `secret-set` needs no server and a running one sees the new value at its next
// call. Values never leave this module but through `valuesOf` (for typing and masking).

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ClawdError } from '../errors';

/** A secret's name: a letter, then letters, digits, `_` or `-` (64 at most). */
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

type Stored = Record<string, Record<string, string>>; // profile → name → value

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

  /** The name → value map of a profile: for typing a secret and for masking it in answers. */
  async valuesOf(profile: string): Promise<ReadonlyMap<string, string>> {
    return new Map(Object.entries((await this.#read())[profile] ?? {}));
  }

  async set(profile: string, name: string, value: string): Promise<void> {
    checkSecretName(name);
    if (value.length < 6)
      throw new ClawdError(
        'bad_request',
        'a secret needs at least 6 characters: a shorter one (a PIN) would be masked wherever the same characters appear — in refs and ids too',
      );
    const stored = structuredClone(await this.#read());
    (stored[profile] ??= {})[name] = value;
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
