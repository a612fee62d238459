import { describe, expect, it } from 'vitest';
import { DebuggeeState, type Subscription } from '../../relay/cdp/debuggee-state';

const sub = (id: number): Subscription => ({ client: { id, sendEvent() {} }, sessionId: `S${id}`, tab: {} as never });

describe('DebuggeeState', () => {
  it('reference-counts enables: only the last disable really disables', () => {
    const state = new DebuggeeState();
    const a = sub(1);
    const b = sub(2);
    expect(state.enable('Network', a)).toBe(true);
    expect(state.enable('Network', b)).toBe(false);
    expect(state.disable('Network', a)).toBe(false);
    expect(state.disable('Network', b)).toBe(true);
  });

  it("routes a domain's events to the subscriptions that enabled it; others get everything else", () => {
    const state = new DebuggeeState();
    const a = sub(1);
    const b = sub(2);
    state.enable('Network', a);
    expect(state.wants(a, 'Network.requestWillBeSent')).toBe(true);
    expect(state.wants(b, 'Network.requestWillBeSent')).toBe(false);
    expect(state.wants(b, 'Page.loadEventFired')).toBe(true);
  });

  it('keeps the execution contexts clients with Runtime on have been shown', () => {
    const state = new DebuggeeState();
    state.observe('Runtime.executionContextCreated', { context: { id: 9, origin: '', name: '', uniqueId: 'U9' } });
    expect(state.contexts.size).toBe(0); // nobody has Runtime on: nothing to remember
    state.enable('Runtime', sub(1));
    const context = (id: number) => ({ context: { id, origin: '', name: '', uniqueId: `U${id}` } });
    state.observe('Runtime.executionContextCreated', context(1));
    state.observe('Runtime.executionContextCreated', context(2));
    state.observe('Runtime.executionContextDestroyed', { executionContextId: 1 });
    expect([...state.contexts.keys()]).toEqual([2]);
    state.observe('Runtime.executionContextsCleared', {});
    expect(state.contexts.size).toBe(0);
  });

  it('says what a leaving subscription leaves behind', () => {
    const state = new DebuggeeState();
    const a = sub(1);
    const b = sub(2);
    for (const s of [a, b]) state.subscribers.add(s);
    state.enable('Runtime', a);
    state.enable('Page', a);
    state.enable('Page', b);
    state.autoAttach.add(a);
    state.addScript(a, '7');
    state.observe('Runtime.executionContextCreated', { context: { id: 1, origin: '', name: '', uniqueId: 'U1' } });
    expect(state.remove(a)).toEqual({ domains: ['Runtime'], scripts: ['7'], autoAttach: true });
    expect(state.contexts.size).toBe(0);
    expect(state.remove(b)).toEqual({ domains: ['Page'], scripts: [], autoAttach: false });
  });
});
