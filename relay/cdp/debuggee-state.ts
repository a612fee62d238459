// What one debugger session (a tab's page, or a child iframe/worker inside it) has been asked
// to do, and by which client session. chrome.debugger gives the extension ONE session per tab,
// shared by every CDP client; this file lets the relay pretend each client has its own:
// enables and started streams are reference-counted, events go to the clients that asked for
// them, and a newcomer can be shown the state it missed (measured: a second Runtime.enable on
// the same debugger session replays nothing, so a late client never saw an execution context).
// Generic over the subscriber, so it knows nothing of clients or sockets.

import type { Protocol } from 'devtools-protocol';
import { SetupLog } from './setup-log';

/**
 * Commands that start something on the debuggee that runs until it is stopped, other than a
 * domain's `enable` (domains are counted on their own). The stream's events go only to the
 * subscribers that started it — a viewer's screencast frames must reach the viewer even when
 * another client has `Page` enabled and the viewer has not — and the stream is stopped when
 * the last of them leaves.
 */
const STREAMS: Readonly<Record<string, { stop: string; events: readonly string[] }>> = {
  'Page.startScreencast': {
    stop: 'Page.stopScreencast',
    events: ['Page.screencastFrame', 'Page.screencastVisibilityChanged'],
  },
};

/** Stop command → the start command it ends. */
const STOPS = new Map(Object.entries(STREAMS).map(([start, { stop }]) => [stop, start]));
/** Event → the start command whose stream it belongs to. */
const STREAM_OF_EVENT = new Map(
  Object.entries(STREAMS).flatMap(([start, { events }]) => events.map((event) => [event, start] as const)),
);

/** The stream a command starts or stops, if it is one. */
export function streamCommand(method: string): { start: string; stops: boolean } | undefined {
  if (Object.hasOwn(STREAMS, method)) return { start: method, stops: false };
  const start = STOPS.get(method);
  return start ? { start, stops: true } : undefined;
}

export interface Released {
  /** Domains nobody has enabled any more: the relay disables them on the tab. */
  domains: string[];
  /** Init scripts the subscription added: the relay removes them. */
  scripts: string[];
  /** The last auto-attach request went away. */
  autoAttach: boolean;
  /** The last subscription that wanted new targets paused went; others still auto-attach. */
  unpause: boolean;
  /** Stop commands of streams nobody runs any more (e.g. `Page.stopScreencast`). */
  stops: string[];
}

export class DebuggeeState<S> {
  // Added on attach (auto-attach, attachToTarget, a delivered child attach); removed on detach
  // or when the client disconnects. Only the session table changes it.
  readonly subscribers = new Set<S>();
  // domain → subscriptions that sent X.enable without a later X.disable.
  readonly domains = new Map<string, Set<S>>();
  // domain → subscriptions whose enable Chrome has not answered yet, where the answer is awaited
  // before they are shown the domain's events (a newcomer's Runtime.enable). They hold the
  // domain on the tab all the same: found by the quick bench in a clean-clone run, a Playwright
  // leaving while a raw client's Runtime.enable was in flight made the relay disable Runtime
  // after it, and the client saw none of its console events.
  readonly #joining = new Map<string, Set<S>>();
  // stream start command → subscriptions that started it without stopping it.
  readonly streams = new Map<string, Set<S>>();
  // Execution contexts as Chrome last said, counting events the tab's fence still holds back
  // from clients; meaningful while anyone has Runtime enabled. A newcomer's Runtime.enable is
  // answered with these (Chrome says nothing on a second enable), and the context events that
  // arrived before then are not sent to it again (#shownUpTo): found by the target fuzz, a
  // Playwright joining just after a reload was shown the old document's contexts, the reload's
  // events held behind another client's command, and evaluated in a context that was gone.
  readonly contexts = new Map<number, Protocol.Runtime.ExecutionContextDescription>();
  // Context events counted as they arrive; per subscription, the last one its replay covered.
  #arrivals = 0;
  readonly #shownUpTo = new Map<S, number>();
  // Subscriptions that asked for Target.setAutoAttach here, each with whether it asked new
  // targets to wait for it (waitForDebuggerOnStart): Chrome's one session pauses them when any
  // did, and each client is told only of the pauses it asked for (as Chrome tells each client).
  readonly autoAttach = new Map<S, boolean>();
  // Page.addScriptToEvaluateOnNewDocument identifiers each subscription added.
  readonly scripts = new Map<S, Set<string>>();
  // What each subscription set up, to replay on a fresh debugger session (setup-log.ts).
  setup = new SetupLog<S>();
  /**
   * A worker's script has loaded (Inspector.workerScriptLoaded, said once, right after Chrome
   * attaches it). Measured: Playwright (Chrome 143+) waits for it before evaluating in a worker,
   * so a client shown the worker later (a late client, another tab's session of a shared
   * service worker) is told it again.
   */
  scriptLoaded = false;

  /** Whether Chrome's one session should pause new targets: some auto-attaching subscription (other than `except`) asked. */
  pausesNewTargets(except?: S): boolean {
    for (const [sub, waits] of this.autoAttach) if (waits && sub !== except) return true;
    return false;
  }

  /** Records an enable; true when nobody had the domain enabled before. */
  enable(domain: string, sub: S): boolean {
    return addTo(this.domains, domain, sub);
  }

  /** Records an enable sent for `sub` whose answer `joined` waits for: it holds the domain meanwhile. */
  join(domain: string, sub: S): void {
    addTo(this.#joining, domain, sub);
  }

  /** The enable `join` recorded has answered: true when `sub` has the domain on now (not when it disabled it meanwhile). */
  joined(domain: string, sub: S): boolean {
    if (!this.#joining.get(domain)?.delete(sub)) return false;
    this.enable(domain, sub);
    return true;
  }

  /**
   * The enable `join` recorded failed: true when nobody holds the domain now (the one that held it
   * left meanwhile: Chrome still has it on, and the tab should disable it).
   */
  joinFailed(domain: string, sub: S): boolean {
    if (!this.#joining.get(domain)?.delete(sub) || this.held(domain)) return false;
    if (domain === 'Runtime') this.contexts.clear();
    return true;
  }

  /** Whether anyone has the domain enabled, or an enable of it in flight. */
  held(domain: string): boolean {
    return (this.domains.get(domain)?.size ?? 0) + (this.#joining.get(domain)?.size ?? 0) > 0;
  }

  /** Records a disable; true when it was the last enable, so the tab should really disable it. */
  disable(domain: string, sub: S): boolean {
    removeFrom(this.domains, domain, sub);
    this.#joining.get(domain)?.delete(sub);
    const last = !this.held(domain);
    if (last && domain === 'Runtime') this.contexts.clear();
    return last;
  }

  /** Records that `sub` started a stream; true when nobody ran it before. */
  startStream(start: string, sub: S): boolean {
    return addTo(this.streams, start, sub);
  }

  /** Records that `sub` stopped a stream; true when nobody runs it any more, so the tab should stop it. */
  stopStream(start: string, sub: S): boolean {
    return removeFrom(this.streams, start, sub);
  }

  /**
   * Whether an event should reach `sub`: a stream's events go to those who started it; a domain's
   * to those who enabled it, when anyone did; everything else to everyone.
   */
  wants(sub: S, method: string): boolean {
    const stream = STREAM_OF_EVENT.get(method);
    if (stream !== undefined) {
      const owners = this.streams.get(stream);
      if (owners && owners.size > 0) return owners.has(sub);
    }
    // Every event of the tab asks this per client: one lookup when a client has the domain on.
    const domain = method.slice(0, method.indexOf('.'));
    const set = this.domains.get(domain);
    if (set !== undefined && set.size > 0) return set.has(sub);
    return !this.#joining.get(domain)?.size; // an enable in flight: its events wait for its answer
  }

  addScript(sub: S, identifier: string): void {
    let set = this.scripts.get(sub);
    if (!set) this.scripts.set(sub, (set = new Set()));
    set.add(identifier);
  }

  removeScript(sub: S, identifier: string): void {
    this.scripts.get(sub)?.delete(identifier);
  }

  /** What the state keeps of an event delivered to clients. */
  observe(method: string): void {
    if (method === 'Inspector.workerScriptLoaded') this.scriptLoaded = true;
  }

  /**
   * A Runtime context event arrived from Chrome (or was made up by the relay), before the fence
   * may hold it: the context cache follows at once. Returns the event's number for shows(), or
   * undefined for any other event.
   */
  arrive(method: string, params: Record<string, unknown> | undefined): number | undefined {
    if (!method.startsWith('Runtime.executionContext')) return undefined;
    const arrival = ++this.#arrivals;
    if (!this.held('Runtime')) return arrival; // only what a client with Runtime on would see
    if (method === 'Runtime.executionContextCreated') {
      const context = params?.context as Protocol.Runtime.ExecutionContextDescription | undefined;
      if (context) this.contexts.set(context.id, context);
    } else if (method === 'Runtime.executionContextDestroyed') {
      this.contexts.delete(params?.executionContextId as number);
    } else if (method === 'Runtime.executionContextsCleared') {
      this.contexts.clear();
    }
    return arrival;
  }

  /** `sub` was shown the contexts as they are now: the context events that arrived so far are not for it. */
  shownAll(sub: S): void {
    this.#shownUpTo.set(sub, this.#arrivals);
  }

  /** Whether the context event numbered `arrival` is news to `sub` (not covered by its replay). */
  shows(sub: S, arrival: number | undefined): boolean {
    return arrival === undefined || arrival > (this.#shownUpTo.get(sub) ?? 0);
  }

  /** The debugger session was replaced by a fresh one: nothing is enabled or running. Subscribers stay. */
  resetSession(): void {
    this.domains.clear();
    this.#joining.clear();
    this.streams.clear();
    this.contexts.clear();
    this.autoAttach.clear();
    this.scripts.clear();
    this.setup = new SetupLog<S>();
  }

  /** Forgets a subscription and says what the tab no longer needs because of it. */
  remove(sub: S): Released {
    this.subscribers.delete(sub);
    this.#shownUpTo.delete(sub);
    const scripts = [...(this.scripts.get(sub) ?? [])].map((id) => this.setup.current(id));
    const released: Released = { domains: [], scripts, autoAttach: false, unpause: false, stops: [] };
    this.scripts.delete(sub);
    this.setup.forget(sub);
    // A domain goes when the leaving subscription held it (enabled, or its enable in flight) and nobody else does.
    const held = new Set<string>();
    for (const [domain, set] of [...this.domains, ...this.#joining]) if (set.delete(sub)) held.add(domain);
    for (const domain of held) {
      if (this.held(domain)) continue;
      released.domains.push(domain);
      if (domain === 'Runtime') this.contexts.clear();
    }
    for (const [start, set] of this.streams) {
      if (set.delete(sub) && set.size === 0) released.stops.push(STREAMS[start]!.stop);
    }
    const paused = this.autoAttach.get(sub) === true;
    released.autoAttach = this.autoAttach.delete(sub) && this.autoAttach.size === 0;
    released.unpause = paused && this.autoAttach.size > 0 && !this.pausesNewTargets();
    return released;
  }
}

/** Adds `sub` under `key`; true when it is the first there. */
function addTo<S>(map: Map<string, Set<S>>, key: string, sub: S): boolean {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  const first = set.size === 0;
  set.add(sub);
  return first;
}

/** Removes `sub` from under `key`; true when nobody is left there (or nobody was). */
function removeFrom<S>(map: Map<string, Set<S>>, key: string, sub: S): boolean {
  const set = map.get(key);
  if (!set) return true;
  set.delete(sub);
  return set.size === 0;
}
