// Writes test/file-durations.json — how long each test file took in the last whole run, in
// seconds — from vitest's own cache of the run (node_modules/.vite/vitest/*/results.json). The
// suite's sequencer (vitest.config.ts) starts the longest files first by it, so a clean clone (CI,
// no cache) keeps both cores busy to the end. Run after a whole `npm test`: `npm run test:durations`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, 'node_modules', '.vite', 'vitest');
const runs = existsSync(cache)
  ? readdirSync(cache)
      .map((dir) => path.join(cache, dir, 'results.json'))
      .filter((file) => existsSync(file))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  : [];
if (runs.length === 0) {
  console.error(`no vitest results in ${cache}: run npm test first`);
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(runs[0], 'utf8'));
const durations = Object.fromEntries(
  results
    .map(([key, { duration }]) => [key.slice(key.indexOf(':') + 1), Math.round(duration / 100) / 10])
    // The suite's own files only: a probe run from elsewhere lands in the same cache.
    .filter(([file]) => file.startsWith('test/') && existsSync(path.join(root, file)))
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(path.join(root, 'test', 'file-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(durations).length} files`);
