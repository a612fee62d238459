// The control API's listener: loopback only, port 18791 by default (--control-port).

import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { EXTENSION_ORIGIN, LOOPBACK_HOST } from '../../shared/defaults';
import { closerOf, listen } from '../http/listen';
import type { AgentService } from '../agent/agent-service';
import type { EventBus } from '../events/event-bus';
import type { ProfileService } from '../profiles/profile-service';
import { VERSION } from '../version';
import { createControlApp } from './control-app';

export interface ControlServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startControlServer(options: { port: number; token: string; service: ProfileService; agent: AgentService; events: EventBus; host?: string }): Promise<ControlServer> {
  const host = options.host ?? LOOPBACK_HOST;
  let port = options.port;
  const { app, mcp } = createControlApp({ service: options.service, agent: options.agent, events: options.events, token: options.token, version: VERSION, extensionOrigin: EXTENSION_ORIGIN, port: () => port });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  port = await listen(server, port, host, 'control API');
  return { port, url: `http://${host}:${port}`, close: closerOf(server, () => void mcp.close()) };
}
