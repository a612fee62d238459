// `clawd mcp`: MCP over stdio (stdout carries only the protocol; logs go to stderr). The tools
// are clients of the `clawd serve` of this home, over HTTP. When none runs, this process starts
// one of its own, detached, that stops itself a few seconds after the last of its clients has
// gone (`serve --until-unused`): an agent's host kills `clawd mcp` when it leaves, and a second
// agent window's `clawd mcp` may be using the same server by then. Every `clawd mcp` holds an
// /events stream open while it runs, which is how the server knows it is used. A server of
// another home answering on the usual port is not this home's: this one starts its own on free
// ports, and says so.

import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { ControlClient } from '../operations/control-client';
import { createMcpServer } from './mcp-server';

/** How long a server started here may take to answer. */
const SERVER_START_MS = 30_000;

/** The running server's control API for this home, if one answers; a server of another home is not it. */
async function runningServer(
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

/**
 * Starts `clawd serve --until-unused` for the home, detached (it outlives this process while
 * others use it), its log in the home's log/serve.log; resolves with its client once it answers.
 */
async function startServer(home: string, log: Logger, ports: string[]): Promise<ControlClient> {
  const logDir = path.join(home, 'log');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const out = openSync(path.join(logDir, 'serve.log'), 'a', 0o600);
  const bin = process.argv[1]!;
  const child = spawn(process.execPath, [bin, 'serve', '--home', home, '--until-unused', ...ports], {
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
    const { client } = await runningServer(home, log, env);
    if (client) return client;
    const code = await Promise.race([
      exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200)),
    ]);
    if (code !== undefined)
      throw new ClawdError(
        'launch_failed',
        `the clawd server this started for ${home} stopped (exit code ${code}): see ${path.join(logDir, 'serve.log')}`,
      );
    if (Date.now() > deadline)
      throw new ClawdError(
        'launch_failed',
        `the clawd server this started for ${home} did not answer within ${SERVER_START_MS / 1000} s: see ${path.join(logDir, 'serve.log')}`,
      );
  }
}

/** Holds an /events stream of the server open while this process runs: the server counts it as a client. */
function holdLease(client: ControlClient, log: Logger): () => void {
  const request = http.get(
    `${client.url}/events`,
    { headers: { Authorization: `Bearer ${client.token}` } },
    (response) => {
      response.resume(); // what happened is not this process's business; being there is
      response.once('end', () => log.debug('the clawd server closed our events stream'));
    },
  );
  request.on('error', (error) => log.debug(`events stream: ${error.message}`));
  return () => request.destroy();
}

/** Serves MCP on stdin/stdout until the client goes away. */
export async function runMcpStdio(options: {
  home: string;
  profile: string | undefined;
  log: Logger;
  relayPort?: number;
  controlPort?: number;
}): Promise<void> {
  const { home, log } = options;
  const found = await runningServer(home, log);
  let client = found.client;
  if (!client) {
    // Another home's server holds the usual ports: this home's goes on free ones.
    const taken = found.otherHome !== undefined;
    const ports = [
      ...(options.relayPort !== undefined || taken ? ['--relay-port', String(taken ? 0 : options.relayPort)] : []),
      ...(options.controlPort !== undefined || taken
        ? ['--control-port', String(taken ? 0 : options.controlPort)]
        : []),
    ];
    client = await startServer(home, log, ports);
  }
  log.info(`MCP over stdio, using the clawd server at ${client.url}`);
  const release = holdLease(client, log);
  const server = createMcpServer(client, options.profile);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
  release();
  log.info('MCP client gone');
}
