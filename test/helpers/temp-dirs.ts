// Temporary folders for a test file, removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Call at the top of a describe; `home()` gives a not-yet-existing folder inside a fresh temp dir. */
export function useTempDirs(prefix: string): { home(): string } {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    home() {
      const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      return path.join(dir, 'home');
    },
  };
}
