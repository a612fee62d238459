// cli: what a `clawd` command costs an agent that runs one per step. `clawd --version` against
// `node -e 0` (the CLI's own start-up), and `clawd tabs --json` against a bare Node script making
// the same HTTP request to the same running server, alternated (A B A B), medians.
// Targets: within 1.2× and 1.3×.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RelayProcess, controlApi } from '../fixture';
import { alternate, median, round, type CaseResult } from '../stats';

const CLAWD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clawd.js');

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 30_000 }, (error) => (error ? reject(error) : resolve()));
  });
}

export async function cli(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const api = controlApi(relay);
  await api('POST', '/start');
  await api('POST', '/tabs/open', { url: 'about:blank' });
  try {
    const rounds = quick ? 3 : 15;
    const version = await alternate(
      rounds,
      1,
      () => run([CLAWD, '--version']),
      () => run(['-e', '0']),
    );
    const bare = `fetch(${JSON.stringify(`${relay.controlUrl}/tabs`)}, { headers: { Authorization: 'Bearer ${relay.token}' } }).then((r) => r.text()).then((t) => process.stdout.write(t))`;
    const tabs = await alternate(
      rounds,
      1,
      () => run([CLAWD, 'tabs', '--json', '--home', relay.home]),
      () => run(['-e', bare]),
    );
    const versionRatio = median(version.a) / median(version.b);
    const tabsRatio = median(tabs.a) / median(tabs.b);
    return {
      name: 'cli',
      unit: 'ms (clawd tabs --json)',
      value: round(median(tabs.a), 0),
      baseline: round(median(tabs.b), 0),
      ratio: round(tabsRatio, 2),
      target: '--version ≤ 1.2× node -e 0; tabs ≤ 1.3× a bare fetch',
      ok: versionRatio <= 1.2 && tabsRatio <= 1.3,
      details: {
        versionMs: round(median(version.a), 0),
        nodeMs: round(median(version.b), 0),
        versionRatio: round(versionRatio, 2),
      },
    };
  } finally {
    await api('POST', '/stop').catch(() => {});
  }
}
