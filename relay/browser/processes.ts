// Finding and stopping browser processes by what they are, not by guesswork: a process belongs
// to a profile when its command line carries that profile's --user-data-dir. Used by
// reset-profile (which must never touch another program on the port) and to adopt a Chromium a
// previous `clawd serve` left running. Stopping is SIGTERM, then SIGKILL after a grace period.

import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  args: string;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) =>
    execFile(file, args, { timeout: 5_000, maxBuffer: 16 * 1024 * 1024 }, (_error, stdout) => resolve(stdout ?? '')),
  );
}

/**
 * The command that lists every process with its command line, per platform. Windows: PowerShell,
 * told to write UTF-8 (its console default is the OEM code page, which turns a user data path's
 * non-ASCII letters into other characters, and the path would match nothing).
 */
export function processListCommand(platform: NodeJS.Platform): { file: string; args: string[] } {
  if (platform === 'win32')
    return {
      file: 'powershell.exe',
      args: [
        '-NoProfile',
        '-Command',
        '[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.CommandLine)" }',
      ],
    };
  return { file: 'ps', args: ['-axww', '-o', 'pid=,args='] };
}

async function listProcesses(): Promise<ProcessInfo[]> {
  const { file, args } = processListCommand(process.platform);
  return parsePs(await run(file, args));
}

/**
 * Whether a command line was started with this user data dir: `--user-data-dir=DIR` as a word of
 * its own, or quoted as Windows writes an argument with spaces (`"--user-data-dir=C:\A B\x"`, or
 * `--user-data-dir="…"`). A dir that only starts with DIR (`…/user-data-2`) is another one.
 */
export function usesUserDataDir(commandLine: string, userDataDir: string): boolean {
  const flag = `--user-data-dir=${userDataDir}`;
  return (
    commandLine.includes(`${flag} `) ||
    commandLine.endsWith(flag) ||
    commandLine.includes(`"${flag}"`) ||
    commandLine.includes(`--user-data-dir="${userDataDir}"`)
  );
}

export function parsePs(out: string): ProcessInfo[] {
  return out
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }));
}

/** The browser processes started with this exact user data dir (the main one carries the debugging port). */
export async function processesUsing(userDataDir: string): Promise<ProcessInfo[]> {
  return (await listProcesses()).filter((p) => p.pid !== process.pid && usesUserDataDir(p.args, userDataDir));
}

/** The main browser process of a profile (its helpers carry `--type=renderer` and the like). */
export async function browserProcess(userDataDir: string, cdpPort: number): Promise<ProcessInfo | undefined> {
  return (await processesUsing(userDataDir)).find(
    (p) => !/\s--type=/.test(p.args) && p.args.includes(`--remote-debugging-port=${cdpPort}`),
  );
}

/** Best effort: the pid listening on a loopback TCP port (Linux, from /proc); undefined elsewhere. */
export async function listeningPid(port: number): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await fs.readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (!local || cols[3] !== '0A') continue; // 0A = LISTEN
      if (parseInt(local.split(':').pop()!, 16) === port) inodes.add(cols[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of await fs.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = await fs.readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await fs.readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      const inode = link.match(/^socket:\[(\d+)\]$/)?.[1];
      if (inode && inodes.has(inode)) return Number(entry);
    }
  }
  return undefined;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone (or after the kill). */
export async function terminate(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone between the check and the kill
    }
  }
}
