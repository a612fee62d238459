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
// rules' `before`: the person's answer, a watch on the tab; mux-targets.ts knows each session's
// tab), its later commands on that session behind it, in order (held-commands.ts). What the mux
// only routes (a flood's events, a screenshot's answer) goes on as Chrome wrote it (cdp-text.ts).
// The ids rewritten on the way in and on the way back are the one session table, so both
// directions stay in this file; what it keeps per client is in mux-client.ts.

import { ClawdError, cdpErrorOf } from '../errors';
import type { Logger } from '../log';
import { HeldCommands } from './held-commands';
import { openedWatched, ownCalls } from './client-new-tabs';
import type { CdpPipe } from './cdp-pipe';
import { MuxTargets } from './mux-targets';
import { newClient, type Client, type Message, type MuxPeer, type MuxRules, type Route } from './mux-client';
import { answerText, routingOf } from './cdp-text';

export type { MuxTab } from './mux-targets';
export type { MuxPeer, MuxRules } from './mux-client';

/** What the mux needs of the pipe (a test stands in for the browser with this). */
export type MuxPipe = Pick<CdpPipe, 'send' | 'onMessage' | 'onClose' | 'closed'>;

/** A client's end of the mux. */
export interface MuxConnection {
  /** A message from the client (text, as it came). */
  receive(text: string): void;
  /** The client went: its browser session is detached, what it created disposed. */
  close(): void;
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
  /** The tab each session acts in, and where each tab is (followed once a client's commands may wait). */
  readonly #targets: MuxTargets;
  #downloadClock = 0;
  readonly #unlisten: Array<() => void>;

  constructor(
    private readonly pipe: MuxPipe,
    private readonly log: Logger,
  ) {
    this.#unlisten = [pipe.onMessage((text) => this.#fromBrowser(text)), pipe.onClose(() => this.#browserGone())];
    this.#targets = new MuxTargets((method, params) => this.call(method, params), log);
  }

  readonly #ownCall = ownCalls(this);

  get clients(): number {
    return this.#clients.size;
  }

  /** A command of the mux's own, at the browser's root (the /json routes, readiness, stop) or on a session it attached. */
  call<T = any>(method: string, params: Record<string, unknown> = {}, ms = OWN_CALL_MS, on?: string): Promise<T> {
    if (this.pipe.closed) return Promise.reject(new ClawdError('browser_gone', 'the browser is gone'));
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#own.delete(id);
        reject(new ClawdError('command_timeout', `the browser did not answer ${method} within ${ms / 1000} s`));
      }, ms);
      this.#own.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.pipe.send(JSON.stringify({ id, method, params, ...(on !== undefined ? { sessionId: on } : {}) }));
    });
  }

  /**
   * A new client: a browser session of its own, or, with `page`, the session of that page (as
   * Chrome's `/devtools/page/<id>` is). Its messages wait until the session exists.
   */
  connect(peer: MuxPeer, options: { rules?: MuxRules; page?: string } = {}): MuxConnection {
    const client = newClient(peer, options.rules);
    this.#clients.add(client);
    if (options.rules?.before) this.#targets.follow();
    const attached = options.page
      ? this.call<{ sessionId: string }>('Target.attachToTarget', { targetId: options.page, flatten: true })
      : this.call<{ sessionId: string }>('Target.attachToBrowserTarget');
    attached.then(
      ({ sessionId }) => {
        if (client.closed) return void this.call('Target.detachFromTarget', { sessionId }).catch(() => {});
        client.root = sessionId;
        this.#ownSession(client, sessionId);
        // Of the type the browser says (a worker's own id is a page's socket too).
        if (options.page) this.#targets.place(sessionId, options.page, undefined);
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
    const tab = this.#targets.tabOf(sessionId ?? client.root);
    this.#held.run(
      client,
      sessionId ?? '',
      () => before(method, params, tab, this.#targets.targetOf(sessionId ?? client.root)),
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
    const watched = method === 'Target.createTarget' ? client.rules?.opens?.(params) : undefined;
    if (watched) return openedWatched(this.#ownCall, params, watched, answer, sessionId ?? client.root);
    const on = sessionId ?? client.root;
    for (const wall of client.rules?.ahead?.(method, this.#targets.targetOf(on)) ?? [])
      this.pipe.send(JSON.stringify({ id: this.#next++, ...wall, sessionId: on }));
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
    // Most of a flood (network events, a screenshot's answer) is passed on as Chrome wrote it.
    if (this.#passedOn(text)) return;
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return void this.log.warn(`cdp mux: the browser sent something that is not JSON: ${text.slice(0, 80)}`);
    }
    if (message.id !== undefined) return this.#answer(message);
    const { sessionId, method, params } = message;
    if (sessionId === undefined) {
      // The root's own events: nobody else's, but a page gone ends the questions about it.
      const gone = this.#targets.rootEvent(method, params as Record<string, unknown> | undefined);
      if (gone !== undefined) for (const client of this.#clients) client.rules?.tabGone?.(gone);
      return;
    }
    const client = this.#sessions.get(sessionId);
    if (!client || client.closed) return;
    if (method === 'Target.attachedToTarget') {
      const attached = params as { sessionId?: string; targetInfo?: { targetId: string; type: string } } | undefined;
      if (attached?.sessionId) {
        this.#ownSession(client, attached.sessionId);
        if (attached.targetInfo)
          this.#targets.place(attached.sessionId, attached.targetInfo.targetId, attached.targetInfo.type, sessionId);
      }
    }
    if (sessionId === client.root) delete message.sessionId;
    if (client.rules?.event && params) message.params = client.rules.event(method!, params as Record<string, unknown>);
    client.peer.send(JSON.stringify(message));
    if (method === 'Target.detachedFromTarget') {
      const child = (params as { sessionId?: string } | undefined)?.sessionId;
      if (child && this.#sessions.get(child) === client) {
        this.#sessions.delete(child);
        this.#targets.forget(child);
        client.sessions.delete(child);
      }
    }
  }

  /** A message only routed, passed on as Chrome wrote it (cdp-text.ts); false: it is read in full. */
  #passedOn(text: string): boolean {
    const routing = routingOf(text);
    if (routing?.kind === 'event') {
      const client = this.#sessions.get(routing.sessionId);
      // Read in full: a root session's events (named otherwise to the client), events a client's
      // rules may rewrite, and Target events (they change the session table).
      if (!client || client.rules?.event || routing.sessionId === client.root || routing.method.startsWith('Target.'))
        return false;
      if (!client.closed) client.peer.send(text);
      return true;
    }
    if (routing?.kind !== 'answer' || this.#own.has(routing.id)) return false;
    const route = this.#routes.get(routing.id);
    // Read in full: answers the mux learns from (a session, a context) or a client's rules rewrite.
    if (!route || route.client.rules?.shown || route.method.startsWith('Target.')) return false;
    this.#routes.delete(routing.id);
    if (!route.client.closed) route.client.peer.send(answerText(text, routing, route.id, route.atRoot));
    return true;
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
        if (route.targetId !== undefined) this.#targets.place(result.sessionId, route.targetId, undefined);
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
        this.#targets.forget(session);
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
    this.#targets.clear();
  }
}
