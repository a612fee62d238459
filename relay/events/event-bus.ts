// What happened, for whoever watches (GET /events, and the live view once it lands): browsers
// started and stopped, tabs opened, closed and navigated, a person's tabs attached and detached
// (the extension), holds taken and released, hand-overs started and ended, questions for the
// person and their answers, the person's hands on a tab. Producers emit; each subscriber gets every event from its subscription on.
// Synchronous and bounded by its subscribers: a slow one is the SSE stream's problem, which
// drops it (see control-app's /events).

import type { LocatedElement } from '../../shared/element-locator';

/** One thing an agent did to a page or a tab, as the action log records it (relay/agent/action-log.ts). */
export interface ActionEntry {
  time: string;
  /** The entry's own id (what the log keeps of it in memory only, its typed value, goes by it). */
  id?: string;
  profile: string;
  targetId?: string;
  /** The agent session that asked, if it named one. */
  session?: string;
  /** The operation (`click`, `navigate`, `tabOpen`, …), `cdp.navigate` for a raw client's, `blocked` for the browser's refusal. */
  kind: string;
  /** The page it happened on, or the URL it loaded. */
  url?: string;
  /**
   * The element as the agent named it: its ref, the role and name the snapshot showed, and how a
   * script finds it again (read before the action: shared/element-locator.ts).
   */
  element?: LoggedElement;
  /** What it was dropped onto (a drag). */
  onto?: LoggedElement;
  /** The key pressed (`press`; `Enter` after a `type` that submitted). */
  key?: string;
  /** What the page said afterwards, as the answer did (its status messages; a new document's title). */
  seen?: { title?: string; messages?: string[] };
  /** Typed text: its length, and the text itself only with browser.logText (never a password field's). */
  text?: { length: number; value?: string };
  /** `ok`, or the error code. */
  outcome: string;
  durationMs: number;
  /** Why, when it was refused (the rule), or what else is worth a line. */
  detail?: string;
}

/** An element in the action log. */
export type LoggedElement = { ref: string; role?: string; name?: string } & Partial<LocatedElement>;

export type ClawdEvent =
  | { type: 'browser'; profile: string; state: 'started' | 'stopped' }
  | ({ type: 'action' } & Omit<ActionEntry, 'time'>)
  | {
      type: 'tab';
      profile: string;
      targetId: string;
      state: 'opened' | 'closed' | 'navigated' | 'attached' | 'detached';
      url?: string;
      reason?: string;
    }
  | { type: 'hold'; profile: string; targetId: string; state: 'taken' | 'released'; session: string }
  | {
      type: 'handoff';
      profile: string;
      targetId: string;
      state: 'started' | 'ended';
      reason?: string;
      by?: 'person' | 'agent' | 'timeout';
    }
  /** A question for the person (ask-before), asked and then answered: allowed, declined, or unanswered within the call's bound. */
  | {
      type: 'question';
      profile: string;
      targetId?: string;
      state: 'asked' | 'allowed' | 'declined' | 'unanswered' | 'withdrawn';
      id: string;
      kinds: string[];
      what: string;
      url?: string;
      session?: string;
      by?: string;
    }
  /** The person's own hands on a tab of their browser: agents wait while it is `active`. */
  | { type: 'person'; profile: string; targetId: string; state: 'active' | 'idle' };

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
