// The extension's link to the relay (RelayConnection, the worker's own code) against a real relay,
// with its state kept the worker's way (WorkerState on a fake chrome.storage): a browser that
// stepped aside for another stays aside when its worker starts again, and takes the relay back
// only when told to; a worker started again on the same state connects again (how fast is
// measured in test/e2e/native-host.test.ts, on a real worker).

import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { PROTOCOL_VERSION } from '../../shared/protocol';
import { RelayConnection, type LinkStatus } from '../../extension/src/relay-connection';
import { WorkerState, type StateStorage } from '../../extension/src/worker-state';
import { FakeExtension } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

/** The browser's WebSocket as the worker has it: our extension's origin goes with every connection. */
class WorkerWebSocket extends WebSocket {
  constructor(url: string) {
    super(url, { origin: EXTENSION_ORIGIN, perMessageDeflate: false });
  }
}

function memoryStorage(): StateStorage {
  const area = () => {
    const map = new Map<string, unknown>();
    return {
      get: async (keys: string[]) => Object.fromEntries(keys.filter((k) => map.has(k)).map((k) => [k, map.get(k)])),
      set: async (items: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(items)) map.set(k, structuredClone(v));
      },
    };
  };
  return { local: area(), session: area() } as unknown as StateStorage;
}

/** One start of the worker: its state read from `storage`, its link configured as background.ts does. */
async function startWorker(relay: TestRelay, storage: StateStorage) {
  const state = new WorkerState(storage);
  const statuses: LinkStatus[] = [];
  const connection = new RelayConnection({
    hello: async () => ({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      extensionVersion: '0.0.0-test',
      browser: { product: 'Chrome/156', userAgent: 'test', protocolVersion: '1.3' },
      tabs: [],
    }),
    steppedAside: (aside) => void state.save('steppedAside', aside),
    welcome: () => {},
    tabSession: () => {},
    request: async () => ({}),
    status: (status) => statuses.push(status),
    consent: () => {},
    token: () => {},
  });
  connection.configure({ relayPort: relay.port, token: relay.token }, (await state.loaded).steppedAside);
  return { connection, statuses, state };
}

describe("the worker's link, from its persisted state", () => {
  const saved = globalThis.WebSocket;
  let relay: TestRelay;
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await relay?.close();
    globalThis.WebSocket = saved;
  });

  it('stays aside for another browser across a restart of its worker, and takes the relay back when told', async () => {
    globalThis.WebSocket = WorkerWebSocket as unknown as typeof globalThis.WebSocket;
    relay = await startTestRelay();
    const storage = memoryStorage();

    const first = await startWorker(relay, storage);
    await until('the first worker connected', () => first.connection.status === 'connected');
    const other = await FakeExtension.connect(relay.port, relay.token);
    closers.push(() => other.close());
    await until('the first browser stepped aside', () => first.connection.aside);
    expect((await new WorkerState(storage).loaded).steppedAside).toBe(true);

    // Chrome stops the worker and starts it again: the new one reads the same state.
    first.connection.configure({ relayPort: relay.port, token: '' }); // the old worker's socket is gone with it
    const again = await startWorker(relay, storage);
    expect(again.connection.aside).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(again.statuses).not.toContain('connecting');
    expect(other.ws.readyState).toBe(WebSocket.OPEN); // the other browser keeps the relay

    // New settings (the person's click, the options page) take it back, and say so in the state.
    again.connection.configure({ relayPort: relay.port, token: relay.token });
    closers.push(() => again.connection.configure({ relayPort: relay.port, token: '' }));
    await until('connected again', () => again.connection.status === 'connected');
    expect((await other.closed).code).toBe(4000);
    await until('no longer aside in the state', async () => !(await new WorkerState(storage).loaded).steppedAside);
  });

  it('connects again when its worker starts again', async () => {
    globalThis.WebSocket = WorkerWebSocket as unknown as typeof globalThis.WebSocket;
    relay = await startTestRelay();
    const storage = memoryStorage();
    const first = await startWorker(relay, storage);
    await until('connected', () => first.connection.status === 'connected');
    first.connection.configure({ relayPort: relay.port, token: '' });
    const again = await startWorker(relay, storage);
    closers.push(() => again.connection.configure({ relayPort: relay.port, token: '' }));
    await until(
      'connected again',
      () => again.connection.status === 'connected' && relay.relay.switchboard.extensionConnected,
    );
  });
});
