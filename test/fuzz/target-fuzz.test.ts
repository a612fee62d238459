// The target fuzz in CI (test/helpers/target-fuzz.ts): a seeded random run of what tabs do, on a
// managed profile and on a handed-over tab, with Playwright, Puppeteer and raw CDP clients
// connected at once: 0 invariant breaks, 0 client errors. A failure prints its seed;
// CLAWD_FUZZ_SEED replays it and CLAWD_FUZZ_ROUNDS runs longer (the bench case target-fuzz runs
// a thousand rounds of each).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, type AgentDriver } from '../helpers/agent-drivers';
import { CdpClient } from '../helpers/cdp-client';
import type { PageServer } from '../helpers/pages';
import { keptLogger } from '../helpers/server';
import {
  describeRun,
  extensionReloader,
  fuzzSettings,
  runTargetFuzz,
  startFuzzPages,
  type FuzzReport,
  type FuzzTarget,
} from '../helpers/target-fuzz';

const { seed, rounds } = fuzzSettings(200);
// Cheap events most rounds; the slow ones (a second or more each) a few times per run.
const SLOW = { detours: 3, extensionReloads: 2 };
// Renderer crashes the run makes itself: only when CLAWD_FUZZ_CRASHES asks. Not on the managed
// profile (Chrome's own port): there a Playwright that saw a crash holds the next document's
// service worker for good (playwright-core's trait, measured on raw Chromium; DEVELOPERS.md). On
// the handed-over tab they pass (seeds 11, 13, 21–24, 31, 32) but one run of seed 31 hit the
// test's bound: off in CI until that is understood.
const CRASHES = {
  extension: Number(process.env.CLAWD_FUZZ_CRASHES ?? 0),
  managed: Number(process.env.CLAWD_FUZZ_CRASHES ?? 0),
};
// The run's own bound: 200 rounds take 29 s alone on the extension (seed 706670685), and 2.4
// times that beside a whole run's other files (over the 70 s this was once). A hang still fails.
const bound = Math.max(60_000, rounds * 600);

function expectClean(report: FuzzReport, name: string): void {
  if (process.env.CLAWD_FUZZ_VERBOSE)
    console.log(
      name,
      report.seconds.toFixed(1),
      's',
      JSON.stringify(
        Object.fromEntries(Object.entries(report.counts).map(([k, v]) => [k, `${v.n}×${Math.round(v.ms / v.n)}ms`])),
      ),
      JSON.stringify(report.seen),
    );
  const run = describeRun(report, name);
  // Said with the seed, not failed on: a stall is the page not finishing what it started within
  // the harness's bound (seen under a whole CI run's load), not a broken view of targets.
  if (report.stalls.length > 0)
    console.warn(`${name}: ${report.stalls.length} stalled (seed ${report.seed}):\n  ${report.stalls.join('\n  ')}`);
  if (report.crashes.length > 0)
    console.warn(`${name}: the renderer crashed after ${report.crashes.join('; ')} (seed ${report.seed})`);
  expect(report.breaks, run).toEqual([]);
  expect(report.clientErrors, run).toEqual([]);
  expect(report.rounds).toBe(rounds);
  // The run reached what it meant to: each kind of target it made was shown to a client.
  const made: Record<string, string> = {
    iframe: 'add cross-site iframe',
    worker: 'start worker',
    service_worker: 'register service worker',
  };
  for (const [type, event] of Object.entries(made))
    if (report.counts[event]) expect(report.seen[type], `${type}s shown; ${run}`).toBeGreaterThan(0);
}

describe('the target fuzz on a managed profile', () => {
  let pages: PageServer;
  let d: AgentDriver;
  let harness: CdpClient;
  beforeAll(async () => {
    pages = await startFuzzPages();
    d = await managedDriver(pages);
  });
  afterAll(async () => {
    await harness?.close();
    await d?.close();
    await pages?.close();
  });

  it(
    `keeps every client's view of targets whole (seed ${seed}, ${rounds} rounds)`,
    async () => {
      // The profile's port, which clawd serves over the browser's pipe: every client with the token.
      const { cdpUrl } = (await d.api<{ cdpUrl: string }>('GET', '/')).body;
      const token = d.server.token;
      const { webSocketDebuggerUrl } = (await (await fetch(`${cdpUrl}/json/version?token=${token}`)).json()) as {
        webSocketDebuggerUrl: string;
      };
      // The harness is clawd's own connection (its key): it takes the tab through a chrome://
      // page, which no raw client may load; the clients the fuzz judges are raw ones.
      harness = await CdpClient.connect(webSocketDebuggerUrl, {
        headers: { 'x-clawd-agent': d.server.server.relay.agentKey },
      });
      const target: FuzzTarget = {
        name: 'managed',
        playwrightUrl: `${cdpUrl}/?token=${token}`,
        browserWsUrl: webSocketDebuggerUrl,
        pageWsUrl: (id) => `${cdpUrl.replace('http', 'ws')}/devtools/page/${id}?token=${token}`,
        harness,
        targetId: d.targetId,
      };
      expectClean(
        await runTargetFuzz(target, pages, { seed, rounds, detours: SLOW.detours, crashes: CRASHES.managed }),
        'managed',
      );
    },
    bound,
  );
});

describe('the target fuzz on a handed-over tab', () => {
  let pages: PageServer;
  let d: AgentDriver;
  // The relay's last lines, said with a failure: what it did with the tab just before.
  const relayLog = keptLogger();
  beforeAll(async () => {
    pages = await startFuzzPages();
    d = await extensionDriver(pages, { log: relayLog });
  });
  afterAll(async () => {
    await d?.close();
    await pages?.close();
  });

  it(
    `keeps every client's view of targets whole (seed ${seed}, ${rounds} rounds)`,
    async () => {
      const relay = d.server.server.relay;
      const token = d.server.token;
      const target: FuzzTarget = {
        name: 'extension',
        playwrightUrl: `http://127.0.0.1:${relay.port}/?token=${token}`,
        browserWsUrl: `ws://127.0.0.1:${relay.port}/cdp?token=${token}`,
        pageWsUrl: (id) => `ws://127.0.0.1:${relay.port}/devtools/page/${id}?token=${token}`,
        harness: d.browser!.cdp,
        targetId: d.targetId,
        reloadExtension: extensionReloader(d.browser!),
      };
      try {
        expectClean(
          await runTargetFuzz(target, pages, {
            seed,
            rounds,
            detours: SLOW.detours,
            crashes: CRASHES.extension,
            extensionReloads: SLOW.extensionReloads,
          }),
          'extension',
        );
      } catch (error) {
        (error as Error).message += `\nthe relay's last lines:\n  ${relayLog.lines().join('\n  ')}`;
        throw error;
      }
    },
    bound,
  );
});
