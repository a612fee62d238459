// Wiring only: one process, the relay listener (and, as the product grows, the control API),
// one home and one token, and a clean shutdown that closes every socket and timer.

import { DEFAULT_RELAY_PORT } from '../shared/defaults';
import { startRelayServer, type RelayServer } from './cdp/relay-server';
import { loadConfig } from './home/config-store';
import type { Logger } from './log';

export interface ServeOptions {
  home: string;
  relayPort?: number;
  log: Logger;
}

export interface RunningServer {
  readonly home: string;
  readonly token: string;
  readonly relay: RelayServer;
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const config = await loadConfig(options.home);
  const relay = await startRelayServer({ port: options.relayPort ?? DEFAULT_RELAY_PORT, token: config.token, log: options.log });
  return {
    home: options.home,
    token: config.token,
    relay,
    close: () => relay.close(),
  };
}
