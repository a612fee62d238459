// managed-start: POST /start of a fresh managed profile until it answers (CDP ready), vs spawning
// the same Chromium with the same arguments by hand and polling /json/version. Each round uses a
// new profile (a cold user data dir on both sides), alternating.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CdpHttp } from '../../../relay/browser/cdp-http';
import { findExecutable } from '../../../relay/browser/executable';
import { decideLaunch, launchArgs } from '../../../relay/browser/launch-args';
import { firstFreePort } from '../../../relay/browser/ports';
import { removeSingletonLeftovers } from '../../../relay/browser/shutdown';
import { type RelayProcess, controlApi } from '../fixture';
import { median, round, type CaseResult } from '../stats';

async function rawSpawnMs(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-raw-'));
  const port = (await firstFreePort({ from: 19_500, to: 19_999 }, new Set(), new Set()))!;
  const args = launchArgs({
    userDataDir: dir,
    cdpPort: port,
    choice: decideLaunch({ headless: false, noSandbox: false }),
    extraArgs: [],
  });
  const started = performance.now();
  const child = spawn(findExecutable(undefined).path, args, { stdio: 'ignore', detached: true });
  const cdp = new CdpHttp(`http://127.0.0.1:${port}`, {}, 1_000);
  try {
    for (;;) {
      if (
        await cdp.version().then(
          () => true,
          () => false,
        )
      )
        return performance.now() - started;
      if (performance.now() - started > 15_000) throw new Error('raw Chromium did not answer within 15 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    await removeSingletonLeftovers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function managedStart(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const api = controlApi(relay);
  const ours: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < (quick ? 1 : 6); i++) {
    const name = `bench-${process.pid}-${i}`;
    await api('POST', '/profiles/create', { name });
    const started = performance.now();
    await api('POST', `/start?profile=${name}`);
    ours.push(performance.now() - started);
    await api('POST', `/stop?profile=${name}`);
    await api('DELETE', `/profiles/${name}`);
    raw.push(await rawSpawnMs());
  }
  const value = median(ours);
  const baseline = median(raw);
  return {
    name: 'managed-start',
    unit: 'ms',
    value: round(value, 1),
    baseline: round(baseline, 1),
    ratio: round(value / baseline, 2),
    target: 'ratio ≤ 1.3',
    ok: value / baseline <= 1.3,
    details: { rounds: ours.length },
  };
}
