import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedGrid, type SharedGrid } from '../helpers/shared-grid';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/bench.js');

/**
 * The benchmark's quick run, as a smoke test: it must run every case and report numbers
 * (mcp-tasks and spa-tasks fail the run if a task's end state is wrong). No thresholds. Its grid case runs on
 * the run's Grid.
 */
/**
 * The bench's own bound: below the test's, so that a run that hangs is killed and says where.
 * About 155 s alone on a fast two-core machine; on one whose every kernel entry is dear (a
 * paravirtualized VM: Chromium's start costs 4 s of CPU there, 1.4 s on the first) it passed
 * 400 s beside two other files with seven cases to go. It starts first (the longest file), so
 * its bound is not the run's end.
 */
const BENCH_MS = 900_000;
const TEST_MS = BENCH_MS + 20_000;

describe('npm run bench -- --quick --json', () => {
  // The run's Grid may take two minutes to come up beside the other files (shared-grid.ts): waited
  // for before the bench's own bound starts.
  let grid: SharedGrid;
  beforeAll(async () => {
    grid = await sharedGrid();
  }, 160_000);

  it('runs every case against real Chromium and prints one JSON document', { timeout: TEST_MS }, async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn(process.execPath, [
          BENCH,
          '--quick',
          '--json',
          '--grid',
          grid.url,
          '--grid-pool',
          grid.pool,
        ]);
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        // Stopped past its bound (SIGTERM: it ends what it started on its way out), the run's
        // progress (stderr: each case and its time) is the failure's message.
        let hard: NodeJS.Timeout | undefined;
        const killer = setTimeout(() => {
          err += `\n(stopped after ${BENCH_MS / 1000} s)`;
          child.kill('SIGTERM');
          hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
        }, BENCH_MS);
        child.once('exit', (c) => {
          clearTimeout(killer);
          clearTimeout(hard);
          resolve({ code: c, stdout: out, stderr: err });
        });
      },
    );
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.machine).toMatchObject({
      cpus: expect.any(Number),
      node: process.version,
      chromium: expect.stringMatching(/^Chrome\//),
      quick: true,
    });
    const names = report.cases.map((c: { name: string }) => c.name);
    expect(names).toEqual([
      'cdp-rtt',
      'pw-evaluate',
      'screenshot',
      'peer-relay',
      'event-flood',
      'relay-hop',
      'snapshot-scale',
      'snapshot-corpus',
      'injection',
      'live-view',
      'cli',
      'mcp-tools',
      'mcp-tasks',
      'spa-tasks',
      'network-flood',
      'managed-start',
      'pool-ready',
      'fan-out',
      'many-profiles',
      'many-tabs',
      'grid',
      'target-fuzz',
    ]);
    expect(report.cases.filter((c: { pending?: string }) => c.pending)).toEqual([]);
    for (const c of report.cases) {
      if ('pending' in c) continue;
      expect(c).toMatchObject({
        unit: expect.any(String),
        value: expect.any(Number),
        target: expect.any(String),
        ok: expect.any(Boolean),
      });
      expect(Number.isFinite(c.value), c.name).toBe(true);
      if (c.ratio !== undefined) expect(c.ratio, c.name).toBeGreaterThan(0);
    }
    const lost = report.cases
      .filter((c: { details?: { lost?: number } }) => c.details?.lost !== undefined)
      .map((c: { details: { lost: number } }) => c.details.lost);
    expect(lost).toEqual([0, 0]); // event-flood and fan-out deliver every event, even in the quick run
    // The scale cases' correctness holds in the quick run too: no failed agent step, every client told of every tab.
    const scale = Object.fromEntries(
      report.cases
        .filter((c: { name: string }) => c.name.startsWith('many-'))
        .map((c: { name: string; details: object }) => [c.name, c.details]),
    );
    expect(scale['many-profiles']).toMatchObject({ errors: 0 });
    // No hidden instruction reaches clawd, every seen item does (the quick run holds it too).
    expect(report.cases.find((c: { name: string }) => c.name === 'injection')).toMatchObject({ value: 0, ok: true });
    // Agents through a Grid make no error either, even in the quick run.
    expect(report.cases.find((c: { name: string }) => c.name === 'grid')).toMatchObject({ details: { errors: 0 } });
    // The target fuzz's quick run breaks nothing either.
    expect(report.cases.find((c: { name: string }) => c.name === 'target-fuzz')).toMatchObject({ value: 0, ok: true });
    expect(scale['many-tabs']).toMatchObject({
      wrong: 0,
      invariantBreaks: 0,
      toldPerClient: '10/10/10',
      listedPerClient: '10/10/10',
      evaluations: 10,
    });
  });
});
