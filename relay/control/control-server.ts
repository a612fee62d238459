// The control API's listener: loopback only, port 18791 by default (--control-port), and the
// owner of the live view's sockets and sessions, which live and die with it.

import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { EXTENSION_ORIGIN, LOOPBACK_HOST } from '../../shared/defaults';
import { closerOf, listen } from '../http/listen';
import type { ServerToken } from '../http/server-token';
import type { ServerKeys } from '../http/server-keys';
import { SecretStore } from '../home/secret-store';
import type { ActionLog } from '../agent/action-log';
import type { AgentService } from '../agent/agent-service';
import type { EventBus } from '../events/event-bus';
import type { ProfileService } from '../profiles/profile-service';
import { VERSION } from '../version';
import { createControlApp } from './control-app';
import type { Logger } from '../log';
import { LiveViews } from '../view/live-views';
import { PERSONS_VIEW, ViewAuth, WATCH_ONLY } from '../view/view-auth';
import type { Pairing } from '../pairing/pairing';
import { attachViewSocket, viewLink } from '../view/view-routes';
import { ClientActivity, type ClientUse } from './client-activity';
import type { Invoker } from '../operations/control-client';
import { LocalInvoker, type OperationServices } from './operation-handlers';

export interface ControlServer {
  readonly port: number;
  readonly url: string;
  /** Who is using the server now (requests in flight, /events streams, live view sockets), and when the last left. */
  clients(): ClientUse;
  /** The live view's sockets and screencasts. */
  readonly views: LiveViews;
  /** The operations of the table, carried out in this process (for MCP served here). */
  readonly invoker: Invoker;
  /** A live view link of the person's own (it acts and answers), bound to one tab: for their side panel. */
  personsViewLink(tab: { profile: string; targetId: string }): string;
  close(): Promise<void>;
}

export async function startControlServer(options: {
  port: number;
  token: ServerToken;
  keys: ServerKeys;
  /**
   * The person's say (person-consent.ts): their yes to a loosening of their rules, the answers to
   * the questions agents wait for (ask-wait), the codes they type for sites.
   */
  person: Pick<OperationServices, 'confirmLoosening' | 'askWait' | 'askCode' | 'codesGiven'>;
  home: string;
  service: ProfileService;
  agent: AgentService;
  events: EventBus;
  actions: ActionLog;
  log: Logger;
  host?: string;
  takeoverGraceMs?: number;
  extensionOrigins?: readonly string[];
  pairing: Pairing;
}): Promise<ControlServer> {
  const host = options.host ?? LOOPBACK_HOST;
  let port = options.port;
  const viewAuth = new ViewAuth();
  const views = new LiveViews(options.agent.view, options.events, options.log, options.takeoverGraceMs);
  const invoker = new LocalInvoker({
    agent: options.agent,
    profiles: options.service,
    events: options.events,
    actions: options.actions,
    secrets: new SecretStore(options.home),
    home: options.home,
    ...options.person,
    // A hand-over's link goes to the agent, which passes it on: it watches its one tab, nothing more.
    viewLink: (tab, ttlMs) =>
      viewLink({ token: options.token, port: () => port, auth: viewAuth }, { ...WATCH_ONLY, tab }, ttlMs).url,
  });
  const activity = new ClientActivity();
  const { app, mcp } = createControlApp({
    service: options.service,
    agent: options.agent,
    events: options.events,
    token: options.token,
    keys: options.keys,
    version: VERSION,
    extensionOrigins: options.extensionOrigins ?? [EXTENSION_ORIGIN],
    port: () => port,
    viewAuth,
    pairing: options.pairing,
    invoker,
    actions: options.actions,
    activity,
    home: options.home,
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  const detachSocket = attachViewSocket(server, {
    token: options.token,
    port: () => port,
    auth: viewAuth,
    views,
    service: options.service,
    activity,
  });
  port = await listen(server, port, host, 'control API');
  const closeServer = closerOf(server, () => {
    void mcp.close();
    detachSocket();
    viewAuth.close();
  });
  return {
    port,
    url: `http://${host}:${port}`,
    views,
    invoker,
    personsViewLink: (tab) =>
      viewLink({ token: options.token, port: () => port, auth: viewAuth }, { ...PERSONS_VIEW, tab }).url,
    clients: () => activity.use,
    close: async () => {
      await views.close();
      await closeServer();
    },
  };
}
