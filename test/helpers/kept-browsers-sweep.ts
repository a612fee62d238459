// The e2e project's global teardown for the browsers its workers keep between files
// (worker-browsers.ts): a worker ends its own as it exits, but one killed outright (vitest sends
// SIGKILL half a second after SIGTERM) cannot, and a kept Chromium runs detached. So each worker
// writes down what it keeps, and this ends whatever is still written when the run ends.

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where a run's workers write down the browsers they keep: a folder named for vitest's main
 * process (a worker's parent), a file per browser (its process id; in it, its user data folder).
 */
export function keptBrowsersFolder(mainPid: number): string {
  return path.join(os.tmpdir(), `clawd-kept-browsers-${mainPid}`);
}

export default function sweepKeptBrowsers(): () => void {
  return () => {
    const folder = keptBrowsersFolder(process.pid);
    let records: string[];
    try {
      records = readdirSync(folder);
    } catch {
      return; // nothing kept, or every worker ended its own
    }
    for (const pid of records) {
      try {
        process.kill(-Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
      try {
        rmSync(readFileSync(path.join(folder, pid), 'utf8'), { recursive: true, force: true });
      } catch {
        // its folder went with it
      }
    }
    rmSync(folder, { recursive: true, force: true });
  };
}
