// A virtual X display for the few e2e tests that need a headed browser (a background tab is
// only really hidden in a browser with windows). CI installs Xvfb and sets CLAWD_TEST_XVFB=required,
// so there a missing Xvfb fails; on a developer machine without it those tests are skipped
// with a notice saying how to run them.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { until } from './waits';

export const XVFB_REQUIRED = process.env.CLAWD_TEST_XVFB === 'required';

export function xvfbPath(): string | undefined {
  return ['/usr/bin/Xvfb', '/usr/local/bin/Xvfb'].find((p) => existsSync(p));
}

/** Whether headed tests run here; says why not when they do not. */
export function headedTestsRun(): boolean {
  if (xvfbPath()) return true;
  if (XVFB_REQUIRED) throw new Error('CLAWD_TEST_XVFB=required but Xvfb is not installed (apt-get install -y xvfb)');
  process.stderr.write('note: headed-browser tests skipped: install Xvfb (apt-get install -y xvfb) to run them\n');
  return false;
}

export interface Display {
  display: string;
  close(): Promise<void>;
}

export async function startXvfb(): Promise<Display> {
  const binary = xvfbPath();
  if (!binary) throw new Error('Xvfb is not installed (apt-get install -y xvfb)');
  const first = 90 + Math.floor(Math.random() * 100);
  for (let n = first; n < first + 10; n++) {
    if (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) continue;
    const child: ChildProcess = spawn(binary, [`:${n}`, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], {
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await until(`Xvfb on :${n}`, () => existsSync(`/tmp/.X11-unix/X${n}`) || child.exitCode !== null, 10_000);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    if (child.exitCode !== null) continue; // lost a race for that display: try the next
    return {
      display: `:${n}`,
      async close() {
        child.kill('SIGTERM');
        await exited;
      },
    };
  }
  throw new Error(`Xvfb did not start on displays :${first}–:${first + 9}`);
}
