// `clawd mcp`: MCP over stdio (stdout carries only the protocol; logs go to stderr). When a
// `clawd serve` answers for this home, the tools are its clients over HTTP; when none does, this
// process runs the server itself (the caller hands in how) for as long as the MCP client stays,
// on the usual ports or free ones when those are taken, calls its operations in-process, and
// stops it — and the browsers it launched — when the client goes.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PRODUCT_NAME } from '../../shared/defaults';
import { isClawdError } from '../errors';
import type { Logger } from '../log';
import { ControlClient, type Invoker } from '../operations/control-client';
import { createMcpServer } from './mcp-server';

/** A server this process runs for the MCP session: its control API's address and its operations. */
export interface OwnServer {
  readonly control: { readonly url: string; readonly invoker: Invoker };
  close(): Promise<void>;
}

export type StartOwnServer = (options: { home: string; log: Logger; relayPort?: number; controlPort?: number }) => Promise<OwnServer>;

/** The running server's control API for this home, if one answers. */
async function runningServer(home: string): Promise<ControlClient | undefined> {
  const client = await ControlClient.locate(home);
  try {
    const health = (await (await fetch(`${client.url}/`, { signal: AbortSignal.timeout(1_500) })).json()) as { name?: string };
    return health.name === PRODUCT_NAME ? client : undefined;
  } catch {
    return undefined;
  }
}

async function ownServer(startServer: StartOwnServer, home: string, log: Logger, ports: { relayPort?: number; controlPort?: number }): Promise<OwnServer> {
  try {
    return await startServer({ home, log, ...ports });
  } catch (error) {
    if (!isClawdError(error) || error.code !== 'port_in_use') throw error;
    log.info('the usual ports are taken: serving on free ones for this MCP session');
    return startServer({ home, relayPort: 0, controlPort: 0, log });
  }
}

/** Serves MCP on stdin/stdout until the client goes away; resolves once everything is stopped. */
export async function runMcpStdio(options: { home: string; profile: string | undefined; log: Logger; relayPort?: number; controlPort?: number; startServer: StartOwnServer }): Promise<void> {
  const { home, log } = options;
  const existing = await runningServer(home);
  const ports = { ...(options.relayPort !== undefined ? { relayPort: options.relayPort } : {}), ...(options.controlPort !== undefined ? { controlPort: options.controlPort } : {}) };
  const own = existing ? undefined : await ownServer(options.startServer, home, log, ports);
  const invoker = existing ?? own!.control.invoker;
  log.info(existing ? `MCP over stdio, using the clawd server at ${existing.url}` : `MCP over stdio, with its own clawd server at ${own!.control.url}`);
  const server = createMcpServer(invoker, options.profile);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
  if (own) await own.close();
  log.info('MCP client gone: stopped');
}
