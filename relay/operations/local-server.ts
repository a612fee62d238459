// The clawd server of a home, found or started: what `clawd mcp` and the native messaging host
// (Chrome starting clawd) share. A server of another home answering on the usual port is not
// this home's: one is started on free ports then. A server this starts runs detached, its output
// in the home's log/serve.log.

import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { ControlClient } from './control-client';

/** How long a server started here may take to answer. */
const SERVER_START_MS = 30_000;

/** How long a server found answering may take to write serve.json (it does right after it listens). */
const STATE_WAIT_MS = 5_000;

/**
 * The client with what serve.json says (the relay's URL among it): a server found on the usual
 * port just as it started answers before it has written the file.
 */
async function described(home: string, client: ControlClient): Promise<ControlClient> {
  const deadline = Date.now() + STATE_WAIT_MS;
  let current = client;
  while (!current.state && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = await ControlClient.locate(home, { ...process.env, CLAWD_CONTROL_URL: '' });
  }
  return current.state ? current : client;
}

/** The running server's control API for this home, if one answers; a server of another home is not it. */
export async function runningServer(
  home: string,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ client?: ControlClient; otherHome?: string }> {
  const client = await ControlClient.locate(home, env);
  try {
    const health = (await (await fetch(`${client.url}/`, { signal: AbortSignal.timeout(1_500) })).json()) as {
      name?: string;
      home?: string;
    };
    if (health.name !== PRODUCT_NAME) return {};
    if (health.home !== undefined && path.resolve(health.home) !== path.resolve(home)) {
      log.info(`the clawd server at ${client.url} serves another home (${health.home}): starting one for ${home}`);
      return { otherHome: health.home };
    }
    return { client };
  } catch {
    return {};
  }
}

export interface ServerStart {
  /** `serve --until-unused`: it stops a few seconds after its last client left (`clawd mcp`'s). */
  untilUnused: boolean;
  relayPort?: number;
  controlPort?: number;
  /** The bin to run (`clawd.js`); this process's own by default. */
  bin?: string;
}

/** The home's running server, or one started for it: `started` says which. */
export async function ensureServer(
  home: string,
  log: Logger,
  start: ServerStart,
): Promise<{ client: ControlClient; started: boolean }> {
  const found = await runningServer(home, log);
  if (found.client) return { client: await described(home, found.client), started: false };
  // Another home's server holds the usual ports: this home's goes on free ones.
  const taken = found.otherHome !== undefined;
  const relayPort = taken ? 0 : start.relayPort;
  const controlPort = taken ? 0 : start.controlPort;
  const args = [
    '--home',
    home,
    ...(start.untilUnused ? ['--until-unused'] : []),
    ...(relayPort !== undefined ? ['--relay-port', String(relayPort)] : []),
    ...(controlPort !== undefined ? ['--control-port', String(controlPort)] : []),
  ];
  return { client: await startServer(home, log, args, start.bin ?? process.argv[1]!), started: true };
}

/**
 * Starts `clawd serve` for the home, detached (it outlives this process), and resolves with its
 * client once it answers. One that stops at once may have lost a race with another starter
 * (`clawd mcp` and Chrome at the same moment): the winner's server is the answer then.
 */
async function startServer(home: string, log: Logger, args: string[], bin: string): Promise<ControlClient> {
  const logDir = path.join(home, 'log');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const out = openSync(path.join(logDir, 'serve.log'), 'a', 0o600);
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  log.info(`started a clawd server for ${home} (pid ${child.pid}; its log: ${path.join(logDir, 'serve.log')})`);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + SERVER_START_MS;
  // serve.json names it once it listens (not the variable that may point this process elsewhere).
  const env = { ...process.env, CLAWD_CONTROL_URL: '' };
  for (;;) {
    // Found on the usual port, it may answer a moment before it has written serve.json: not yet.
    const { client } = await runningServer(home, log, env);
    if (client?.state) return client;
    const code = await Promise.race([
      exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200)),
    ]);
    if (code !== undefined) {
      const other = await runningServer(home, log, env);
      if (other.client) return described(home, other.client);
      throw new ClawdError(
        'launch_failed',
        `the clawd server this started for ${home} stopped (exit code ${code}): see ${path.join(logDir, 'serve.log')}`,
      );
    }
    if (Date.now() > deadline)
      throw new ClawdError(
        'launch_failed',
        `the clawd server this started for ${home} did not answer within ${SERVER_START_MS / 1000} s: see ${path.join(logDir, 'serve.log')}`,
      );
  }
}
