// Three tiers (DEVELOPERS.md): unit (pure logic), socket (real servers on port 0, scripted fake
// extension and raw CDP clients), e2e (real Chromium with the built extension). `npm test` runs
// all three after a build; e2e never skips: a missing Chromium fails loudly.
import { defineConfig } from 'vitest/config';

// One browser for the whole run: CLAWD_TEST_CHROMIUM is what tests launch, and managed profiles
// find theirs through CLAWD_CHROME_PATH, so the one follows the other unless both are given.
const testChromium = process.env.CLAWD_TEST_CHROMIUM;
const env: Record<string, string> =
  testChromium && !process.env.CLAWD_CHROME_PATH ? { CLAWD_CHROME_PATH: testChromium } : {};

export default defineConfig({
  test: {
    // Two cores: two files at once, each e2e file owning one Chromium.
    maxWorkers: 2,
    pool: 'forks',
    env,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 } },
      { extends: true, test: { name: 'socket', include: ['test/socket/**/*.test.ts'], testTimeout: 20_000 } },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      // The target fuzz: real Chromium like e2e, a tier of its own so it can be run alone and
      // longer (npm run test:fuzz, CLAWD_FUZZ_ROUNDS).
      {
        extends: true,
        test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000 },
      },
    ],
  },
});
