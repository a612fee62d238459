// `npm run bench`: measures the relay against direct CDP on real Chromium, side by side in one
// run on one machine, and prints a table (or `--json`). `--quick` runs few iterations: CI uses it
// as a smoke run without thresholds, so the benchmark never rots. `--only a,b` picks cases.
// `--grid URL` runs the grid case on a Selenium Grid already up (`--grid-pool NAME`: on its nodes
// of that `clawd:pool`) instead of one of its own.
// Cases whose feature has not landed yet are listed as pending rather than left out.

import os from 'node:os';
import { parseArgs } from 'node:util';
import { cdpRtt } from './cases/cdp-rtt';
import { eventFlood } from './cases/event-flood';
import { cli } from './cases/cli';
import { fanOut } from './cases/fan-out';
import { grid } from './cases/grid';
import { injection } from './cases/injection';
import { liveView } from './cases/live-view';
import { managedStart } from './cases/managed-start';
import { poolReady } from './cases/pool-ready';
import { manyProfiles } from './cases/many-profiles';
import { MANY_TABS_REST_MS, manyTabs } from './cases/many-tabs';
import { mcpTasks } from './cases/mcp-tasks';
import { spaTasks } from './cases/spa-tasks';
import { mcpTools } from './cases/mcp-tools';
import { networkFlood } from './cases/network-flood';
import { peerRelay } from './cases/peer-relay';
import { pwEvaluate } from './cases/pw-evaluate';
import { relayHop } from './cases/relay-hop';
import { NOISE_PAGE, screenshot } from './cases/screenshot';
import { snapshotCorpus } from './cases/snapshot-corpus';
import { targetFuzz } from './cases/target-fuzz';
import { manyPage, snapshotScale } from './cases/snapshot-scale';
import { browserVersion } from '../../relay/browser/browser-version';
import { findExecutable } from '../../relay/browser/executable';
import { within } from '../../relay/time-limit';
import { takeStep } from './case-steps';
import {
  openBenchTab,
  startBenchPages,
  startRelayProcess,
  systemPickedPorts,
  type BenchTab,
  type RelayProcess,
} from './fixture';
import type { CaseResult } from './stats';

const ALL = [
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
] as const;
const PENDING: Record<string, string> = {};
/**
 * How long one case may take: in a quick run each takes under 30 s alone on two cores (the
 * longest, peer-relay and grid, about 20 s); beside two test files on a machine whose kernel
 * entries are dear (a paravirtualized VM) snapshot-scale took 74 s and peer-relay 64 s, so 4
 * minutes is a hang, not a slow machine. A full run's longest (mcp-tasks with Playwright MCP's
 * whole plan) takes minutes.
 */
const QUICK_CASE_MS = 240_000;
const CASE_MS = 900_000;

interface PendingCase {
  name: string;
  pending: string;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
      grid: { type: 'string' },
      'grid-pool': { type: 'string' },
    },
  });
  const quick = values.quick ?? false;
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  const wanted = (name: string) => !only || only.has(name);
  // Progress goes to stderr in --json runs too: a smoke run that fails or is killed says which
  // case it was in and how long each before it took.
  const began = performance.now();
  const log = (line: string) =>
    process.stderr.write(`${((performance.now() - began) / 1000).toFixed(1).padStart(6)} s  ${line}\n`);
  const cases: Array<CaseResult | PendingCase> = [];
  const bound = quick ? QUICK_CASE_MS : CASE_MS;
  /** One case, if wanted: logged, timed, and failed (the run with it) past its bound. */
  const run = async (name: string, fn: () => Promise<CaseResult>) => {
    if (!wanted(name)) return;
    log(`running ${name}${quick ? ' (quick)' : ''} …`);
    takeStep();
    const start = performance.now();
    const result = await within(fn(), bound, () => new TimeoutError()).catch((error: unknown) => {
      if (!(error instanceof TimeoutError)) throw error;
      // Said now, and the run ends here: the case is still running, so closing its servers under
      // it could hang too. What it started ends with the process (endOnExit, TestBrowser's hook).
      const last = takeStep();
      log(`bench case ${name} did not finish within ${bound / 1000} s${last ? ` (its last step: ${last})` : ''}`);
      process.exit(1);
    });
    cases.push(result);
    log(`${name} took ${((performance.now() - start) / 1000).toFixed(1)} s`);
  };
  const relay = await startRelayProcess();
  const pages = await startBenchPages({
    '/': '<!doctype html><title>bench</title><p>bench</p>',
    '/noise': NOISE_PAGE,
  });
  let chromiumVersion = 'unknown';
  let tab: BenchTab | undefined;
  try {
    const needsTab = ['cdp-rtt', 'pw-evaluate', 'screenshot', 'event-flood', 'fan-out', 'peer-relay'].some(wanted);
    if (needsTab) {
      tab = await openBenchTab(relay, pages.url('/'));
      chromiumVersion = (await tab.direct.client.send('Browser.getVersion')).product;
    } else {
      // No bench tab for these cases: ask the executable the managed profiles launch.
      try {
        chromiumVersion = (await browserVersion(findExecutable(undefined).path)) ?? chromiumVersion;
      } catch {
        // No browser found: the managed case reports that itself.
      }
    }
    if (tab) {
      const t = tab;
      await run('cdp-rtt', () => cdpRtt(t, quick));
      await run('pw-evaluate', () => pwEvaluate(t, pages.url('/'), quick));
      await run('event-flood', () => eventFlood(t, quick));
      await run('fan-out', () => fanOut(t, quick));
      if (wanted('screenshot') || wanted('peer-relay')) {
        await t.direct.client.send('Page.navigate', { url: pages.url('/noise') }, t.direct.sessionId);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await run('screenshot', () => screenshot(t, quick));
        // Beside the peer relay, on the same page (its tab loads it too).
        await run('peer-relay', () => peerRelay(t, pages.url('/noise'), quick));
      }
    }
  } finally {
    await tab?.close();
    await relay.close();
    await pages.close();
  }
  if (
    [
      'managed-start',
      'pool-ready',
      'snapshot-scale',
      'snapshot-corpus',
      'injection',
      'live-view',
      'cli',
      'mcp-tools',
      'network-flood',
    ].some(wanted)
  ) {
    const server = await startRelayProcess();
    // The snapshot cases' "before": the walk without the rules of what a person cannot see. Its
    // browser on a port the system picks (both homes would start at the first of the usual range).
    const before =
      wanted('snapshot-scale') || wanted('snapshot-corpus')
        ? await startRelayProcess({ CLAWD_BENCH_SEE_ALL: '1', CLAWD_CDP_PORTS: await systemPickedPorts() })
        : undefined;
    const many = await startBenchPages(
      Object.fromEntries([1_000, 5_000, 20_000].map((n) => [`/many${n}`, manyPage(n)])),
    );
    try {
      await run('managed-start', () => managedStart(server, quick));
      await run('pool-ready', () => poolReady(server, quick));
      await run('snapshot-scale', () => snapshotScale(server, before!, (n) => many.url(`/many${n}`), quick));
      await run('snapshot-corpus', () => snapshotCorpus(server, before!, quick));
      await run('injection', () => injection(server));
      await run('live-view', () => liveView(server, quick));
      await run('cli', () => cli(server, quick));
      await run('mcp-tools', () => mcpTools(server));
      await run('network-flood', () => networkFlood(server, quick));
    } finally {
      await many.close();
      await server.close();
      await before?.close();
    }
  }
  // Its own servers: clawd mcp runs one on a fresh home, as an agent's host would.
  await run('mcp-tasks', () => mcpTasks(quick));
  await run('spa-tasks', () => spaTasks(quick));
  await run('relay-hop', () => relayHop(quick));
  const onGrid = values.grid !== undefined ? { url: values.grid, pool: values['grid-pool'] } : undefined;
  // The scale cases each on a server of their own: its peak memory is theirs alone.
  for (const [name, fn] of [
    ['many-profiles', manyProfiles],
    ['many-tabs', manyTabs],
    ['grid', (server: RelayProcess, q: boolean) => grid(server, q, onGrid)],
  ] as const) {
    if (!wanted(name)) continue;
    // many-tabs: its tabs rest after a few seconds unused, so the case meets rests every run
    // (the usual 30 s came only when attaching was slow, and a wake then was not answered once).
    const server = await startRelayProcess(
      {},
      name === 'many-tabs' ? { extension: { idleDetachMs: MANY_TABS_REST_MS } } : undefined,
    );
    try {
      await run(name, () => fn(server, quick));
    } finally {
      await server.close();
    }
  }
  if (wanted('target-fuzz')) {
    // A server of its own: the fuzz's browsers and clients come and go on it alone.
    const server = await startRelayProcess();
    try {
      await run('target-fuzz', () => targetFuzz(server, quick));
    } finally {
      await server.close();
    }
  }
  for (const name of Object.keys(PENDING)) if (wanted(name)) cases.push({ name, pending: PENDING[name]! });
  cases.sort((a, b) => ALL.indexOf(a.name as (typeof ALL)[number]) - ALL.indexOf(b.name as (typeof ALL)[number]));

  const machine = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGB: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    chromium: chromiumVersion,
    quick,
  };
  if (values.json) {
    process.stdout.write(JSON.stringify({ machine, cases }, null, 2) + '\n');
    return 0;
  }
  const rows = cases.map((c) =>
    'pending' in c
      ? [c.name, '—', '—', '—', '—', '—', `pending: ${c.pending}`]
      : [
          c.name,
          `${c.value} ${c.unit}`,
          c.baseline === undefined ? '—' : String(c.baseline),
          c.ratio === undefined ? '—' : `${c.ratio}×`,
          c.target,
          c.ok ? 'ok' : 'MISSED',
          Object.entries(c.details ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
        ],
  );
  const header = ['case', 'value', 'baseline', 'ratio', 'target', '', 'details'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write(
    [
      `clawd-browser bench — ${machine.date.slice(0, 10)}, ${machine.chromium}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGB} GB, Node ${machine.node}${quick ? ', quick' : ''}`,
      line(header),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
    ].join('\n'),
  );
  return 0;
}

/** A case past its bound (`within` rejects with it). */
class TimeoutError extends Error {}

// Stopped (the smoke test's bound, ^C): out through the exit hooks, which end what the run started.
process.once('SIGTERM', () => process.exit(143));
process.once('SIGINT', () => process.exit(130));

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
