// The one outlet for events to CDP clients. What the relay says itself (targets attached and
// detached, created and destroyed, downloads, execution contexts shown to a newcomer, the page
// moved for a parked tab) goes through `say`, typed by the event's CDP name; what it forwards
// from a tab goes through `forward`, serialised once for all its subscribers. Nothing else in
// the relay writes an event to a client (test/unit/import-graph.test.ts checks it).

import type { ClientSession } from './client-session';
import type { EventName, EventParams } from './cdp-types';

/** An event the relay says itself, on the client's `sessionId` ('' for its root session). */
export function say<E extends EventName>(
  client: ClientSession,
  sessionId: string,
  method: E,
  params: EventParams<E>,
): void {
  client.sendEvent(sessionId, method, params);
}

/** An event from a tab, its params already serialised (one JSON.stringify per event, not per client). */
export function forward(client: ClientSession, sessionId: string, method: string, paramsJson: string): void {
  client.sendEventJson(sessionId, method, paramsJson);
}
