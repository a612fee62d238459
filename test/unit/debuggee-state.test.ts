import { describe, expect, it } from 'vitest';
import { DebuggeeState } from '../../relay/cdp/debuggee-state';

/** The state knows nothing of its subscribers but their identity. */
type Sub = { id: number };
const sub = (id: number): Sub => ({ id });

describe('DebuggeeState', () => {
  it('reference-counts enables: only the last disable really disables', () => {
    const state = new DebuggeeState<Sub>();
    const a = sub(1);
    const b = sub(2);
    expect(state.enable('Network', a)).toBe(true);
    expect(state.enable('Network', b)).toBe(false);
    expect(state.disable('Network', a)).toBe(false);
    expect(state.disable('Network', b)).toBe(true);
  });

  it("routes a domain's events to the subscriptions that enabled it; others get everything else", () => {
    const state = new DebuggeeState<Sub>();
    const a = sub(1);
    const b = sub(2);
    state.enable('Network', a);
    expect(state.wants(a, 'Network.requestWillBeSent')).toBe(true);
    expect(state.wants(b, 'Network.requestWillBeSent')).toBe(false);
    expect(state.wants(b, 'Page.loadEventFired')).toBe(true);
  });

  it('keeps the execution contexts Chrome said while a client has Runtime on', () => {
    const state = new DebuggeeState<Sub>();
    state.arrive('Runtime.executionContextCreated', { context: { id: 9, origin: '', name: '', uniqueId: 'U9' } });
    expect(state.contexts.size).toBe(0); // nobody has Runtime on: nothing to remember
    state.enable('Runtime', sub(1));
    const context = (id: number) => ({ context: { id, origin: '', name: '', uniqueId: `U${id}` } });
    state.arrive('Runtime.executionContextCreated', context(1));
    state.arrive('Runtime.executionContextCreated', context(2));
    state.arrive('Runtime.executionContextDestroyed', { executionContextId: 1 });
    expect([...state.contexts.keys()]).toEqual([2]);
    state.arrive('Runtime.executionContextsCleared', {});
    expect(state.contexts.size).toBe(0);
  });

  it('says what a leaving subscription leaves behind', () => {
    const state = new DebuggeeState<Sub>();
    const a = sub(1);
    const b = sub(2);
    for (const s of [a, b]) state.subscribers.add(s);
    state.enable('Runtime', a);
    state.enable('Page', a);
    state.enable('Page', b);
    state.autoAttach.set(a, false);
    state.addScript(a, '7');
    state.arrive('Runtime.executionContextCreated', { context: { id: 1, origin: '', name: '', uniqueId: 'U1' } });
    expect(state.remove(a)).toEqual({
      domains: ['Runtime'],
      scripts: ['7'],
      autoAttach: true,
      unpause: false,
      stops: [],
    });
    expect(state.contexts.size).toBe(0);
    expect(state.remove(b)).toEqual({ domains: ['Page'], scripts: [], autoAttach: false, unpause: false, stops: [] });
  });

  it('counts an enable in flight as holding the domain: the last holder leaving then does not disable it', () => {
    const state = new DebuggeeState<Sub>();
    const [holder, newcomer, other] = [sub(1), sub(2), sub(3)];
    for (const s of [holder, newcomer, other]) state.subscribers.add(s);
    state.enable('Runtime', holder);
    state.join('Runtime', newcomer);
    expect(state.remove(holder).domains).toEqual([]);
    expect(state.held('Runtime')).toBe(true);
    // Its events wait for its answer (the relay shows it the contexts then), and reach nobody else.
    expect(state.wants(newcomer, 'Runtime.consoleAPICalled')).toBe(false);
    expect(state.wants(other, 'Runtime.consoleAPICalled')).toBe(false);
    // The contexts Chrome says meanwhile are kept, for the newcomer's replay.
    state.arrive('Runtime.executionContextCreated', { context: { id: 4, origin: '', name: '', uniqueId: 'U4' } });
    expect([...state.contexts.keys()]).toEqual([4]);
    expect(state.joined('Runtime', newcomer)).toBe(true);
    expect(state.wants(newcomer, 'Runtime.consoleAPICalled')).toBe(true);
    expect(state.remove(newcomer).domains).toEqual(['Runtime']);
  });

  it('lets the domain go when the only enable in flight fails, or its subscription leaves', () => {
    const state = new DebuggeeState<Sub>();
    const [a, b, holder] = [sub(1), sub(2), sub(3)];
    for (const s of [a, b, holder]) state.subscribers.add(s);
    // The one that had it on left while a's enable was in flight, which then failed: Chrome still
    // has it on from before, and nobody holds it — the tab disables it.
    state.enable('Runtime', holder);
    state.join('Runtime', a);
    expect(state.remove(holder).domains).toEqual([]);
    expect(state.joinFailed('Runtime', a)).toBe(true);
    expect(state.held('Runtime')).toBe(false);
    state.join('Runtime', b);
    expect(state.remove(b).domains).toEqual(['Runtime']); // its enable reached the tab: disabled after it
  });

  it('does not count an enable that answers after its subscription disabled the domain', () => {
    const state = new DebuggeeState<Sub>();
    const [holder, a] = [sub(1), sub(2)];
    for (const s of [holder, a]) state.subscribers.add(s);
    state.enable('Runtime', holder);
    state.join('Runtime', a);
    expect(state.disable('Runtime', a)).toBe(false); // the holder has it still
    expect(state.joined('Runtime', a)).toBe(false);
    expect(state.wants(a, 'Runtime.consoleAPICalled')).toBe(false);
    expect(state.disable('Runtime', holder)).toBe(true);
  });

  it('pauses new targets while any auto-attaching subscription asked, and says when the last that asked leaves', () => {
    const state = new DebuggeeState<Sub>();
    const [pausing, plain] = [sub(1), sub(2)];
    state.autoAttach.set(pausing, true);
    state.autoAttach.set(plain, false);
    expect(state.pausesNewTargets()).toBe(true);
    expect(state.pausesNewTargets(pausing)).toBe(false);
    expect(state.remove(pausing)).toMatchObject({ autoAttach: false, unpause: true });
    expect(state.pausesNewTargets()).toBe(false);
  });

  it("sends a stream's events only to those who started it, whatever domains others enabled", () => {
    const state = new DebuggeeState<Sub>();
    const player = sub(1);
    const viewer = sub(2);
    state.enable('Page', player);
    expect(state.startStream('Page.startScreencast', viewer)).toBe(true);
    expect(state.wants(viewer, 'Page.screencastFrame')).toBe(true);
    expect(state.wants(player, 'Page.screencastFrame')).toBe(false);
    // The viewer did not enable Page: the domain's other events stay the player's.
    expect(state.wants(viewer, 'Page.loadEventFired')).toBe(false);
    expect(state.wants(player, 'Page.loadEventFired')).toBe(true);
  });

  it('stops a started stream when its client leaves while other clients stay, and only then', () => {
    const state = new DebuggeeState<Sub>();
    const [a, b, c] = [sub(1), sub(2), sub(3)];
    for (const s of [a, b, c]) state.subscribers.add(s);
    state.startStream('Page.startScreencast', a);
    state.startStream('Page.startScreencast', b);
    // b stops its own view: a still watches, so the tab must not stop the screencast.
    expect(state.stopStream('Page.startScreencast', b)).toBe(false);
    expect(state.remove(c).stops).toEqual([]);
    expect(state.remove(a)).toEqual({
      domains: [],
      scripts: [],
      autoAttach: false,
      unpause: false,
      stops: ['Page.stopScreencast'],
    });
    expect(state.subscribers).toEqual(new Set([b]));
  });
});
