// Commands on a page or child session (the events coming back are tab-events.ts'). Most commands
// go straight to the tab link; the few that change per-client state are recorded in the
// debuggee's state so each client sees what it would see alone on a real Chrome: its own
// Runtime contexts and child targets (replayed for a late-comer), events only for the domains
// it enabled and the streams it started, and nothing disabled or stopped under another
// client's feet. When a client lets go, what only it needed is undone here (`cleanUp`).
// Kept whole (under the 400-line cap): each command here records or undoes the same per-client
// debuggee state; the state itself is debuggee-state.ts.

import type { Protocol } from 'devtools-protocol';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { paramsOf, type CommandParams } from './cdp-types';
import { say } from './client-events';
import { cookiesToSet, readsCookies, visibleCookieResult } from './cookie-rules';
import type { CdpCommand } from './client-session';
import { streamCommand, type DebuggeeState, type Released } from './debuggee-state';
import { isSetup } from './setup-log';
import { TabEvents } from './tab-events';
import type { SessionTable, Subscription } from './session-table';
import type { TabLink } from './tab-link';
import type { TabRecord } from './target-registry';
import type { RelayPolicy } from './relay-policy';
import { clientLoadRefused } from './client-loads';

/** Answers a client's command: an error, or the result. */
export type Respond = (error: unknown, result?: unknown) => void;

/**
 * The auto-attach Chrome's one session is asked for: the latest client's (its filter), pausing new
 * targets only while a client that auto-attaches wants them paused.
 */
export function autoAttachParams(
  state: DebuggeeState<Subscription>,
  params?: Record<string, unknown>,
): Record<string, unknown> {
  const latest = params ??
    state.setup.commands().find((c) => c.method === 'Target.setAutoAttach')?.params ?? {
      autoAttach: true,
      flatten: true,
    };
  return { ...latest, waitForDebuggerOnStart: state.pausesNewTargets() };
}

/**
 * Sends a command to the tab for one subscription and answers the client: `then` sees the result
 * before the answer goes out, `failed` is told of an error (both only while the subscription stays).
 */
type Forward = (
  method: string,
  params: Record<string, unknown>,
  then?: (result: unknown) => void,
  failed?: () => void,
) => void;

/** Chrome's session id of the debuggee a subscription is on (undefined: the page itself). */
const childIdOf = (sub: Subscription): string | undefined => (sub.kind === 'child' ? sub.child.chromeId : undefined);

/** A clean-up that lets nothing go (one field set on it says what does). */
const NOTHING_RELEASED: Released = { domains: [], scripts: [], autoAttach: false, unpause: false, stops: [] };

export class TabCommands {
  constructor(
    private readonly table: SessionTable,
    private readonly link: TabLink,
    private readonly log: Logger,
    /** The origin policy of the person's tabs: navigations refused, cookies hidden. */
    private readonly policy: RelayPolicy,
    /** A client's navigation went to the tab (the action log). */
    private readonly navigated: (sub: Subscription, url: string) => void = () => {},
    /** Whether a client is shown no cookie in events (the person asks before raw clients read them). */
    cookiesAskedOf: (client: Subscription['client']) => boolean = () => false,
    /** A client's word to run a tab's page: true when it let a held pop-up go (held-tabs.ts), nothing to forward. */
    private readonly run: (client: Subscription['client'], tab: TabRecord) => boolean = () => false,
  ) {
    this.events = new TabEvents(table, log, policy, cookiesAskedOf);
  }

  /** The events coming back from the tabs (tab-events.ts). */
  readonly events: TabEvents;

  /** Runs a client's command on a page or child session and answers it through `respond`. */
  command(sub: Subscription, cmd: CdpCommand, respond: Respond): void {
    const state = this.table.stateOf(sub);
    const forward = this.#forwarder(sub, state, respond);
    if (this.#domainOrStream(sub, state, cmd, forward, respond)) return;
    switch (cmd.method) {
      case 'Page.navigate':
      case 'Fetch.continueRequest': {
        // A request an interception sends on to another address loads that address.
        const { url } = cmd.params;
        try {
          const scheme =
            typeof url === 'string' && !sub.client.internal ? clientLoadRefused(cmd.method, url) : undefined;
          if (scheme) throw scheme;
          if (typeof url === 'string') this.policy.check(url, cmd.method);
        } catch (error) {
          return respond(error);
        }
        if (typeof url === 'string' && sub.kind === 'page' && cmd.method === 'Page.navigate') this.navigated(sub, url);
        return forward(cmd.method, cmd.params);
      }
      case 'Target.setAutoAttach':
        return this.#setAutoAttach(sub, state, cmd.params, forward, respond);
      case 'Runtime.runIfWaitingForDebugger':
        if (sub.kind === 'page' && this.run(sub.client, sub.tab)) return respond(undefined, {});
        return forward(cmd.method, cmd.params);
      case 'Target.detachFromTarget':
        return this.#detachChild(sub, paramsOf(cmd, 'Target.detachFromTarget'), respond);
      case 'Page.addScriptToEvaluateOnNewDocument':
        return forward(cmd.method, cmd.params, (result) => {
          const identifier = (result as { identifier?: unknown }).identifier;
          if (typeof identifier !== 'string') return;
          state.addScript(sub, identifier);
          state.setup.record(sub, cmd.method, cmd.params, identifier);
        });
      case 'Page.removeScriptToEvaluateOnNewDocument': {
        // After a replay the tab knows the script by another identifier than the client does.
        const identifier = String(cmd.params.identifier);
        state.removeScript(sub, identifier);
        state.setup.undo(sub, identifier);
        return forward(cmd.method, { ...cmd.params, identifier: state.setup.current(identifier) });
      }
      default:
        return this.#anyCommand(sub, state, cmd, forward, respond);
    }
  }

  /**
   * Forwards a command; `then` runs on success, before the response goes out, in arrival order.
   * Without a `then` nothing here reads the result: a large one passes through unparsed.
   */
  #forwarder(sub: Subscription, state: DebuggeeState<Subscription>, respond: Respond): Forward {
    return (method, params, then, failed) =>
      this.link.send(
        sub.tab,
        childIdOf(sub),
        method,
        params,
        (error, result) => {
          if (error) {
            if (state.subscribers.has(sub)) failed?.();
            return respond(error);
          }
          // A subscription gone meanwhile (its client left before the answer) leaves nothing
          // behind: no setup recorded, no auto-attach kept for it.
          if (state.subscribers.has(sub)) then?.(result);
          respond(undefined, result);
        },
        then === undefined,
      );
  }

  /** A domain's enable or disable, a stream started or stopped: per client. Says whether it was one. */
  #domainOrStream(
    sub: Subscription,
    state: DebuggeeState<Subscription>,
    cmd: CdpCommand,
    forward: Forward,
    respond: Respond,
  ): boolean {
    const dot = cmd.method.indexOf('.');
    const domain = cmd.method.slice(0, dot);
    const action = cmd.method.slice(dot + 1);
    const record = () => state.setup.record(sub, cmd.method, cmd.params);
    if (action === 'enable' && domain === 'Runtime' && state.held('Runtime')) {
      // Chrome replays nothing for a second Runtime.enable on the same debugger session, so the
      // newcomer is shown the contexts the others already have, once its enable has answered
      // (after its earlier commands, e.g. Page.getFrameTree, as Playwright expects). Until then
      // it holds Runtime on the tab: another client leaving meanwhile does not disable it.
      state.join(domain, sub);
      forward(
        cmd.method,
        cmd.params,
        () => {
          if (!state.joined(domain, sub)) return; // it disabled the domain meanwhile
          record();
          state.shownAll(sub);
          for (const context of state.contexts.values())
            say(sub.client, sub.sessionId, 'Runtime.executionContextCreated', {
              context: context as Protocol.Runtime.ExecutionContextDescription,
            });
        },
        () => {
          if (state.joinFailed(domain, sub)) this.cleanUp(sub, { ...NOTHING_RELEASED, domains: [domain] });
        },
      );
      return true;
    }
    if (action === 'enable') {
      state.enable(domain, sub);
      forward(cmd.method, cmd.params, record);
      return true;
    }
    if (action === 'disable') {
      state.setup.undo(sub, `${domain}.enable`);
      if (state.disable(domain, sub)) forward(cmd.method, cmd.params);
      else respond(undefined, {});
      return true;
    }
    const stream = streamCommand(cmd.method);
    if (!stream) return false;
    if (!stream.stops) {
      state.startStream(stream.start, sub);
      forward(cmd.method, cmd.params);
      return true;
    }
    // Another client's stream keeps running: this client just stops receiving it.
    if (state.stopStream(stream.start, sub)) forward(cmd.method, cmd.params);
    else respond(undefined, {});
    return true;
  }

  /** Any other command: cookies read through the policy, what it refuses refused, the rest forwarded. */
  #anyCommand(
    sub: Subscription,
    state: DebuggeeState<Subscription>,
    cmd: CdpCommand,
    forward: Forward,
    respond: Respond,
  ): void {
    if (readsCookies(cmd.method)) {
      // The whole cookie store answers on a tab's session: what the policy hides is left out.
      return this.link.send(sub.tab, childIdOf(sub), cmd.method, cmd.params, (error, result) =>
        error ? respond(error) : respond(undefined, visibleCookieResult(this.policy, result)),
      );
    }
    try {
      const setting = cookiesToSet(cmd.method, cmd.params);
      if (setting) this.policy.checkCookies(setting, cmd.method);
      this.policy.checkTouch(cmd.method, cmd.params);
    } catch (error) {
      return respond(error);
    }
    const record = () => state.setup.record(sub, cmd.method, cmd.params);
    return isSetup(cmd.method) ? forward(cmd.method, cmd.params, record) : forward(cmd.method, cmd.params);
  }

  #setAutoAttach(
    sub: Subscription,
    state: DebuggeeState<Subscription>,
    params: Record<string, unknown>,
    forward: (method: string, params: Record<string, unknown>, then?: () => void) => void,
    respond: Respond,
  ): void {
    if (params.flatten !== true && params.autoAttach) {
      return respond(
        new ClawdError('unsupported', 'Target.setAutoAttach: only flatten mode is supported through the clawd relay'),
      );
    }
    if (!params.autoAttach) {
      state.setup.undo(sub, 'Target.setAutoAttach');
      const paused = state.autoAttach.get(sub) === true;
      const last = state.autoAttach.delete(sub) && state.autoAttach.size === 0;
      if (last) return forward('Target.setAutoAttach', params);
      // The others auto-attach on; if none of them wants new targets paused, Chrome stops pausing them.
      return paused && !state.pausesNewTargets()
        ? forward('Target.setAutoAttach', autoAttachParams(state))
        : respond(undefined, {});
    }
    state.setup.record(sub, 'Target.setAutoAttach', params);
    // Chrome's one session pauses new targets if any client asked; this one is told only of its own pauses.
    const waits = params.waitForDebuggerOnStart === true;
    const chrome = { ...params, waitForDebuggerOnStart: waits || state.pausesNewTargets(sub) };
    if (state.autoAttach.size === 0) {
      state.autoAttach.set(sub, waits);
      return forward('Target.setAutoAttach', chrome);
    }
    forward('Target.setAutoAttach', chrome, () => {
      state.autoAttach.set(sub, waits);
      this.table.announceChildren(sub);
    });
  }

  #detachChild(sub: Subscription, params: Partial<CommandParams<'Target.detachFromTarget'>>, respond: Respond): void {
    const childId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const binding = childId ? this.table.binding(sub.client, childId) : undefined;
    if (!childId || binding?.kind !== 'child' || binding.tab !== sub.tab) {
      return respond(new ClawdError('session_not_found', `No session with given id: ${childId ?? '(none)'}`));
    }
    this.table.detach(sub.client, childId);
    // Only the last client to let go really detaches Chrome's child session.
    if (binding.child.state.subscribers.size === 0 && this.table.child(sub.tab, childId) === binding.child) {
      const sessionId = binding.child.chromeId;
      this.link.request(sub.tab, undefined, 'Target.detachFromTarget', { sessionId }).catch(() => {});
    }
    respond(undefined, {});
  }

  /** Tells the tab what nobody needs any more: drop init scripts, stop auto-attach and streams, disable domains. */
  cleanUp(sub: Subscription, released: Released): void {
    const send = (method: string, params: Record<string, unknown> = {}) =>
      this.link.request(sub.tab, childIdOf(sub), method, params).catch((error: Error) => {
        this.log.debug(`clean-up ${method} on tab ${sub.tab.tabId}: ${error.message}`);
      });
    for (const identifier of released.scripts) void send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
    if (released.autoAttach)
      void send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
    else if (released.unpause) void send('Target.setAutoAttach', autoAttachParams(this.table.stateOf(sub)));
    for (const stop of released.stops) void send(stop);
    for (const domain of released.domains) void send(`${domain}.disable`);
  }
}
