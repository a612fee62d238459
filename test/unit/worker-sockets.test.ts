// The policy's WebSocket rules on the held sites' service and shared workers
// (extension/src/worker-sockets.ts), against a stand-in chrome.debugger: a worker that refuses
// them once (just starting, under load) is sent them again at the next look, a few times at most.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkerSockets } from '../../extension/src/worker-sockets';

/** chrome.debugger with one service worker of a held site; the rules are refused `refusals` times. */
function standIn(refusals: number) {
  const sent: string[] = [];
  let left = refusals;
  const debuggerApi = {
    getTargets: async () => [{ id: 'W1', type: 'worker', url: 'http://127.0.0.1:9/sw.js', attached: false }],
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (_target: unknown, method: string) => {
      sent.push(method);
      if (method === 'Network.emulateNetworkConditionsByRule' && left-- > 0) throw new Error('not ready');
      return {};
    },
  };
  return { chrome: { debugger: debuggerApi }, rules: () => sent.filter((m) => m.endsWith('ByRule')).length };
}

describe('the WebSocket rules of a held site’s workers', () => {
  let sockets: WorkerSockets | undefined;
  beforeEach(() => vi.spyOn(console, 'warn').mockImplementation(() => {}));
  afterEach(async () => {
    await sockets?.close(); // its look every second stops
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  const policy = { block: ['http://localhost:*'] };

  it('sends the rules again at the next look when the worker refused them, and once taken, not again', async () => {
    const fake = standIn(1);
    vi.stubGlobal('chrome', fake.chrome);
    sockets = new WorkerSockets();
    await sockets.hold(policy, ['127.0.0.1']);
    expect(fake.rules()).toBe(1);
    await sockets.hold(policy, ['127.0.0.1']); // the next look
    expect(fake.rules()).toBe(2);
    await sockets.hold(policy, ['127.0.0.1']);
    expect(fake.rules()).toBe(2);
  });

  it('stops sending them to a worker that refuses them every time', async () => {
    const fake = standIn(Infinity);
    vi.stubGlobal('chrome', fake.chrome);
    sockets = new WorkerSockets();
    for (let look = 0; look < 8; look++) await sockets.hold(policy, ['127.0.0.1']);
    expect(fake.rules()).toBe(5);
    // Other rules are sent, whatever the old ones met.
    await sockets.hold({ block: ['http://localhost:*', 'http://other.test'] }, ['127.0.0.1']);
    expect(fake.rules()).toBe(6);
  });
});
