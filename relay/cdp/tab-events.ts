// The events coming back from a tab, delivered to the client sessions that want them: each
// client sees only the domains it enabled and the streams it started, cookies only as the
// policy and the person's asks let it, and no message said again by a tab's fresh session after
// a rest. Child targets Chrome attaches or detaches change the session table here. What comes
// here has passed the tab's fence (event-fence.ts).

import type { Protocol } from 'devtools-protocol';
import type { EventFrame } from '../../shared/protocol';
import type { Logger } from '../log';
import { forward } from './client-events';
import { carriesCookies, cookieEventShown } from './cookie-rules';
import type { DebuggeeState } from './debuggee-state';
import type { RelayPolicy } from './relay-policy';
import type { SessionTable, Subscription } from './session-table';
import type { TabRecord } from './target-registry';

/** Messages Chrome keeps and says again to a fresh session (after a rest), by where their time is. */
const KEPT_MESSAGES: Readonly<Record<string, (params: Record<string, unknown>) => unknown>> = {
  'Runtime.consoleAPICalled': (p) => p.timestamp,
  'Runtime.exceptionThrown': (p) => p.timestamp,
  'Log.entryAdded': (p) => (p.entry as { timestamp?: unknown } | undefined)?.timestamp,
};

export class TabEvents {
  constructor(
    private readonly table: SessionTable,
    private readonly log: Logger,
    /** The origin policy of the person's tabs: cookies hidden. */
    private readonly policy: RelayPolicy,
    /** Whether a client is shown no cookie in events (the person asks before raw clients read them). */
    private readonly cookiesAskedOf: (client: Subscription['client']) => boolean,
  ) {}

  /** A tab event arrived, before the fence may hold it: returns its number among context events (see DebuggeeState.arrive). */
  arrived(tab: TabRecord, frame: EventFrame): number | undefined {
    // Every event of every tab passes here: only context events look up their debuggee.
    if (!frame.method.startsWith('Runtime.executionContext')) return undefined;
    const childId = frame.sessionId === undefined ? undefined : this.table.knownAs(tab, frame.sessionId);
    return this.table.debuggee(tab, childId)?.arrive(frame.method, frame.params);
  }

  /** Delivers one tab event (already ordered by the fence) to the client sessions that want it. */
  deliver(tab: TabRecord, frame: EventFrame, arrival?: number): void {
    // Chrome's session ids of children attached again after a rest are not the ones clients know.
    const childId = frame.sessionId === undefined ? undefined : this.table.knownAs(tab, frame.sessionId);
    const state = this.table.debuggee(tab, childId);
    if (!state) {
      this.log.debug(`dropped ${frame.method} for unknown session ${frame.sessionId ?? ''} of tab ${tab.tabId}`);
      // A child under a session nobody holds any more waits for no one: let it run.
      if (frame.method === 'Target.attachedToTarget' && frame.params?.waitingForDebugger === true)
        this.table.letRun(tab, frame.params.sessionId as string);
      return;
    }
    const params = frame.params ?? {};
    if (frame.method === 'Target.attachedToTarget')
      return this.table.addChild(tab, childId, params as unknown as Protocol.Target.AttachedToTargetEvent);
    if (frame.method === 'Target.detachedFromTarget')
      return this.table.childDetached(tab, this.table.knownAs(tab, params.sessionId as string));
    if (frame.method === 'Target.targetInfoChanged' && params.targetInfo)
      this.table.updateChild(tab, params.targetInfo as Protocol.Target.TargetInfo);
    state.observe(frame.method);
    if (state.subscribers.size === 0 || saidAgain(tab, frame)) return;
    if (carriesCookies(frame.method)) return this.#deliverCookies(state, frame.method, params, arrival);
    const json = JSON.stringify(params);
    for (const sub of state.subscribers) {
      if (state.wants(sub, frame.method) && state.shows(sub, arrival))
        forward(sub.client, sub.sessionId, frame.method, json);
    }
  }

  /** An event that may carry cookies: each client is shown what the policy and the person's asks let it see. */
  #deliverCookies(
    state: DebuggeeState<Subscription>,
    method: string,
    params: Record<string, unknown>,
    arrival: number | undefined,
  ): void {
    const shown = new Map<boolean, string>();
    for (const sub of state.subscribers) {
      if (!state.wants(sub, method) || !state.shows(sub, arrival)) continue;
      const none = this.cookiesAskedOf(sub.client);
      let json = shown.get(none);
      if (json === undefined)
        shown.set(none, (json = JSON.stringify(cookieEventShown(method, params, this.policy.cookieJudge(none)))));
      forward(sub.client, sub.sessionId, method, json);
    }
  }
}

/** Whether an event is a message clients were shown before the tab's rest, said again by its fresh session. */
function saidAgain(tab: TabRecord, frame: EventFrame): boolean {
  const time = tab.seenUpTo !== undefined ? KEPT_MESSAGES[frame.method]?.(frame.params ?? {}) : undefined;
  return typeof time === 'number' && time <= (tab.seenUpTo ?? 0);
}
