// What happened, for whoever watches (GET /events, and the live view once it lands): browsers
// started and stopped, tabs opened, closed and navigated, a person's tabs attached and detached
// (the extension), holds taken and released, hand-overs started and ended. Producers emit; each subscriber gets every event from its subscription on.
// Synchronous and bounded by its subscribers: a slow one is the SSE stream's problem, which
// drops it (see control-app's /events).

export type ClawdEvent =
  | { type: 'browser'; profile: string; state: 'started' | 'stopped' }
  | { type: 'tab'; profile: string; targetId: string; state: 'opened' | 'closed' | 'navigated' | 'attached' | 'detached'; url?: string; reason?: string }
  | { type: 'hold'; profile: string; targetId: string; state: 'taken' | 'released'; session: string }
  | { type: 'handoff'; profile: string; targetId: string; state: 'started' | 'ended'; reason?: string; by?: 'person' | 'agent' | 'timeout' };

export type EventListener = (event: ClawdEvent & { time: string }) => void;

export class EventBus {
  // Added by subscribe, removed by the function it returns or by close().
  readonly #listeners = new Set<EventListener>();

  emit(event: ClawdEvent): void {
    const stamped = { ...event, time: new Date().toISOString() };
    for (const listener of [...this.#listeners]) listener(stamped);
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  close(): void {
    this.#listeners.clear();
  }
}
