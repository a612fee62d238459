// What one debugger session (a tab's page, or a child iframe/worker inside it) has been asked
// to do, and by which client session. chrome.debugger gives the extension ONE session per tab,
// shared by every CDP client; this file lets the relay pretend each client has its own:
// enables are reference-counted, events are filtered to the clients that enabled their domain,
// and a newcomer can be shown the state it missed (measured: a second Runtime.enable on the
// same debugger session replays nothing, so a late client never saw an execution context).

import type { Protocol } from 'devtools-protocol';
import type { TabRecord } from './target-registry';

/** A client's view of one debuggee: which client, under which session id. */
export interface Subscription {
  readonly client: SubscriberClient;
  /** The id this client uses for the debuggee ('' for a page-scoped /devtools/page socket). */
  readonly sessionId: string;
  readonly tab: TabRecord;
  /** Chrome's child session id when the debuggee is a child target. */
  readonly childId?: string;
}

/** The part of a client session the state needs: delivering an event under a session id. */
export interface SubscriberClient {
  readonly id: number;
  sendEvent(sessionId: string, method: string, params: unknown): void;
}

export interface Released {
  /** Domains nobody has enabled any more: the relay disables them on the tab. */
  domains: string[];
  /** Init scripts the subscription added: the relay removes them. */
  scripts: string[];
  /** The last auto-attach request went away. */
  autoAttach: boolean;
}

export class DebuggeeState {
  // Added on attach (auto-attach, attachToTarget, a delivered child attach); removed on detach
  // or when the client disconnects.
  readonly subscribers = new Set<Subscription>();
  // domain → subscriptions that sent X.enable without a later X.disable.
  readonly domains = new Map<string, Set<Subscription>>();
  // Execution contexts as delivered to clients; meaningful while anyone has Runtime enabled.
  readonly contexts = new Map<number, Protocol.Runtime.ExecutionContextDescription>();
  // Subscriptions that asked for Target.setAutoAttach here.
  readonly autoAttach = new Set<Subscription>();
  // Page.addScriptToEvaluateOnNewDocument identifiers each subscription added.
  readonly scripts = new Map<Subscription, Set<string>>();

  /** Records an enable; true when nobody had the domain enabled before. */
  enable(domain: string, sub: Subscription): boolean {
    let set = this.domains.get(domain);
    if (!set) this.domains.set(domain, (set = new Set()));
    const first = set.size === 0;
    set.add(sub);
    return first;
  }

  /** Records a disable; true when it was the last enable, so the tab should really disable it. */
  disable(domain: string, sub: Subscription): boolean {
    const set = this.domains.get(domain);
    if (!set) return true;
    set.delete(sub);
    if (set.size > 0) return false;
    if (domain === 'Runtime') this.contexts.clear();
    return true;
  }

  hasEnabled(domain: string, sub: Subscription): boolean {
    return this.domains.get(domain)?.has(sub) ?? false;
  }

  /** Whether an event should reach `sub`: only clients that enabled its domain, when anyone did. */
  wants(sub: Subscription, method: string): boolean {
    const set = this.domains.get(method.slice(0, method.indexOf('.')));
    return !set || set.size === 0 || set.has(sub);
  }

  addScript(sub: Subscription, identifier: string): void {
    let set = this.scripts.get(sub);
    if (!set) this.scripts.set(sub, (set = new Set()));
    set.add(identifier);
  }

  removeScript(sub: Subscription, identifier: string): void {
    this.scripts.get(sub)?.delete(identifier);
  }

  /** Keeps the context cache in step with the Runtime events delivered to clients. */
  observe(method: string, params: Record<string, unknown> | undefined): void {
    if (!this.domains.get('Runtime')?.size) return; // only what a client with Runtime on has seen
    if (method === 'Runtime.executionContextCreated') {
      const context = params?.context as Protocol.Runtime.ExecutionContextDescription | undefined;
      if (context) this.contexts.set(context.id, context);
    } else if (method === 'Runtime.executionContextDestroyed') {
      this.contexts.delete(params?.executionContextId as number);
    } else if (method === 'Runtime.executionContextsCleared') {
      this.contexts.clear();
    }
  }

  /** The debugger session was replaced by a fresh one: nothing is enabled any more. Subscribers stay. */
  resetSession(): void {
    this.domains.clear();
    this.contexts.clear();
    this.autoAttach.clear();
    this.scripts.clear();
  }

  /** Forgets a subscription and says what the tab no longer needs because of it. */
  remove(sub: Subscription): Released {
    this.subscribers.delete(sub);
    const released: Released = { domains: [], scripts: [...(this.scripts.get(sub) ?? [])], autoAttach: false };
    this.scripts.delete(sub);
    for (const [domain, set] of this.domains) {
      if (set.delete(sub) && set.size === 0) {
        released.domains.push(domain);
        if (domain === 'Runtime') this.contexts.clear();
      }
    }
    released.autoAttach = this.autoAttach.delete(sub) && this.autoAttach.size === 0;
    return released;
  }
}
