// A relay on a free port with a fresh token and extension key, for socket and e2e tests.

import { randomBytes } from 'node:crypto';
import { startRelayServer, type RelayServer, type RelayServerOptions } from '../../relay/cdp/relay-server';
import { ServerToken } from '../../relay/http/server-token';
import { ServerKeys } from '../../relay/http/server-keys';
import { createLogger, silentLogger } from '../../relay/log';

export interface TestRelay {
  relay: RelayServer;
  token: string;
  /** What the paired extension proves on /extension (FakeExtension.connect takes it); the one in force. */
  readonly extensionKey: string;
  /** The relay's keys: `rotateExtension()` replaces the extension key with a fresh one. */
  keys: ServerKeys;
  port: number;
  /** What an agent passes to chromium.connectOverCDP. */
  cdpHttpUrl: string;
  /** The /cdp WebSocket URL with the token. */
  cdpWsUrl: string;
  close(): Promise<void>;
}

export async function startTestRelay(
  options: Partial<Omit<RelayServerOptions, 'token' | 'keys'>> & { token?: string; extensionKey?: string } = {},
): Promise<TestRelay> {
  const token = options.token ?? randomBytes(18).toString('base64url');
  const fresh = () => randomBytes(24).toString('base64url');
  const person = fresh();
  const keys = new ServerKeys({ person, extension: options.extensionKey ?? fresh() }, async () => ({
    person,
    extension: fresh(),
  }));
  const log = process.env.CLAWD_TEST_LOG ? createLogger('debug') : silentLogger;
  const relay = await startRelayServer({ port: 0, log, ...options, token: new ServerToken(token), keys });
  return {
    relay,
    token,
    get extensionKey() {
      return keys.extension;
    },
    keys,
    port: relay.port,
    cdpHttpUrl: `${relay.url}/?token=${token}`,
    cdpWsUrl: `ws://127.0.0.1:${relay.port}/cdp?token=${token}`,
    close: () => relay.close(),
  };
}
