// Tests wait through test/helpers/waits.ts only: a bound and a label on every wait (`until`), a
// named pause where a test shows that something does NOT happen (`quiet`). A bare sleep in a test
// is a guess at how long something takes: on a loaded machine it is either too short or wasted.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The waits themselves, and this file's own examples. */
const EXEMPT = [path.join('helpers', 'waits.ts'), path.join('unit', 'test-waits.test.ts')];

function files(dir: string): string[] {
  return readdirSync(path.join(TEST_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : files(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** A promise that only a timer settles: `new Promise((resolve) => setTimeout(resolve, ms))`. */
export const BARE_SLEEP = /new Promise\w*(?:<[^>]*>)?\(\(?(\w+)\)?\s*=>\s*setTimeout\(\s*\1\s*,/;

describe('the waits of the tests', () => {
  it('knows a bare sleep when it sees one', () => {
    expect(BARE_SLEEP.test('await new Promise((resolve) => setTimeout(resolve, 500));')).toBe(true);
    expect(BARE_SLEEP.test('await new Promise((r) => setTimeout(r, 20));')).toBe(true);
    expect(BARE_SLEEP.test('await new Promise<void>((done) => setTimeout(done, 5));')).toBe(true);
    expect(BARE_SLEEP.test("setTimeout(() => res.end('late'), 5_000);")).toBe(false);
    expect(BARE_SLEEP.test('await quiet(500);')).toBe(false);
  });

  it('has none outside test/helpers/waits.ts', () => {
    const sleeping = files('.')
      .filter((file) => !EXEMPT.includes(file))
      .flatMap((file) =>
        readFileSync(path.join(TEST_ROOT, file), 'utf8')
          .split('\n')
          .map((line, i) => (BARE_SLEEP.test(line) ? `test/${file}:${i + 1}: ${line.trim()}` : undefined))
          .filter((hit) => hit !== undefined),
      );
    expect(sleeping).toEqual([]);
  });
});
