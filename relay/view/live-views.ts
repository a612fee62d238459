// The live view's sockets: one per person watching a tab. Each joins the tab's shared
// screencast (tab-screencast.ts), hears who controls the tab (the event bus) and where the page
// went, and sends the person's input to the tab — only while the person holds it. Input on a
// free tab takes it for the person; while an agent holds it the view is watch-only until the
// person presses "Take over". A view whose grant does not act (a hand-over's link, which the
// agent holds; the token) only ever watches: nothing it sends takes, gives back, types, clicks or
// navigates. Owns every socket, screencast and listener it starts (close()).

import type { Page } from 'playwright-core';
import type { RawData, WebSocket } from 'ws';
import { parseViewMessage, type ViewHolder, type ViewMessage, type ViewUpdate } from '../../shared/view-protocol';
import { ClawdError, isClawdError } from '../errors';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import type { TabKey } from '../agent/tabs/tab-key';
import { checkOpenUrl } from '../profiles/tabs';
import { within } from '../time-limit';
import { TabScreencast, type ViewerSink } from './tab-screencast';
import { inputCommand, isActing } from './view-input';
import type { ViewGrant } from './view-auth';

/** What the live view needs from the agent layer. */
export interface ViewAgent {
  /** The tab's page and key, without making it the profile's default tab. */
  viewPage(profile: string, targetId: string | undefined): Promise<{ page: Page; targetId: string; tab: TabKey }>;
  checkUrl(tab: TabKey, url: string): void;
  holder(tab: TabKey): ViewHolder;
  /** The person takes the tab (ending an agent's hold). */
  personTakes(tab: TabKey): void;
  /** The person gives the tab back. */
  personDone(tab: TabKey): void;
}

/** What a view that only watches says when it is asked to act. */
export const WATCH_ONLY_WORDS =
  'this view only watches (a hand-over\'s link, which the agent was given): to act, open your own live view: "Open the live view" in clawd\'s side panel in Chrome, or `clawd view` in your terminal';

/** A socket's send buffer beyond which frames wait (the ack window normally keeps it far below). */
const MAX_SOCKET_BUFFER = 8 * 1024 * 1024;
/**
 * A tab the person took over (no agent asked) goes back this long after their last view of it
 * closed, unless they come back: a closed browser tab must not keep agents out for good. A
 * hand-over an agent asked for stays until it is given back or its own limit.
 */
const ABANDONED_TAKEOVER_MS = 30_000;

/** A viewer's tab, as found. */
interface Viewed {
  page: Page;
  targetId: string;
  tab: TabKey;
  cast: TabScreencast;
}

/** A set-up viewer: its tab, its place in the screencast, its outlet and what it may do. */
interface Viewer {
  page: Page;
  tab: TabKey;
  cast: TabScreencast;
  sink: ViewerSink;
  send: (u: ViewUpdate) => void;
  grant: ViewGrant;
}

export class LiveViews {
  // Tab key → its screencast, while it has viewers.
  readonly #casts = new Map<TabKey, TabScreencast>();
  // Every open viewer socket (with its place in a screencast once it has one), closed by close().
  readonly #sockets = new Map<WebSocket, { cast: TabScreencast; sink: ViewerSink } | undefined>();
  // A socket of a view that answers questions → its profile, while it is open.
  readonly #answering = new Map<WebSocket, string>();
  // Tab key → the timer that gives back a take-over nobody watches any more; cleared when a viewer returns.
  readonly #abandoned = new Map<TabKey, NodeJS.Timeout>();

  constructor(
    private readonly agent: ViewAgent,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly abandonedMs = ABANDONED_TAKEOVER_MS,
  ) {}

  /** The screencast of a tab, if someone watches it (tests and the bench read its stats). */
  screencast(tab: TabKey): TabScreencast | undefined {
    return this.#casts.get(tab);
  }

  /** Whether a view that answers the person's questions is open on the profile (they are looking). */
  answering(profile: string): boolean {
    return [...this.#answering.values()].includes(profile);
  }

  /** What each viewer costs the server right now: bytes in its socket, frames held for it. */
  viewerStats(): Array<{ buffered: number; held: number }> {
    return [...this.#sockets].map(([ws, place]) => ({
      buffered: ws.bufferedAmount,
      held: place ? place.cast.held(place.sink) : 0,
    }));
  }

  /** Serves one viewer on an accepted socket until it closes; `grant` says whether it may act. */
  async serve(ws: WebSocket, profile: string, requested: string | undefined, grant: ViewGrant): Promise<void> {
    this.#sockets.set(ws, undefined);
    if (grant.answers) this.#answering.set(ws, profile);
    // Until the viewer is set up, closing only forgets the socket; then it undoes everything.
    let cleanUp = () => void this.#sockets.delete(ws);
    ws.on('close', () => {
      this.#answering.delete(ws);
      cleanUp();
    });
    // The page speaks as soon as the socket opens (its size, a take-over): kept until set up.
    const early: Array<{ data: RawData; isBinary: boolean }> = [];
    let onMessage = (data: RawData, isBinary: boolean): void => {
      if (early.length < 100) early.push({ data, isBinary });
    };
    ws.on('message', (data, isBinary) => onMessage(data, isBinary));
    const send = (update: ViewUpdate) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(update));
    const found = await this.#viewed(ws, send, profile, requested);
    if (!found) return;
    const { page, tab, cast } = found;
    const sink: ViewerSink = {
      frame: (bytes) => {
        if (ws.readyState !== ws.OPEN || ws.bufferedAmount >= MAX_SOCKET_BUFFER) return false;
        ws.send(bytes, { binary: true });
        return true;
      },
      update: send,
    };
    if (ws.readyState !== ws.OPEN) return this.#release(tab, cast, sink);
    clearTimeout(this.#abandoned.get(tab));
    this.#abandoned.delete(tab);
    const { pageInfo, unwatch } = this.#watch(ws, send, profile, found);
    send({ t: 'grant', acts: grant.acts, answers: grant.answers });
    send({ t: 'control', holder: this.agent.holder(tab) });
    void pageInfo();
    this.#sockets.set(ws, { cast, sink });
    cast.join(sink);

    onMessage = this.#reader({ page, tab, cast, sink, send, grant });
    for (const { data, isBinary } of early.splice(0)) onMessage(data, isBinary);
    cleanUp = () => {
      this.#sockets.delete(ws);
      unwatch();
      this.#release(tab, cast, sink);
    };
  }

  /** The tab a viewer asked for and its screencast; else the viewer hears why, and its socket closes. */
  async #viewed(
    ws: WebSocket,
    send: (update: ViewUpdate) => void,
    profile: string,
    requested: string | undefined,
  ): Promise<Viewed | undefined> {
    try {
      const { page, targetId, tab } = await this.agent.viewPage(profile, requested);
      return { page, targetId, tab, cast: await this.#castFor(page, tab) };
    } catch (error) {
      // Not running, no such tab, or the tab closed while we looked: the viewer hears why.
      const e = isClawdError(error) ? error : new ClawdError('target_closed', (error as Error).message);
      send({ t: 'error', code: e.code, message: e.message });
      ws.close(1011, e.code);
      return undefined;
    }
  }

  /**
   * What the viewer hears of its tab: where the page went (`pageInfo` says it now), the tab
   * closed, who controls it. `unwatch` removes every listener.
   */
  #watch(
    ws: WebSocket,
    send: (update: ViewUpdate) => void,
    profile: string,
    { page, targetId, tab }: Viewed,
  ): { pageInfo: () => Promise<unknown>; unwatch: () => void } {
    const pageInfo = async () =>
      send({
        t: 'page',
        url: page.url(),
        title: await within(page.title(), 2_000, () => new Error('no title')).catch(() => ''),
      });
    const onNavigated = (frame: ReturnType<Page['mainFrame']>) => void (frame === page.mainFrame() && pageInfo());
    const onClose = () => {
      send({ t: 'status', state: 'closed', message: 'The tab was closed.' });
      ws.close(1000, 'tab closed');
    };
    page.on('framenavigated', onNavigated);
    page.on('close', onClose);
    const unsubscribe = this.events.subscribe((event) => {
      if (
        (event.type === 'hold' || event.type === 'handoff') &&
        event.profile === profile &&
        event.targetId === targetId
      )
        send({ t: 'control', holder: this.agent.holder(tab) });
    });
    const unwatch = () => {
      unsubscribe();
      page.off('framenavigated', onNavigated);
      page.off('close', onClose);
    };
    return { pageInfo, unwatch };
  }

  /** Reads a set-up viewer's messages: JSON text only, each acted on in turn, its error said back. */
  #reader(v: Viewer): (data: RawData, isBinary: boolean) => void {
    const { send } = v;
    return (data, isBinary) => {
      if (isBinary)
        return void send({ t: 'error', code: 'bad_request', message: 'the view sends JSON text messages only' });
      let message: ViewMessage;
      try {
        message = parseViewMessage(data.toString());
      } catch (error) {
        return void send({ t: 'error', code: 'bad_request', message: (error as Error).message });
      }
      void this.#onMessage(message, v).catch((error: Error) => {
        send({ t: 'error', code: isClawdError(error) ? error.code : 'internal', message: error.message });
      });
    };
  }

  /** A viewer leaves its tab's screencast; the last one out stops it (and starts the take-over's grace). */
  #release(tab: TabKey, cast: TabScreencast, sink: ViewerSink): void {
    if (cast.leave(sink) && this.#casts.get(tab) === cast) {
      this.#casts.delete(tab);
      void cast.close();
      if (this.agent.holder(tab)?.kind !== 'person') return;
      clearTimeout(this.#abandoned.get(tab));
      this.#abandoned.set(
        tab,
        setTimeout(() => {
          this.#abandoned.delete(tab);
          const holder = this.agent.holder(tab);
          if (!this.#casts.has(tab) && holder?.kind === 'person' && holder.takenOver) this.agent.personDone(tab);
        }, this.abandonedMs),
      );
    }
  }

  async close(): Promise<void> {
    for (const timer of this.#abandoned.values()) clearTimeout(timer);
    this.#abandoned.clear();
    for (const ws of this.#sockets.keys()) ws.terminate();
    this.#sockets.clear();
    this.#answering.clear();
    const casts = [...this.#casts.values()];
    this.#casts.clear();
    await Promise.all(casts.map((cast) => cast.close()));
  }

  async #castFor(page: Page, tab: TabKey): Promise<TabScreencast> {
    const existing = this.#casts.get(tab);
    if (existing) return existing;
    const session = await page.context().newCDPSession(page);
    const raced = this.#casts.get(tab); // another viewer of the same tab got there first
    if (raced) {
      void session.detach().catch(() => {});
      return raced;
    }
    const cast = new TabScreencast(session, this.log);
    this.#casts.set(tab, cast);
    return cast;
  }

  async #onMessage(message: ViewMessage, v: Viewer): Promise<void> {
    if (message.t === 'ack') return v.cast.ack(v.sink);
    if (message.t === 'size') return v.cast.resize(v.sink, message);
    if (!v.grant.acts) {
      if (!isActing(message) && message.t !== 'take' && message.t !== 'done' && message.t !== 'nav') return;
      throw new ClawdError('person_only', WATCH_ONLY_WORDS);
    }
    if (message.t === 'take') return this.agent.personTakes(v.tab);
    if (message.t === 'done') return this.agent.personDone(v.tab);
    if (!this.#mayAct(v.tab, message)) return;
    if (message.t === 'nav') return this.#navigate(v.page, v.tab, message);
    const command = inputCommand(message);
    if (command) await v.cast.input(command.method, command.params);
  }

  /** Input goes through while the person holds the tab; acting on a free tab takes it. */
  #mayAct(tab: TabKey, message: ViewMessage): boolean {
    const holder = this.agent.holder(tab);
    if (holder?.kind === 'person') return true;
    if (!isActing(message)) return false; // hovering over a tab that is not yours does nothing
    if (holder?.kind === 'agent')
      throw new ClawdError(
        'tab_held',
        `watch-only: the agent session "${holder.session}" holds this tab. Press "Take over" to act.`,
      );
    this.agent.personTakes(tab);
    return true;
  }

  async #navigate(page: Page, tab: TabKey, message: ViewMessage & { t: 'nav' }): Promise<void> {
    const options = { timeout: 20_000, waitUntil: 'commit' as const };
    if (message.action === 'back') await page.goBack(options);
    else if (message.action === 'forward') await page.goForward(options);
    else if (message.action === 'reload') await page.reload(options);
    else {
      const url = checkOpenUrl(message.url);
      this.agent.checkUrl(tab, url);
      await page.goto(url, options);
    }
  }
}
