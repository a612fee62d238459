// A file of the home written whole or not at all: a complete temp file beside it (0600, synced),
// then renamed over it (or linked, when only the first writer may win). A crash never leaves half
// a file, and no one else on the machine can read it while it is written.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Writes `text` to a complete temp file beside `file` (its folder made 0700 if missing) and answers its path. */
export async function writeTempBeside(file: string, text: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/** Replaces `file` with `text`, atomically, mode 0600. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const temp = await writeTempBeside(file, text);
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/** Writes `file` with `text` only if it does not exist yet; false when another writer was first. */
export async function createPrivateFile(file: string, text: string): Promise<boolean> {
  const temp = await writeTempBeside(file, text);
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
}
