// Commands on a page or child session, and the events coming back from the tab. Most commands go
// straight to the extension; the few that change per-client state are tracked in DebuggeeState
// so each client sees what it would see alone on a real Chrome: its own Runtime contexts and
// child targets (replayed for a late-comer), events only for domains it enabled, and no domain
// disabled under another client's feet. Clean-up runs when a client's session goes away.

import type { Protocol } from 'devtools-protocol';
import type { EventFrame } from '../../shared/protocol';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type { Settle } from './pending-calls';
import type { Binding, CdpCommand, ClientSession } from './client-session';
import { DebuggeeState, type Subscription } from './debuggee-state';
import type { ChildTarget, TabRecord } from './target-registry';

export interface TabChannel {
  /**
   * Sends a CDP command to the tab (or a child session in it), ordered by the tab's event fence.
   * `settle` runs synchronously when the answer is read, so answers reach clients in order.
   */
  forward(tab: TabRecord, childId: string | undefined, method: string, params: Record<string, unknown>, settle: Settle<unknown>): void;
  /** The promise form, for the relay's own housekeeping commands. */
  send(tab: TabRecord, childId: string | undefined, method: string, params: Record<string, unknown>): Promise<unknown>;
  log: Logger;
}

/** Answers a client's command: an error, or the result. */
export type Respond = (error: unknown, result?: unknown) => void;

type Attached = Protocol.Target.AttachedToTargetEvent;

export class TabForwarder {
  constructor(private readonly channel: TabChannel) {}

  stateOf(sub: Subscription): DebuggeeState | undefined {
    return sub.childId === undefined ? sub.tab.page : sub.tab.children.get(sub.childId)?.state;
  }

  /** Runs a client's command on a page or child session and answers it through `respond`. */
  command(client: ClientSession, binding: Extract<Binding, { kind: 'page' | 'child' }>, cmd: CdpCommand, respond: Respond): void {
    const { sub } = binding;
    const state = this.stateOf(sub);
    if (!state) return respond(new ClawdError('session_not_found', `Session ${cmd.sessionId} has detached`));
    // Forwards a command; `then` runs on success, before the response goes out, in arrival order.
    const forward = (method: string, params: Record<string, unknown>, then?: (result: unknown) => void) =>
      this.channel.forward(sub.tab, sub.childId, method, params, (error, result) => {
        if (error) return respond(error);
        then?.(result);
        respond(undefined, result);
      });
    const dot = cmd.method.indexOf('.');
    const domain = cmd.method.slice(0, dot);
    const action = cmd.method.slice(dot + 1);

    if (action === 'enable' && domain === 'Runtime' && state.domains.get('Runtime')?.size) {
      // Chrome replays nothing for a second Runtime.enable on the same debugger session, so the
      // newcomer is shown the contexts the others already have, once its enable has answered
      // (after its earlier commands, e.g. Page.getFrameTree, as Playwright expects).
      return forward(cmd.method, cmd.params, () => {
        state.enable(domain, sub);
        for (const context of state.contexts.values()) client.sendEvent(sub.sessionId, 'Runtime.executionContextCreated', { context });
      });
    }
    if (action === 'enable') {
      state.enable(domain, sub);
      return forward(cmd.method, cmd.params);
    }
    if (action === 'disable') {
      return state.disable(domain, sub) ? forward(cmd.method, cmd.params) : respond(undefined, {});
    }
    switch (cmd.method) {
      case 'Target.setAutoAttach':
        return this.#setAutoAttach(client, sub, state, cmd.params, forward, respond);
      case 'Target.detachFromTarget':
        return this.#detachChild(client, sub, cmd.params, respond);
      case 'Page.addScriptToEvaluateOnNewDocument':
        return forward(cmd.method, cmd.params, (result) => {
          const identifier = (result as { identifier?: unknown }).identifier;
          if (typeof identifier === 'string') state.addScript(sub, identifier);
        });
      case 'Page.removeScriptToEvaluateOnNewDocument':
        state.removeScript(sub, String(cmd.params.identifier));
        return forward(cmd.method, cmd.params);
      default:
        return forward(cmd.method, cmd.params);
    }
  }

  #setAutoAttach(
    client: ClientSession,
    sub: Subscription,
    state: DebuggeeState,
    params: Record<string, unknown>,
    forward: (method: string, params: Record<string, unknown>, then?: () => void) => void,
    respond: Respond,
  ): void {
    if (params.flatten !== true && params.autoAttach) {
      return respond(new ClawdError('unsupported', 'Target.setAutoAttach: only flatten mode is supported through the clawd relay'));
    }
    if (!params.autoAttach) {
      const last = state.autoAttach.delete(sub) && state.autoAttach.size === 0;
      return last ? forward('Target.setAutoAttach', params) : respond(undefined, {});
    }
    if (state.autoAttach.size === 0) {
      state.autoAttach.add(sub);
      return forward('Target.setAutoAttach', params);
    }
    // A repeated setAutoAttach re-announces nothing (measured): announce existing children.
    forward('Target.setAutoAttach', params, () => {
      state.autoAttach.add(sub);
      for (const child of sub.tab.children.values()) {
        if (child.parentId === sub.childId && !client.bindings.has(child.sessionId)) this.#announceChild(client, sub, child, false);
      }
    });
  }

  #detachChild(client: ClientSession, sub: Subscription, params: Record<string, unknown>, respond: Respond): void {
    const childId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const binding = childId ? client.bindings.get(childId) : undefined;
    if (!childId || binding?.kind !== 'child' || binding.sub.tab !== sub.tab) {
      return respond(new ClawdError('session_not_found', `No session with given id: ${childId ?? '(none)'}`));
    }
    const child = sub.tab.children.get(childId);
    this.dropChildSubscription(client, childId);
    if (child) client.sendEvent(binding.parent, 'Target.detachedFromTarget', { sessionId: childId, targetId: child.targetInfo.targetId });
    // Only the last client to let go really detaches Chrome's child session.
    if (child && child.state.subscribers.size === 0) {
      this.channel.send(sub.tab, undefined, 'Target.detachFromTarget', { sessionId: childId }).catch(() => {});
    }
    respond(undefined, {});
  }

  /** Delivers one tab event (already ordered by the fence) to the client sessions that want it. */
  deliver(tab: TabRecord, frame: EventFrame): void {
    const state = frame.sessionId === undefined ? tab.page : tab.children.get(frame.sessionId)?.state;
    if (!state) {
      this.channel.log.debug(`dropped ${frame.method} for unknown session ${frame.sessionId ?? ''} of tab ${tab.tabId}`);
      return;
    }
    const params = frame.params ?? {};
    if (frame.method === 'Target.attachedToTarget') return this.#childAttached(tab, frame.sessionId, state, params as unknown as Attached);
    if (frame.method === 'Target.detachedFromTarget') return this.#childDetached(tab, params.sessionId as string);
    if (frame.method === 'Target.targetInfoChanged') {
      const info = params.targetInfo as Protocol.Target.TargetInfo | undefined;
      const child = info && [...tab.children.values()].find((c) => c.targetInfo.targetId === info.targetId);
      if (child && info) child.targetInfo = info;
    }
    state.observe(frame.method, params);
    if (state.subscribers.size === 0) return;
    const json = JSON.stringify(params);
    for (const sub of state.subscribers) {
      if (state.wants(sub, frame.method)) (sub.client as ClientSession).sendEventJson(sub.sessionId, frame.method, json);
    }
  }

  #childAttached(tab: TabRecord, parentId: string | undefined, parent: DebuggeeState, event: Attached): void {
    const child: ChildTarget = { sessionId: event.sessionId, parentId, targetInfo: event.targetInfo, state: new DebuggeeState() };
    tab.children.set(child.sessionId, child);
    for (const sub of parent.autoAttach) this.#announceChild(sub.client as ClientSession, sub, child, event.waitingForDebugger);
  }

  #announceChild(client: ClientSession, parentSub: Subscription, child: ChildTarget, waitingForDebugger: boolean): void {
    const sub: Subscription = { client, sessionId: child.sessionId, tab: parentSub.tab, childId: child.sessionId };
    child.state.subscribers.add(sub);
    client.bindings.set(child.sessionId, { kind: 'child', sub, parent: parentSub.sessionId });
    client.sendEvent(parentSub.sessionId, 'Target.attachedToTarget', {
      sessionId: child.sessionId,
      targetInfo: child.targetInfo,
      waitingForDebugger,
    });
  }

  #childDetached(tab: TabRecord, childId: string): void {
    const child = tab.children.get(childId);
    if (!child) return;
    // Grandchildren go first: their sessions die with their parent.
    for (const other of tab.children.values()) if (other.parentId === childId) this.#childDetached(tab, other.sessionId);
    tab.children.delete(childId);
    for (const sub of child.state.subscribers) {
      const client = sub.client as ClientSession;
      const binding = client.bindings.get(childId);
      client.bindings.delete(childId);
      if (binding) client.sendEvent(binding.parent, 'Target.detachedFromTarget', { sessionId: childId, targetId: child.targetInfo.targetId });
    }
  }

  /**
   * Removes a client's view of a child (no events sent); its own grandchildren go with it.
   * `cleanUp` false when the whole tab is about to get a fresh debugger session anyway.
   */
  dropChildSubscription(client: ClientSession, childId: string, cleanUp = true): void {
    const binding = client.bindings.get(childId);
    if (binding?.kind !== 'child') return;
    client.bindings.delete(childId);
    const tab = binding.sub.tab;
    for (const other of tab.children.values()) if (other.parentId === childId) this.dropChildSubscription(client, other.sessionId, cleanUp);
    const released = tab.children.get(childId)?.state.remove(binding.sub);
    if (released && cleanUp) this.#cleanUp(binding.sub, released);
  }

  /**
   * Removes a client's page subscription and everything it saw below it. When others remain,
   * what only this client needed is undone; when it was the last, the caller resets the tab.
   */
  dropPageSubscription(client: ClientSession, sessionId: string): void {
    const binding = client.bindings.get(sessionId);
    if (binding?.kind !== 'page') return;
    client.bindings.delete(sessionId);
    const tab = binding.sub.tab;
    const released = tab.page.remove(binding.sub);
    const othersRemain = tab.page.subscribers.size > 0;
    for (const child of tab.children.values()) {
      const childBinding = client.bindings.get(child.sessionId);
      if (childBinding?.kind === 'child' && child.parentId === undefined && childBinding.parent === sessionId) {
        this.dropChildSubscription(client, child.sessionId, othersRemain);
      }
    }
    if (othersRemain) this.#cleanUp(binding.sub, released);
  }

  /** Tells the tab what nobody needs any more: disable domains, drop init scripts, stop auto-attach. */
  #cleanUp(sub: Subscription, released: ReturnType<DebuggeeState['remove']>): void {
    const send = (method: string, params: Record<string, unknown> = {}) =>
      this.channel.send(sub.tab, sub.childId, method, params).catch((error: Error) => {
        this.channel.log.debug(`clean-up ${method} on tab ${sub.tab.tabId}: ${error.message}`);
      });
    for (const identifier of released.scripts) void send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
    if (released.autoAttach) void send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
    for (const domain of released.domains) void send(`${domain}.disable`);
  }
}
