// Runs the built `clawd` bin (dist/clawd.js) as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLAWD_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/clawd.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `bin`: another clawd than the repo's build (an installed package's). */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
  bin = CLAWD_BIN,
  /** What the command reads on standard input (it ends there: a command reading it never waits). */
  input = '',
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`clawd ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running command and resolves once its stdout matches `ready`. */
export function startCli(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
  bin = CLAWD_BIN,
): Promise<{ child: ChildProcess; stdout: () => string; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`clawd ${args.join(' ')} not ready in 15 s\n${stdout}\n${stderr}`));
    }, 15_000);
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const match = stdout.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, stdout: () => stdout, match });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`clawd ${args.join(' ')} exited (${code}) before it was ready\n${stdout}\n${stderr}`));
    });
  });
}
