// Several CDP clients on the one pipe of a managed browser, each as if it had a browser connection
// of its own. Measured (Chromium 150 and 156): a session from `Target.attachToBrowserTarget` is a
// browser session of its own — its setDiscoverTargets and setAutoAttach are its own, and its
// children get session ids of their own — so each client gets one, its root messages are sent on
// it and its ids rewritten, and what comes back goes to the client that owns the session. Chrome
// does not keep sessions apart (any session on the pipe could use another's child id), so the mux
// does: a client reaches only the sessions it was given. What Chrome shares between connections
// stays shared, as on a port: browser contexts and the targets in them, a page paused until every
// client that asked to pause it lets it run. Three things a client could do to the others are
// kept from it: `Browser.close` closes its own connection only; the contexts it created are
// disposed when it goes (Puppeteer leaves its own behind); and the download behaviour it set is
// put back to the one the newest remaining client set (Chrome resets a context's when the session
// that set it last detaches). A client leaving detaches its browser session, which lets go what it
// paused. The browser gone, every client is closed (1011). A raw client's command may wait (its
// rules' `before`: the person's answer, a watch on the tab) — the mux knows which tab each of its
// sessions acts in and where that tab is — and its later commands on that session wait behind it, in order.

import { ClawdError, cdpErrorOf } from '../errors';
import type { Logger } from '../log';
import { HeldCommands } from './held-commands';
import type { CdpPipe } from './cdp-pipe';

/** What the mux needs of the pipe (a test stands in for the browser with this). */
export type MuxPipe = Pick<CdpPipe, 'send' | 'onMessage' | 'onClose' | 'closed'>;

/** One client of the mux: where its messages go, and how it is closed. */
export interface MuxPeer {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** The tab (page target) a command acts in, with the address it shows now. */
export interface MuxTab {
  readonly targetId: string;
  readonly info: { readonly url: string };
}

/** What a client is held to (raw clients; clawd's own connections passed its gates already). */
export interface MuxRules {
  /** Refuses a command before it reaches the browser (its error), or lets it go. */
  refuse?(method: string, params: Record<string, unknown>): Error | undefined;
  /**
   * What a command waits for before it goes (undefined: nothing); a rejection is its error. The
   * client's later commands on the same session wait behind it.
   */
  before?(method: string, params: Record<string, unknown>, tab: MuxTab | undefined): Promise<void> | undefined;
  /** The client went. */
  closed?(): void;
  /** A page target went (the questions about it have nobody left to answer for). */
  tabGone?(targetId: string): void;
  /** What the client is shown of a command's result. */
  shown?(method: string, result: unknown): unknown;
  /** What the client is shown of an event's params (the same object when all of it). */
  event?(method: string, params: Record<string, unknown>): Record<string, unknown>;
}

/** A client's end of the mux. */
export interface MuxConnection {
  /** A message from the client (text, as it came). */
  receive(text: string): void;
  /** The client went: its browser session is detached, what it created disposed. */
  close(): void;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: unknown;
  error?: unknown;
}

interface Client {
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

interface Route {
  client: Client;
  id: number;
  method: string;
  /** The client sent it without a session id: the answer goes back without one. */
  atRoot: boolean;
  /** The target it attaches to (Target.attachToTarget). */
  targetId?: string;
}

const OWN_CALL_MS = 10_000;

export class CdpMux {
  #next = 1;
  readonly #routes = new Map<number, Route>();
  readonly #own = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  /** Session id → the client that owns it (its root session and every child it was given). */
  readonly #sessions = new Map<string, Client>();
  readonly #clients = new Set<Client>();
  readonly #held = new HeldCommands<Client>();
  /** Session id → the tab (page target id) its commands act in: a page's session, or a frame's in it. */
  readonly #sessionTabs = new Map<string, string>();
  /** Every target's type and address, followed at the root once a client's commands may wait. */
  readonly #targets = new Map<string, { type: string; url: string }>();
  #following = false;
  #downloadClock = 0;
  readonly #unlisten: Array<() => void>;

  constructor(
    private readonly pipe: MuxPipe,
    private readonly log: Logger,
  ) {
    this.#unlisten = [pipe.onMessage((text) => this.#fromBrowser(text)), pipe.onClose(() => this.#browserGone())];
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** A command of the mux's own, at the browser's root (the /json routes, readiness, stop). */
  call<T = any>(method: string, params: Record<string, unknown> = {}, timeoutMs = OWN_CALL_MS): Promise<T> {
    if (this.pipe.closed) return Promise.reject(new ClawdError('browser_gone', 'the browser is gone'));
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#own.delete(id);
        reject(new ClawdError('command_timeout', `the browser did not answer ${method} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.#own.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.pipe.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * A new client: a browser session of its own, or, with `page`, the session of that page (as
   * Chrome's `/devtools/page/<id>` is). Its messages wait until the session exists.
   */
  connect(peer: MuxPeer, options: { rules?: MuxRules; page?: string } = {}): MuxConnection {
    const client: Client = {
      peer,
      rules: options.rules,
      root: undefined,
      queue: [],
      sessions: new Set(),
      contexts: new Set(),
      downloads: new Map(),
      closed: false,
    };
    this.#clients.add(client);
    if (options.rules?.before) this.#followTargets();
    const attached = options.page
      ? this.call<{ sessionId: string }>('Target.attachToTarget', { targetId: options.page, flatten: true })
      : this.call<{ sessionId: string }>('Target.attachToBrowserTarget');
    attached.then(
      ({ sessionId }) => {
        if (client.closed) return void this.call('Target.detachFromTarget', { sessionId }).catch(() => {});
        client.root = sessionId;
        this.#ownSession(client, sessionId);
        if (options.page) this.#sessionTabs.set(sessionId, options.page);
        for (const text of client.queue.splice(0)) this.#fromClient(client, text);
      },
      (error: Error) => {
        this.log.debug(`cdp mux: a client's session: ${error.message}`);
        this.#drop(client, 1011, `the browser did not take the connection: ${error.message}`.slice(0, 120));
      },
    );
    return {
      receive: (text) => (client.root === undefined ? client.queue.push(text) : this.#fromClient(client, text)),
      close: () => this.#leave(client),
    };
  }

  /** The browser is closing (clawd stops it): every client hears so. */
  close(): void {
    for (const unlisten of this.#unlisten) unlisten();
    this.#browserGone();
  }

  #ownSession(client: Client, sessionId: string): void {
    client.sessions.add(sessionId);
    this.#sessions.set(sessionId, client);
  }

  /** Where targets are and what they are, from the root's own discovery (the mux's, nobody else's). */
  #followTargets(): void {
    if (this.#following) return;
    this.#following = true;
    this.call<{ targetInfos: Array<{ targetId: string; type: string; url: string }> }>('Target.getTargets')
      .then(({ targetInfos }) => {
        for (const t of targetInfos) if (!this.#targets.has(t.targetId)) this.#targets.set(t.targetId, t);
      })
      .catch((error: Error) => this.log.debug(`cdp mux: targets: ${error.message}`));
    void this.call('Target.setDiscoverTargets', { discover: true }).catch((error: Error) =>
      this.log.debug(`cdp mux: target discovery: ${error.message}`),
    );
  }

  /** The root's events: only the targets' comings and goings, for #targets. */
  #rootEvent(method: string | undefined, params: Record<string, unknown> | undefined): void {
    const info = params?.targetInfo as { targetId: string; type: string; url: string } | undefined;
    if ((method === 'Target.targetCreated' || method === 'Target.targetInfoChanged') && info)
      this.#targets.set(info.targetId, { type: info.type, url: info.url });
    else if (method === 'Target.targetDestroyed' && typeof params?.targetId === 'string') {
      const gone = this.#targets.get(params.targetId);
      this.#targets.delete(params.targetId);
      if (gone?.type === 'page') for (const client of this.#clients) client.rules?.tabGone?.(params.targetId);
    }
  }

  /** The tab a session acts in (its page), with its address read at each use. */
  #tabOf(sessionId: string | undefined): MuxTab | undefined {
    const targetId = sessionId === undefined ? undefined : this.#sessionTabs.get(sessionId);
    if (targetId === undefined) return undefined;
    const targets = this.#targets;
    return {
      targetId,
      info: {
        get url() {
          return targets.get(targetId)?.url ?? '';
        },
      },
    };
  }

  /** A new session of a client's: the tab it acts in, when it acts in one (a page, a frame of one). */
  #placeSession(sessionId: string, targetId: string, type: string | undefined, parent: string | undefined): void {
    if (type === 'page' || type === undefined) this.#sessionTabs.set(sessionId, targetId);
    else if (type === 'iframe' && parent !== undefined && this.#sessionTabs.has(parent))
      this.#sessionTabs.set(sessionId, this.#sessionTabs.get(parent)!);
  }

  #fromClient(client: Client, text: string): void {
    if (client.closed) return;
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return client.peer.send(
        JSON.stringify({ id: 0, error: { code: -32700, message: 'Message must be valid JSON' } }),
      );
    }
    const { id, method, sessionId } = message;
    const params = message.params ?? {};
    const answer = (body: { result?: unknown; error?: unknown }) =>
      client.peer.send(JSON.stringify({ id, ...body, ...(sessionId !== undefined ? { sessionId } : {}) }));
    if (!Number.isSafeInteger(id) || typeof method !== 'string')
      return answer({ error: { code: -32600, message: 'Message must have an integer id and a string method' } });
    if (sessionId !== undefined && this.#sessions.get(sessionId) !== client)
      return answer({ error: { code: -32001, message: `Session with given id not found: ${sessionId}` } });
    // A session named in the params (detach, the old non-flat messages) must be the client's too.
    const named = params.sessionId;
    if (typeof named === 'string' && this.#sessions.get(named) !== client)
      return answer({ error: { code: -32602, message: `No session with given id: ${named}` } });
    const refused = client.rules?.refuse?.(method, params);
    if (refused) return answer({ error: cdpErrorOf(refused) });
    const before = client.rules?.before;
    if (!before) return this.#send(client, message, answer);
    const tab = this.#tabOf(sessionId ?? client.root);
    this.#held.run(
      client,
      sessionId ?? '',
      () => before(method, params, tab),
      () => {
        if (client.closed) return;
        // Its session may have gone while it waited.
        if (sessionId !== undefined && this.#sessions.get(sessionId) !== client)
          return answer({ error: { code: -32001, message: `Session with given id not found: ${sessionId}` } });
        this.#send(client, message, answer);
      },
      (error: unknown) => answer({ error: cdpErrorOf(error) }),
    );
  }

  /** A client's command to the browser, its id the mux's own. */
  #send(client: Client, message: Message, answer: (body: { result?: unknown; error?: unknown }) => void): void {
    const { id, method, sessionId } = message as Message & { id: number; method: string };
    const params = message.params ?? {};
    if (method === 'Browser.close' && sessionId === undefined) {
      // Its own connection, not everyone's browser.
      answer({ result: {} });
      return this.#drop(client, 1000, 'Browser.close: this connection is closed; the browser stays');
    }
    if (method === 'Browser.setDownloadBehavior')
      client.downloads.set(String(params.browserContextId ?? ''), { params, at: ++this.#downloadClock });
    const muxId = this.#next++;
    this.#routes.set(muxId, {
      client,
      id,
      method,
      atRoot: sessionId === undefined,
      ...(method === 'Target.attachToTarget' && typeof params.targetId === 'string'
        ? { targetId: params.targetId }
        : {}),
    });
    this.pipe.send(JSON.stringify({ ...message, id: muxId, sessionId: sessionId ?? client.root }));
  }

  #fromBrowser(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return void this.log.warn(`cdp mux: the browser sent something that is not JSON: ${text.slice(0, 80)}`);
    }
    if (message.id !== undefined) return this.#answer(message);
    const { sessionId, method, params } = message;
    if (sessionId === undefined) return this.#rootEvent(method, params as Record<string, unknown> | undefined); // nobody else's
    const client = this.#sessions.get(sessionId);
    if (!client || client.closed) return;
    if (method === 'Target.attachedToTarget') {
      const attached = params as { sessionId?: string; targetInfo?: { targetId: string; type: string } } | undefined;
      if (attached?.sessionId) {
        this.#ownSession(client, attached.sessionId);
        if (attached.targetInfo)
          this.#placeSession(attached.sessionId, attached.targetInfo.targetId, attached.targetInfo.type, sessionId);
      }
    }
    if (sessionId === client.root) delete message.sessionId;
    if (client.rules?.event && params) message.params = client.rules.event(method!, params as Record<string, unknown>);
    client.peer.send(JSON.stringify(message));
    if (method === 'Target.detachedFromTarget') {
      const child = (params as { sessionId?: string } | undefined)?.sessionId;
      if (child && this.#sessions.get(child) === client) {
        this.#sessions.delete(child);
        this.#sessionTabs.delete(child);
        client.sessions.delete(child);
      }
    }
  }

  #answer(message: Message): void {
    const id = message.id!;
    const own = this.#own.get(id);
    if (own) {
      this.#own.delete(id);
      clearTimeout(own.timer);
      if (message.error)
        own.reject(new ClawdError('upstream_error', (message.error as { message?: string }).message ?? 'failed'));
      else own.resolve(message.result);
      return;
    }
    const route = this.#routes.get(id);
    if (!route) return;
    this.#routes.delete(id);
    const { client } = route;
    if (client.closed) return;
    let result = message.result as Record<string, unknown> | undefined;
    if (result && !message.error) {
      if (route.method === 'Target.attachToTarget' && typeof result.sessionId === 'string') {
        this.#ownSession(client, result.sessionId);
        if (route.targetId !== undefined)
          this.#placeSession(result.sessionId, route.targetId, this.#targets.get(route.targetId)?.type, undefined);
      }
      if (route.method === 'Target.createBrowserContext' && typeof result.browserContextId === 'string')
        client.contexts.add(result.browserContextId);
      if (client.rules?.shown) result = client.rules.shown(route.method, result) as Record<string, unknown>;
    }
    const reply: Message = { ...message, id: route.id, ...(result !== undefined ? { result } : {}) };
    if (route.atRoot) delete reply.sessionId;
    client.peer.send(JSON.stringify(reply));
  }

  /** A client left (its socket closed): nothing of it stays in the browser that would not on a port. */
  #leave(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.#clients.delete(client);
    for (const session of client.sessions)
      if (this.#sessions.get(session) === client) {
        this.#sessions.delete(session);
        this.#sessionTabs.delete(session);
      }
    client.rules?.closed?.();
    if (this.pipe.closed) return;
    // Detaching its root session lets go the pages it paused and ends its child sessions.
    if (client.root !== undefined)
      void this.call('Target.detachFromTarget', { sessionId: client.root }).catch(() => {});
    for (const browserContextId of client.contexts)
      void this.call('Target.disposeBrowserContext', { browserContextId }).catch(() => {});
    // Chrome resets a context's download behaviour when the session that set it last goes: the
    // newest of the others' is put back (clawd's own connection keeps saving where it said).
    for (const context of client.downloads.keys()) {
      let newest: { params: Record<string, unknown>; at: number } | undefined;
      for (const other of this.#clients) {
        const set = other.downloads.get(context);
        if (set && (!newest || set.at > newest.at)) newest = set;
      }
      if (newest) void this.call('Browser.setDownloadBehavior', newest.params).catch(() => {});
    }
  }

  #drop(client: Client, code: number, reason: string): void {
    const peer = client.peer;
    this.#leave(client);
    peer.close(code, reason);
  }

  #browserGone(): void {
    for (const call of this.#own.values()) {
      clearTimeout(call.timer);
      call.reject(new ClawdError('browser_gone', 'the browser went away'));
    }
    this.#own.clear();
    this.#routes.clear();
    for (const client of [...this.#clients]) {
      client.closed = true;
      client.rules?.closed?.();
      client.peer.close(1011, 'the browser went away');
    }
    this.#clients.clear();
    this.#sessions.clear();
    this.#sessionTabs.clear();
  }
}
