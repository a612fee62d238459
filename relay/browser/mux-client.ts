// What the mux keeps of each client (cdp-mux.ts): where its messages go, the rules it is held
// to, the sessions and contexts it was given, and the route back of each command it sent.

import type { MuxTab, SessionTarget } from './mux-targets';

/** One client of the mux: where its messages go, and how it is closed. */
export interface MuxPeer {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** What a client is held to (raw clients; clawd's own connections passed its gates already). */
export interface MuxRules {
  /** Refuses a command before it reaches the browser (its error), or lets it go. */
  refuse?(method: string, params: Record<string, unknown>): Error | undefined;
  /** A new tab opened blank and loaded once what this answers resolves (client-new-tabs.ts); undefined: as asked. */
  opens?(params: Record<string, unknown>): ((targetId: string) => Promise<void>) | undefined;
  /**
   * What a command waits for before it goes (undefined: nothing); a rejection is its error. The
   * client's later commands on the same session wait behind it. `target`: the one the command's
   * session is attached to (a worker's too), when known.
   */
  before?(
    method: string,
    params: Record<string, unknown>,
    tab: MuxTab | undefined,
    target?: SessionTarget,
  ): Promise<void> | undefined;
  /**
   * Commands sent on a command's own session right before it, answers dropped: what must come first
   * in its target (the policy's walls in a new service worker: a session runs its commands in order).
   */
  ahead?(method: string, target: SessionTarget | undefined): Array<{ method: string; params: object }> | undefined;
  /** The client went. */
  closed?(): void;
  /** A page target went (the questions about it have nobody left to answer for). */
  tabGone?(targetId: string): void;
  /** What the client is shown of a command's result. */
  shown?(method: string, result: unknown): unknown;
  /** What the client is shown of an event's params (the same object when all of it). */
  event?(method: string, params: Record<string, unknown>): Record<string, unknown>;
}

export interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: unknown;
  error?: unknown;
}

export interface Client {
  peer: MuxPeer;
  rules: MuxRules | undefined;
  /** The session its messages without a session id go to: a browser session, or a page's (`/devtools/page/<id>`). */
  root: string | undefined;
  /** Messages that came before its root session existed. */
  queue: string[];
  sessions: Set<string>;
  contexts: Set<string>;
  /** The download behaviour it last set, per browser context ('' for the default), with when. */
  downloads: Map<string, { params: Record<string, unknown>; at: number }>;
  closed: boolean;
}

export interface Route {
  client: Client;
  id: number;
  method: string;
  /** The client sent it without a session id: the answer goes back without one. */
  atRoot: boolean;
  /** The target it attaches to (Target.attachToTarget). */
  targetId?: string;
}

export function newClient(peer: MuxPeer, rules: MuxRules | undefined): Client {
  return {
    peer,
    rules,
    root: undefined,
    queue: [],
    sessions: new Set(),
    contexts: new Set(),
    downloads: new Map(),
    closed: false,
  };
}
