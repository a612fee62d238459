// The extension's link to the relay (RelayConnection, the worker's own code) against a real relay,
// with its state kept the worker's way (WorkerState on a fake chrome.storage): a browser that
// stepped aside for another stays aside when its worker starts again, and takes the relay back
// only when told to; a worker started again on the same state connects again (how fast is
// measured in test/e2e/native-host.test.ts, on a real worker). And the handshake, with the
// worker's own code: a program holding the relay's port learns nothing from it, and a socket with
// the wrong key never pushes it aside.

import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { PROTOCOL_VERSION } from '../../shared/protocol';
import { RelayConnection, type LinkStatus } from '../../extension/src/relay-connection';
import { WorkerState, type StateStorage } from '../../extension/src/worker-state';
import { FakeExtension } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { quiet, until } from '../helpers/waits';

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
async function startWorker(relay: { port: number; extensionKey: string }, storage: StateStorage) {
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
    asks: () => {},
    request: async () => ({}),
    status: (status) => statuses.push(status),
    consent: () => {},
    keyRefused: () => {},
  });
  connection.configure({ relayPort: relay.port, key: relay.extensionKey }, (await state.loaded).steppedAside);
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
    const other = await FakeExtension.connect(relay.port, relay.extensionKey);
    closers.push(() => other.close());
    await until('the first browser stepped aside', () => first.connection.aside);
    expect((await new WorkerState(storage).loaded).steppedAside).toBe(true);

    // Chrome stops the worker and starts it again: the new one reads the same state.
    first.connection.configure({ relayPort: relay.port, key: '' }); // the old worker's socket is gone with it
    const again = await startWorker(relay, storage);
    expect(again.connection.aside).toBe(true);
    await quiet(500);
    expect(again.statuses).not.toContain('connecting');
    expect(other.ws.readyState).toBe(WebSocket.OPEN); // the other browser keeps the relay

    // New settings (the person's click, the options page) take it back, and say so in the state.
    again.connection.configure({ relayPort: relay.port, key: relay.extensionKey });
    closers.push(() => again.connection.configure({ relayPort: relay.port, key: '' }));
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
    first.connection.configure({ relayPort: relay.port, key: '' });
    const again = await startWorker(relay, storage);
    closers.push(() => again.connection.configure({ relayPort: relay.port, key: '' }));
    await until(
      'connected again',
      () => again.connection.status === 'connected' && relay.relay.switchboard.extensionConnected,
    );
  });

  it('says nothing to a program on the port that cannot prove the key, and never sends it', async () => {
    globalThis.WebSocket = WorkerWebSocket as unknown as typeof globalThis.WebSocket;
    const squatter = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    closers.push(() => new Promise((resolve) => squatter.close(resolve)));
    const heard: string[] = [];
    const asked: string[] = [];
    squatter.on('connection', (ws, req) => {
      asked.push(req.url ?? '');
      ws.on('message', (data) => heard.push(data.toString()));
      // What a squatter can send: a challenge it cannot prove, and a welcome for good measure.
      ws.send(JSON.stringify({ type: 'challenge', proof: 'A'.repeat(43), nonce: 'squatter-nonce-0123456789' }));
    });
    await new Promise((resolve) => squatter.once('listening', resolve));
    const port = (squatter.address() as AddressInfo).port;
    const worker = await startWorker(
      { port, extensionKey: 'the-real-extension-key-0123456789abcdef' },
      memoryStorage(),
    );
    closers.push(() => worker.connection.configure({ relayPort: port, key: '' }));
    await until('the worker to give up on it', () =>
      /could not prove it is the clawd server/.test(worker.connection.detail),
    );
    expect(worker.connection.status).toBe('error');
    expect(heard).toEqual([]); // no hello, no proof, no tab: nothing
    for (const url of asked) expect(url).not.toContain('the-real-extension-key');
  });

  it('keeps the relay when a socket with the wrong key (or none) says hello', async () => {
    globalThis.WebSocket = WorkerWebSocket as unknown as typeof globalThis.WebSocket;
    relay = await startTestRelay();
    const worker = await startWorker(relay, memoryStorage());
    closers.push(() => worker.connection.configure({ relayPort: relay.port, key: '' }));
    await until('connected', () => worker.connection.status === 'connected');
    const impostor = await FakeExtension.open(relay.port, 'a-guessed-key-0123456789abcdef0123');
    expect(await impostor.relayProved()).toBe(false);
    await impostor.hello().catch(() => {});
    expect((await impostor.closed).code).toBe(4003);
    const bare = await FakeExtension.open(relay.port, relay.extensionKey);
    bare.send({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      extensionVersion: 'x',
      browser: { product: 'Chrome/1', userAgent: 'x', protocolVersion: '1.3' },
      tabs: [],
    });
    expect((await bare.closed).code).toBe(4003);
    expect(worker.connection.status).toBe('connected');
    expect(worker.connection.aside).toBe(false);
  });
});
