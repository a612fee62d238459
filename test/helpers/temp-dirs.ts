// Temporary folders and files for a test file, removed after each test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Call at the top of a describe (or file); everything handed out is removed after each test. */
export function useTempDirs(prefix: string): { home(): string; file(name: string, content: string): string } {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = (): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  return {
    /** A not-yet-existing folder inside a fresh temp dir. */
    home: () => path.join(fresh(), 'home'),
    /** A file with this name and content inside a fresh temp dir. */
    file(name, content) {
      const file = path.join(fresh(), name);
      writeFileSync(file, content);
      return file;
    },
  };
}
