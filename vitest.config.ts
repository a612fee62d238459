// Three tiers (DEVELOPERS.md): unit (pure logic), socket (real servers on port 0, scripted fake
// extension and raw CDP clients), e2e (real Chromium with the built extension). `npm test` runs
// all three after a build; e2e never skips: a missing Chromium fails loudly.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files first, so that neither worker is left running one alone at the end: a clean
 * clone (CI) has no timing cache, and vitest's own order then put the long bench smoke test last.
 * The lengths are measured, not kept by hand: test/file-durations.json holds each file's seconds
 * in the last whole run (`npm run test:durations` writes it from vitest's cache). A file it does
 * not know yet goes first: a short one there costs nothing, a long one last would.
 */
const DURATIONS: Record<string, number> = JSON.parse(
  readFileSync(new URL('./test/file-durations.json', import.meta.url), 'utf8'),
);

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = new URL('.', import.meta.url).pathname;
    const seconds = (f: TestSpecification) => DURATIONS[path.relative(root, f.moduleId)] ?? Number.POSITIVE_INFINITY;
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => seconds(b.file) - seconds(a.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

// One browser for the whole run: CLAWD_TEST_CHROMIUM is what tests launch, and managed profiles
// find theirs through CLAWD_CHROME_PATH, so the one follows the other unless both are given.
const testChromium = process.env.CLAWD_TEST_CHROMIUM;
const env: Record<string, string> =
  testChromium && !process.env.CLAWD_CHROME_PATH ? { CLAWD_CHROME_PATH: testChromium } : {};

export default defineConfig({
  test: {
    // Two cores: three files at once (CLAWD_TEST_WORKERS to choose). With two, vmstat showed the
    // cores idle 14% of npm test and 27% of the run on Chromium 150 (files waiting on pages and
    // bounds); with three, 5% and 10%, and on a clean clone (820afa1+) npm test took 389 s
    // instead of 430 and the 150 run 234 s instead of 263, every file passing. Each file is
    // slower (the contract suite 143 s instead of 98): their bounds held.
    maxWorkers: Number(process.env.CLAWD_TEST_WORKERS ?? 3),
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    env,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 } },
      // The socket, e2e and fuzz files share their worker's process, file after file (isolate:
      // false): each file's servers are its own either way (its browsers too, but for the kept ones
      // of test/helpers/worker-browsers.ts, reset between files), and loading the relay's
      // modules afresh for every file cost a third of a small file's CPU. The unit files, which
      // mock modules and timers, each get a fresh one.
      {
        extends: true,
        test: { name: 'socket', include: ['test/socket/**/*.test.ts'], testTimeout: 20_000, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          isolate: false,
          // One Selenium Grid for the run, started when a file first asks (shared-grid.ts); the
          // browsers a worker kept between files ended, should a worker have been killed outright.
          globalSetup: ['test/helpers/shared-grid.ts', 'test/helpers/kept-browsers-sweep.ts'],
        },
      },
      // The bench's quick run as a smoke test (every case runs and reports): real Chromium like
      // e2e, the longest file of the run, a tier of its own so the e2e tier can be run without it
      // (npm run test:e2e) and it alone (npm run test:bench). It uses the run's one Grid too.
      {
        extends: true,
        test: {
          name: 'bench',
          include: ['test/bench/**/*.test.ts'],
          hookTimeout: 60_000,
          globalSetup: ['test/helpers/shared-grid.ts'],
        },
      },
      // The target fuzz: real Chromium like e2e, a tier of its own so it can be run alone and
      // longer (npm run test:fuzz, CLAWD_FUZZ_ROUNDS).
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/fuzz/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          isolate: false,
        },
      },
    ],
  },
});
