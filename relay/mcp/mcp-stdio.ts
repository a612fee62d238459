// `clawd mcp`: MCP over stdio (stdout carries only the protocol; logs go to stderr). The tools
// are clients of the `clawd serve` of this home, over HTTP. When none runs, this process starts
// one of its own, detached, that stops itself a few seconds after the last of its clients has
// gone (`serve --until-unused`): an agent's host kills `clawd mcp` when it leaves, and a second
// agent window's `clawd mcp` may be using the same server by then. Every `clawd mcp` holds an
// /events stream open while it runs, which is how the server knows it is used. A server of
// another home answering on the usual port is not this home's: this one starts its own on free
// ports, and says so.

import http from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../log';
import type { ControlClient } from '../operations/control-client';
import { ensureServer } from '../operations/local-server';
import { profiles } from '../operations/tab-operations';
import { createMcpServer } from './mcp-server';

/**
 * Holds an /events stream of the server open while this process runs: the server counts it as a
 * client. Only once the server proved it knows the token (what answers may not be clawd).
 */
async function holdLease(client: ControlClient, log: Logger): Promise<() => void> {
  try {
    await client.prove();
  } catch (error) {
    log.warn(`not holding the server's event stream: ${(error as Error).message}`);
    return () => {};
  }
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

/** One sentence for the instructions: the profiles of this server, the default and the person's own named. */
async function profilesSaid(client: ControlClient): Promise<string> {
  const { profiles: listed } = await client.invoke(profiles, undefined, {});
  const said = listed.map((p) => `${p.profile} (${p.role}${p.default ? ', the default' : ''})`);
  return `Profiles: ${said.join(', ')}.`;
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
  const { client } = await ensureServer(home, log, {
    untilUnused: true,
    relayPort: options.relayPort,
    controlPort: options.controlPort,
  });
  log.info(`MCP over stdio, using the clawd server at ${client.url}`);
  const release = await holdLease(client, log);
  // With no profile chosen, the agent is told which there are, and which one is the person's browser.
  const server = createMcpServer(
    client,
    options.profile,
    options.profile === undefined
      ? await profilesSaid(client).catch((error: Error) => {
          log.warn(`could not list the profiles for the instructions: ${error.message}`);
          return undefined;
        })
      : undefined,
  );
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
