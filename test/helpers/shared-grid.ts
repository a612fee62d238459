// One Selenium Grid for a whole test run (a hub and two nodes), started when a file first asks for
// it and ended when the run ends. Test files run in worker processes, so the global setup of the
// projects that use it (e2e, bench; this file's default export) keeps the Grid and hands its address
// out over a loopback broker; a Grid's JVMs cost more than a browser, and five files once started
// their own. Each project runs its global setup, in vitest's one main process: the Grid is kept on
// that process's global, so two projects still share one, ended after the last project's files.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { startSeleniumGrid, type GridHub, type SeleniumGrid } from './selenium-grid';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The broker's address, with its secret path: POST `<it>/grid` answers a SharedGrid. */
    sharedGridBroker: string;
  }
}

/** What a test file is given of the run's Grid: where it is, and what its sessions ask for. */
export interface SharedGrid {
  url: string;
  hub: GridHub;
  pool: string;
  capabilities: Record<string, unknown>;
}

/** A Grid's JVMs may take two minutes to come up beside a whole test run. */
const GRID_START_MS = 150_000;

/** The run's Grid, in vitest's main process: one for every project whose global setup this is. */
interface RunGrid {
  grid?: Promise<SeleniumGrid>;
  /** Projects set up and not yet torn down: the last one ends the Grid. */
  users: number;
}
const RUN_GRID = Symbol.for('clawd.test.run-grid');
const runGrid = (): RunGrid => ((globalThis as { [RUN_GRID]?: RunGrid })[RUN_GRID] ??= { users: 0 });

export default async function startSharedGridBroker(project: TestProject): Promise<() => Promise<void>> {
  const run = runGrid();
  run.users += 1;
  const secret = randomUUID();
  const broker = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== `/${secret}/grid`) {
      res.writeHead(404).end();
      return;
    }
    // A Grid that failed to start is the answer for every file after it too: each would wait as long.
    const grid = (run.grid ??= startSeleniumGrid({ nodes: 2, slots: 4 }));
    grid.then(
      (g) => {
        const shared: SharedGrid = { url: g.url, hub: g.hub, pool: g.pool, capabilities: g.capabilities };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shared));
      },
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('sharedGridBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}/${secret}`);
  return async () => {
    broker.closeAllConnections();
    await new Promise((resolve) => broker.close(resolve));
    run.users -= 1;
    if (run.users > 0) return;
    const grid = run.grid;
    run.grid = undefined;
    await (await grid?.catch(() => undefined))?.close();
  };
}

/** The run's Grid, started by the first file that asks; every caller's sessions use `capabilities`. */
export async function sharedGrid(): Promise<SharedGrid> {
  const response = await fetch(`${inject('sharedGridBroker')}/grid`, {
    method: 'POST',
    signal: AbortSignal.timeout(GRID_START_MS),
  });
  if (!response.ok) throw new Error(`the run's Selenium Grid did not start: ${await response.text()}`);
  return (await response.json()) as SharedGrid;
}
