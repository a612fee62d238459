// The extension worker's state that outlives the worker, against a fake chrome.storage: one read
// of both areas before anything acts, each part in its area, writes in the order asked, a damaged
// or older stored value read as empty; a worker started again (a new WorkerState on the same
// storage) knows what the last one kept. The badge is drawn from that state and the link's.

import { describe, expect, it } from 'vitest';
import { badgeLook } from '../../extension/src/badge';
import { WorkerState, type StateStorage } from '../../extension/src/worker-state';
import { quiet } from '../helpers/waits';

/** chrome.storage's two areas, in memory; `slow` delays each write by that many ms. */
function fakeStorage(slow = 0) {
  const areas = { local: new Map<string, unknown>(), session: new Map<string, unknown>() };
  const reads: string[] = [];
  const area = (name: 'local' | 'session') => ({
    async get(keys: string[]) {
      reads.push(name);
      return Object.fromEntries(
        keys.filter((k) => areas[name].has(k)).map((k) => [k, structuredClone(areas[name].get(k))]),
      );
    },
    async set(items: Record<string, unknown>) {
      if (slow) await quiet(slow * Math.random()); // a storage that takes its time
      for (const [k, v] of Object.entries(items)) areas[name].set(k, structuredClone(v));
    },
  });
  return { storage: { local: area('local'), session: area('session') } as unknown as StateStorage, areas, reads };
}

describe("the worker's state", () => {
  it('starts empty, reading each area once', async () => {
    const { storage, reads } = fakeStorage();
    expect(await new WorkerState(storage).loaded).toEqual({
      attachedTabs: [],
      grantedPermissions: {},
      handOvers: [],
      steppedAside: false,
      relayAutoAttach: [],
      relayFetch: [],
      policy: null,
      held: [],
    });
    expect(reads.sort()).toEqual(['local', 'session']);
  });

  it('is known to the next worker: tabs and grants in local, hand-overs and stepping aside in session', async () => {
    const { storage, areas } = fakeStorage();
    const first = new WorkerState(storage);
    await Promise.all([
      first.save('attachedTabs', [
        { tabId: 4, targetId: 'T4', sessionId: 'S4' },
        { tabId: 5, targetId: 'T5', parked: 'chrome://settings' },
      ]),
      first.save('grantedPermissions', { location: ['https://a.test/*'] }),
      first.save('handOvers', [[4, 'log in']]),
      first.save('steppedAside', true),
      first.save('relayAutoAttach', [[4, { autoAttach: true, flatten: true }]]),
      first.save('relayFetch', [[4, { patterns: [{ resourceType: 'Document' }] }]]),
      first.save('policy', { block: ['https://bank.test'], own: ['http://127.0.0.1:9'] }),
      first.save('held', [{ tabId: 4, sessionId: 'C1' }, { tabId: 4, requestId: 'R1' }, { targetId: 'W1' }]),
    ]);
    expect([...areas.local.keys()].sort()).toEqual(['attachedTabs', 'grantedPermissions', 'policy']);
    expect([...areas.session.keys()].sort()).toEqual([
      'handOvers',
      'held',
      'relayAutoAttach',
      'relayFetch',
      'steppedAside',
    ]);

    const next = await new WorkerState(storage).loaded;
    expect(next.attachedTabs).toEqual([
      { tabId: 4, targetId: 'T4', sessionId: 'S4' },
      { tabId: 5, targetId: 'T5', parked: 'chrome://settings' },
    ]);
    expect(next.grantedPermissions).toEqual({ location: ['https://a.test/*'] });
    expect(next.handOvers).toEqual([[4, 'log in']]);
    expect(next.steppedAside).toBe(true);
    expect(next.relayAutoAttach).toEqual([[4, { autoAttach: true, flatten: true }]]);
    expect(next.relayFetch).toEqual([[4, { patterns: [{ resourceType: 'Document' }] }]]);
    expect(next.policy).toEqual({ block: ['https://bank.test'], own: ['http://127.0.0.1:9'] });
    expect(next.held).toEqual([{ tabId: 4, sessionId: 'C1' }, { tabId: 4, requestId: 'R1' }, { targetId: 'W1' }]);

    // The browser restarted: session is gone, local stays (its tabs are checked against Chrome's).
    areas.session.clear();
    const afterRestart = await new WorkerState(storage).loaded;
    expect(afterRestart.steppedAside).toBe(false);
    expect(afterRestart.handOvers).toEqual([]);
    expect(afterRestart.attachedTabs).toHaveLength(2);
    expect(afterRestart.policy).toEqual({ block: ['https://bank.test'], own: ['http://127.0.0.1:9'] });
  });

  it('keeps the last of quick writes, whatever order the storage finishes them in', async () => {
    const { storage } = fakeStorage(20);
    const state = new WorkerState(storage);
    const writes = [];
    for (let n = 1; n <= 10; n++)
      writes.push(
        state.save(
          'handOvers',
          Array.from({ length: n }, (_, i) => [i, `r${i}`] as [number, string]),
        ),
      );
    await Promise.all(writes);
    expect((await new WorkerState(storage).loaded).handOvers).toHaveLength(10);
  });

  it('writes a burst of saves as one write behind the one under way, each caller answered once its value or a later one is kept', async () => {
    const { storage, areas } = fakeStorage();
    let writes = 0;
    const set = storage.local.set.bind(storage.local);
    storage.local.set = async (items: Record<string, unknown>) => {
      writes++;
      await quiet(20); // a storage that takes its time
      return set(items);
    };
    const state = new WorkerState(storage);
    await state.loaded;
    const tabs = (n: number) => Array.from({ length: n }, (_, i) => ({ tabId: i, targetId: `T${i}` }));
    const first = state.save('attachedTabs', tabs(1));
    await quiet(5); // its write under way
    const burst = Array.from({ length: 300 }, (_, n) =>
      state.save('attachedTabs', tabs(n + 2)).then(() => (areas.local.get('attachedTabs') as unknown[]).length),
    );
    await first;
    // Every save of the burst is answered by the one write after the first: all 301 tabs are kept.
    expect(await Promise.all(burst)).toEqual(Array(300).fill(301));
    expect(writes).toBe(2);
    // A save after that is a write of its own.
    await state.save('attachedTabs', tabs(3));
    expect(writes).toBe(3);
    expect((await new WorkerState(storage).loaded).attachedTabs).toEqual(tabs(3));
  });

  it('saves what was asked, not what the caller changed afterwards', async () => {
    const { storage } = fakeStorage(5);
    const state = new WorkerState(storage);
    const tabs = [{ tabId: 1, targetId: 'T1' }];
    const saved = state.save('attachedTabs', tabs);
    tabs.push({ tabId: 2, targetId: 'T2' });
    await saved;
    expect((await new WorkerState(storage).loaded).attachedTabs).toEqual([{ tabId: 1, targetId: 'T1' }]);
  });

  it('reads a damaged or older value as empty, and keeps the good entries of a list', async () => {
    const { storage, areas } = fakeStorage();
    areas.local.set('attachedTabs', [
      { tabId: 1, targetId: 'T1' },
      { tabId: 'two' },
      null,
      { tabId: 3, targetId: 'T3', parked: 7 },
    ]);
    areas.local.set('grantedPermissions', ['location']);
    areas.session.set('handOvers', { 4: 'log in' });
    areas.session.set('steppedAside', 'yes');
    areas.session.set('relayAutoAttach', [
      [1, { autoAttach: true }],
      ['2', {}],
      [3, null],
    ]);
    areas.session.set('relayFetch', { 1: {} });
    areas.local.set('policy', { block: 'https://bank.test' });
    areas.session.set('held', [{ targetId: 'W1' }, { tabId: 1 }, { tabId: 1, sessionId: 'C1', requestId: 'R1' }, 'W2']);
    expect(await new WorkerState(storage).loaded).toEqual({
      attachedTabs: [{ tabId: 1, targetId: 'T1' }],
      grantedPermissions: {},
      handOvers: [],
      steppedAside: false,
      relayAutoAttach: [[1, { autoAttach: true }]],
      relayFetch: [],
      policy: null,
      held: [{ targetId: 'W1' }],
    });
  });

  it('goes on writing after a write failed', async () => {
    const { storage, areas } = fakeStorage();
    const set = storage.session.set.bind(storage.session);
    let fail = true;
    storage.session.set = (async (items: Record<string, unknown>) => {
      if (fail) {
        fail = false;
        throw new Error('quota');
      }
      return set(items);
    }) as typeof storage.session.set;
    const state = new WorkerState(storage);
    await expect(state.save('steppedAside', true)).rejects.toThrow('quota');
    await state.save('steppedAside', false);
    expect(areas.session.get('steppedAside')).toBe(false);
  });
});

describe('the badge, from tab state × link state', () => {
  const connected = { status: 'connected' as const, detail: 'connected to 127.0.0.1:18792' };
  const down = { status: 'error' as const, detail: 'cannot reach the relay on 127.0.0.1:18792' };
  const connecting = { status: 'connecting' as const, detail: '' };
  it('is empty on a tab not handed over, whatever the link', () => {
    for (const link of [connected, down, connecting]) expect(badgeLook(undefined, link).text).toBe('');
  });
  it('is ON, or YOU while the agent handed it to the person, only while the link is up', () => {
    expect(badgeLook({}, connected)).toMatchObject({
      text: 'ON',
      title: expect.stringContaining('Click to take it back'),
    });
    expect(badgeLook({ handedOver: 'log in' }, connected)).toMatchObject({
      text: 'YOU',
      title: expect.stringContaining('log in'),
    });
    expect(badgeLook({ handedOver: 'log in' }, connecting).text).toBe('…');
    expect(badgeLook({}, down)).toMatchObject({ text: '!', title: `clawd: ${down.detail}` });
    expect(badgeLook({}, { status: 'unconfigured', detail: 'set the relay port and token' }).text).toBe('!');
  });
  it('keeps a parked tab paused whatever the link does (never ON after a reconnect)', () => {
    for (const link of [connected, down, connecting])
      expect(badgeLook({ parked: 'chrome://settings/' }, link)).toMatchObject({
        text: '❚❚',
        title: expect.stringContaining('chrome://settings/'),
      });
  });
});
