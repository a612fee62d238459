// A relay on a free port with a fresh token, for socket and e2e tests.

import { randomBytes } from 'node:crypto';
import { startRelayServer, type RelayServer, type RelayServerOptions } from '../../relay/cdp/relay-server';
import { ServerToken } from '../../relay/http/server-token';
import { createLogger, silentLogger } from '../../relay/log';

export interface TestRelay {
  relay: RelayServer;
  token: string;
  port: number;
  /** What an agent passes to chromium.connectOverCDP. */
  cdpHttpUrl: string;
  /** The /cdp WebSocket URL with the token. */
  cdpWsUrl: string;
  close(): Promise<void>;
}

export async function startTestRelay(
  options: Partial<Omit<RelayServerOptions, 'token'>> & { token?: string } = {},
): Promise<TestRelay> {
  const token = options.token ?? randomBytes(18).toString('base64url');
  const log = process.env.CLAWD_TEST_LOG ? createLogger('debug') : silentLogger;
  const relay = await startRelayServer({ port: 0, log, ...options, token: new ServerToken(token) });
  return {
    relay,
    token,
    port: relay.port,
    cdpHttpUrl: `${relay.url}/?token=${token}`,
    cdpWsUrl: `ws://127.0.0.1:${relay.port}/cdp?token=${token}`,
    close: () => relay.close(),
  };
}
