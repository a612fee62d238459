// Asks decided by what happens: while an agent's call changes a tab, the tab's document requests
// are paused at the browser (CDP Fetch, on a session of clawd's own that the tab's watches
// share: fetch-hold.ts) and judged before they go —
// a form sent (a document POST: whatever sent it, a key, a label, a script), a load of a site
// the session has not been on (a link, a redirect hop, a script's navigation), a file the answer
// makes a download (Content-Disposition: attachment). The page cannot reach any of it: it is the
// browser's request, not the page's word. The gate (tab-gate.ts) still asks before the call where
// the call itself tells (a submit button, navigate's URL); what it asked is not asked again.
// A question waits within the call's bound; Deny fails the request (the server never sees a
// form, the browser saves no file) and the call answers person_declined. After the call the
// watch stays on with other options (`use`): what the call left running is judged when it comes
// (lingering-watches.ts); each `use` is a new generation, so what an earlier one holds is neither
// waited for by the next call nor its answer. A pop-up the tab opens is held for the watch as
// well before it runs (popup-holds.ts), and its loads are judged as the tab's: the person's say
// does not end at a target=_blank. A download that is no document's answer — a link's `download`
// attribute, a `blob:` a script made — is judged as it begins (`judgeDownload`, from the tab's
// downloads: capture/downloads.ts); Deny cancels it.
// Kept whole (under the 400-line cap): what a call waits for (its loads, a frame's ask, a new tab,
// a download due, the open questions) is one state that settle() reads at once; apart, a wait
// could be missed.

import type { AskKind } from '../../../shared/ask-kinds';
import { originOf } from '../../../shared/origin-policy';
import { isDownload } from './download-response';
import { FetchHold, type HeldTab, type HoldMember, type PausedRequest, type Place } from './fetch-hold';

/** Asks the person (resolves on Allow; rejects with person_declined or person_no_answer). */
export type WatchAsk = (kinds: AskKind[], url: string, what: string) => Promise<void>;

export interface WatchOptions {
  /** The kinds the person asks about that the watch judges (submit, new-site, download). */
  kinds: ReadonlySet<AskKind>;
  /** The origins the call's session has been on (new-site compares with these; an allowed one joins). */
  visited: Set<string>;
  /** What the gate already asked about for this call (and the person allowed). */
  asked: ReadonlySet<AskKind>;
  ask: WatchAsk;
  /** What is left of the call's bound (ms): waiting for its loads never goes past it. */
  left(): number;
}

/** A document load in flight: its frame, and the generation (`use`) it started in. */
interface Load {
  frame: string;
  generation: number;
}

/** After the call's work: the most the page may take to run what was due at once (docs/architecture.md says why 1 s). */
const CATCH_UP_MS = 1_000;
/** How long a frame's asked-for load may take to reach the network before the call stops waiting for it. */
const REQUESTED_MS = 2_000;
/**
 * How long a new tab the page asked for may take to be held for the watch before the call stops
 * waiting for it, and then its first load to show. On the person's own tabs it is held only once
 * Chrome runs it (the extension's word comes through its worker), and its first load is made
 * again by the extension: on a loaded two-core VM each step took over 2 s, and the call answered
 * before the person was asked about the new tab's load (asked after, by the watch left on the
 * tab): a Deny then failed no call. A page that asks for no new tab costs nothing of it.
 */
const OPENING_MS = 6_000;
/** The most the call waits after its work for the loads it started to answer (their next hop judged). */
const SETTLE_MS = 10_000;
/** How many answered loads' generations are kept (a refusal of one by another watch comes soon after). */
const ANSWERED_KEPT = 64;
/**
 * How long a document answer that no navigation made (no network id: a link's `download`
 * attribute) is waited for to begin as a download once it has gone on: the browser says so only
 * after, and the call must not answer before the person is asked about it.
 */
const DOWNLOAD_DUE_MS = 1_000;
/**
 * How long a click on a link that says `download` may take to begin its download (its request
 * may come after the call caught up with the page), and its due entry, whatever its address.
 */
const CLICKED_DOWNLOAD_MS = 2_000;
const CLICKED = '';
/** How many downloads the person allowed at their answer are kept, and how long: it begins at once. */
const ALLOWED_KEPT = 16;
const ALLOWED_MS = 10_000;
/** How many answers that may begin as downloads a call waits for at most (a page making many is not waited for). */
const DUE_KEPT = 8;

/**
 * The watches on each page, oldest first: a download that begins there is the newest one's to
 * judge (two may be on a tab a while: a call beside another, a raw client's beside a call's).
 */
const watching = new WeakMap<object, ActionWatch[]>();

export class ActionWatch {
  /** The first refusal (Deny, no answer): the call answers it. */
  #refused: Error | undefined;
  /** Questions still open of this generation: the call waits for them before it answers. */
  #pending = new Set<Promise<void>>();
  #generation = 0;
  #hold: HoldMember | undefined;
  /** The holds of new tabs the tab opened (judged on after the tab's own hold is left). */
  #popups: HoldMember[] = [];
  /** New tabs the tab is opening whose hold has not come yet (when each was said). */
  readonly #opening: number[] = [];
  /** Holds that came before their tab's word that it opens one (two connections: either comes first). */
  #early = 0;
  /** New tabs' main frames whose first load is made again (held by the extension): their loads before it end no wait. */
  readonly #madeAgain = new Set<string>();
  #closed = false;
  /** Its tab's own hold is left; it judges only the new tabs it holds. */
  #tabLeft = false;
  /** Document loads started and not answered yet (by network id: a redirect's hops share it). */
  readonly #loading = new Map<string, Load>();
  /** Frames that asked to load a page whose request has not shown yet (frame → until when it is waited for). */
  readonly #requested = new Map<string, number>();
  /** The generation of loads answered lately, for a refusal another watch makes after their answer (a download's). */
  readonly #answered = new Map<string, number>();
  /** Downloads the person allowed at their answer (URL → until when): their beginning is not asked about again. */
  readonly #allowedDownloads = new Map<string, number>();
  /** Answers that may begin as downloads (URL → until when that is waited for). */
  readonly #downloadsDue = new Map<string, number>();
  /** A download began in this generation (one may begin before the call's work is done: a `blob:` one). */
  #downloadBegan = false;
  #page: object | undefined;

  private constructor(private options: WatchOptions) {}

  /**
   * A download beginning on the page: undefined lets it go, else the person's answer (a refusal
   * rejects; the caller cancels it). Judged by the page's watch, if one is on; its call waits for it.
   */
  static judgeDownload(page: object, url: string): Promise<void> | undefined {
    const watch = watching.get(page)?.at(-1);
    return watch ? watch.#judgeDownload(url) : undefined;
  }

  /**
   * Holds the page's document requests until stop() (with the tab's other watches: fetch-hold.ts);
   * refuses (throws) when it cannot watch.
   */
  static async start(tab: HeldTab, options: WatchOptions): Promise<ActionWatch> {
    const watch = new ActionWatch(options);
    watch.#page = tab.page;
    watching.set(tab.page, [...(watching.get(tab.page) ?? []), watch]);
    try {
      watch.#hold = await FetchHold.join(tab, {
        judge: (paused, place) => watch.#judge(paused, place),
        // Another watch's refusal stopped a load: if this call started it, it answers that refusal too.
        failed: (paused, error) => {
          const load = paused.networkId ?? paused.requestId;
          const generation = watch.#loading.get(load)?.generation ?? watch.#answered.get(load);
          if (generation === watch.#generation) watch.#refused ??= error;
          watch.#loading.delete(load);
        },
        requested: (frameId) => void watch.#requested.set(frameId, Date.now() + REQUESTED_MS),
        // A move within the document answers a frame's ask; only a frame that stopped loading ends its loads.
        stopped: (frameId, loads) => {
          if (!watch.#madeAgain.has(frameId)) watch.#requested.delete(frameId);
          if (loads) for (const [load, { frame }] of watch.#loading) if (frame === frameId) watch.#loading.delete(load);
        },
        opening: () => {
          if (watch.#early > 0) watch.#early--;
          else watch.#opening.push(Date.now());
        },
        blocked: (frameId) => {
          watch.#requested.delete(frameId);
          watch.#madeAgain.delete(frameId);
        },
        // Its first load is asked for now (the new tab runs once its hold is on).
        adopted: (member, mainFrame, madeAgain) => {
          if (watch.#opening.length > 0) watch.#opening.shift();
          else watch.#early++;
          if (watch.#closed) return false; // the hold takes it out (fetch-hold.ts `adopt`)
          watch.#popups = [...watch.#popups.filter((popup) => !popup.gone), member];
          // A new tab's first load comes once it runs — on the person's tabs the extension makes it
          // again, through its worker: as long as its word that the tab opened may take.
          if (mainFrame !== undefined) watch.#requested.set(mainFrame, Date.now() + OPENING_MS);
          if (mainFrame !== undefined && madeAgain) watch.#madeAgain.add(mainFrame);
          return true;
        },
      });
    } catch (error) {
      watch.#unwatchPage();
      throw error;
    }
    return watch;
  }

  /** Judges from now on with other options (the next call's, or what a call left): a refusal before is forgotten. */
  use(options: WatchOptions): void {
    this.options = options;
    this.#refused = undefined;
    this.#pending = new Set();
    this.#requested.clear();
    this.#madeAgain.clear();
    this.#opening.length = 0;
    this.#early = 0;
    this.#downloadsDue.clear();
    this.#downloadBegan = false;
    this.#generation++;
  }

  /**
   * Waits for what the call started: the page caught up with what was due at once, a load a
   * frame asked for until its request shows, the loads in flight until they answer (a
   * redirect's next hop is judged on the way), the questions still open. Throws the first
   * refusal; the watch stays on.
   */
  async settle(): Promise<void> {
    await this.#hold?.caughtUp(Math.min(CATCH_UP_MS, this.options.left()));
    const until = Date.now() + Math.min(SETTLE_MS, this.options.left());
    while (this.#waiting() && Date.now() < until && !this.#refused) {
      if (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    const refused = this.#refused;
    this.#refused = undefined;
    if (refused) throw refused;
  }

  /** settle(), then the watch ends (its share of the tab's hold with it). */
  async stop(): Promise<void> {
    try {
      await this.settle();
    } finally {
      await this.leave();
    }
  }

  /** Ends the watch at once: what it holds goes on unjudged by it. */
  async leave(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatchPage();
    await Promise.all([this.#hold?.leave(), ...this.#popups.map((popup) => popup.leave())]);
  }

  /** Whether it still holds a new tab its tab opened (whose page is there, not taken over by a watch of its own). */
  get holdsNewTabs(): boolean {
    this.#popups = this.#popups.filter((popup) => !popup.gone);
    return !this.#closed && this.#popups.length > 0;
  }

  /**
   * Its tab is no longer its (the page closed, or another watch stays there): its tab's hold is
   * left, and it judges on the new tabs it holds (each until its page goes or a watch of its
   * own takes it over) — or ends, when it holds none.
   */
  async leaveTab(): Promise<void> {
    if (!this.holdsNewTabs) return this.leave();
    if (this.#tabLeft) return;
    this.#tabLeft = true;
    this.#unwatchPage();
    await this.#hold?.leave();
  }

  #waiting(): boolean {
    const now = Date.now();
    for (const [frame, until] of this.#requested)
      if (now > until) {
        this.#requested.delete(frame);
        this.#madeAgain.delete(frame);
      }
    while (this.#opening.length > 0 && now - this.#opening[0]! > OPENING_MS) this.#opening.shift();
    // Its tab's hold gone (`open(url); close()`), no watch of it adopts a new tab (`adopt`): none is waited for.
    if (this.#hold?.gone) this.#opening.length = 0;
    for (const [url, until] of this.#downloadsDue) if (now > until) this.#downloadsDue.delete(url);
    const ours = [...this.#loading.values()].some((load) => load.generation === this.#generation);
    return (
      ours ||
      this.#requested.size > 0 ||
      this.#opening.length > 0 ||
      this.#pending.size > 0 ||
      this.#downloadsDue.size > 0
    );
  }

  /** Every paused request of the tab: undefined lets it go (for this watch), else the person's answer. */
  #judge(e: PausedRequest, place: Place): Promise<void> | undefined {
    const atResponse = e.responseStatusCode !== undefined || e.responseErrorReason !== undefined;
    const load = e.networkId ?? e.requestId;
    // A redirect's answer is not the end of the load: its next hop comes under the same id (and
    // stays of the generation it started in).
    const generation = this.#loading.get(load)?.generation ?? this.#generation;
    if (atResponse && !isRedirect(e)) {
      this.#answer(load);
      // No navigation made it (a download attribute's request): it begins as a download, soon.
      if (
        e.networkId === undefined &&
        e.responseStatusCode !== undefined &&
        generation === this.#generation &&
        this.options.kinds.has('download') &&
        !this.options.asked.has('download') &&
        this.#downloadsDue.size < DUE_KEPT
      )
        this.#downloadsDue.set(e.request.url, Date.now() + DOWNLOAD_DUE_MS);
    } else if (!atResponse) {
      this.#loading.set(load, { frame: e.frameId, generation });
      this.#requested.delete(e.frameId);
      this.#madeAgain.delete(e.frameId);
    }
    const kinds = atResponse ? this.#responseKinds(e) : this.#requestKinds(e, place.mainFrame);
    if (kinds.length === 0 || this.#closed) return undefined;
    const what = `${place.popup ? 'in a new tab it opened: ' : ''}${kinds.includes('submit') ? `${e.request.method} ` : ''}${e.request.url}`;
    // A load an earlier generation started (a hop of what a call left) is judged, but is not this
    // call's to wait for or to answer: its question goes in a set of its own.
    const pending = generation === this.#generation ? this.#pending : new Set<Promise<void>>();
    const { visited } = this.options;
    const judged = this.options.ask(kinds, e.request.url, what).then(
      () => {
        const origin = originOf(e.request.url);
        if (origin && kinds.includes('new-site')) visited.add(origin);
        if (kinds.includes('download')) this.#allowed(e.request.url);
      },
      (error: unknown) => {
        this.#loading.delete(load);
        throw error;
      },
    );
    return this.#pend(judged, pending);
  }

  /** The call's work was a click on a link that says `download` (tab-gate.ts): it waits for a download to begin. */
  expectDownload(): void {
    const { kinds, asked } = this.options;
    if (kinds.has('download') && !asked.has('download') && !this.#downloadBegan)
      this.#downloadsDue.set(CLICKED, Date.now() + CLICKED_DOWNLOAD_MS);
  }

  /** A download begins on the page (no document answer asked about it). */
  #judgeDownload(url: string): Promise<void> | undefined {
    this.#downloadsDue.delete(url);
    this.#downloadsDue.delete(CLICKED);
    this.#downloadBegan = true;
    const { kinds, asked } = this.options;
    const allowed = this.#allowedDownloads.get(url);
    this.#allowedDownloads.delete(url);
    if (allowed !== undefined && allowed > Date.now()) return undefined;
    if (this.#closed || !kinds.has('download') || asked.has('download')) return undefined;
    const what =
      url.startsWith('blob:') || url.startsWith('data:') ? `a file the page made (${url.slice(0, 80)})` : url;
    return this.#pend(this.options.ask(['download'], url, `download ${what}`), this.#pending);
  }

  /** A question of this generation's (`pending`) the call waits for; its refusal is the call's answer. */
  #pend(judged: Promise<void>, pending: Set<Promise<void>>): Promise<void> {
    judged = judged.catch((error: unknown) => {
      if (pending === this.#pending) this.#refused ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    });
    const settled: Promise<void> = judged
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => pending.delete(settled));
    pending.add(settled);
    return judged;
  }

  #allowed(url: string): void {
    this.#allowedDownloads.set(url, Date.now() + ALLOWED_MS);
    if (this.#allowedDownloads.size > ALLOWED_KEPT)
      this.#allowedDownloads.delete(this.#allowedDownloads.keys().next().value!);
  }

  #unwatchPage(): void {
    if (this.#page === undefined) return;
    const others = (watching.get(this.#page) ?? []).filter((watch) => watch !== this);
    if (others.length > 0) watching.set(this.#page, others);
    else watching.delete(this.#page);
  }

  /** The load answered: kept a while by its generation, for a refusal of it that comes after. */
  #answer(load: string): void {
    const ended = this.#loading.get(load);
    this.#loading.delete(load);
    if (!ended) return;
    this.#answered.set(load, ended.generation);
    if (this.#answered.size > ANSWERED_KEPT) this.#answered.delete(this.#answered.keys().next().value!);
  }

  #requestKinds(e: PausedRequest, mainFrame: boolean): AskKind[] {
    const { kinds, asked, visited } = this.options;
    const out: AskKind[] = [];
    if (kinds.has('submit') && !asked.has('submit') && e.request.method === 'POST') out.push('submit');
    const origin = originOf(e.request.url);
    if (kinds.has('new-site') && mainFrame && origin && !visited.has(origin)) out.push('new-site');
    return out;
  }

  #responseKinds(e: PausedRequest): AskKind[] {
    const { kinds, asked } = this.options;
    if (!kinds.has('download') || asked.has('download')) return [];
    // A load that failed before its answer saves nothing.
    if (e.responseStatusCode === undefined) return [];
    return isDownload({ status: e.responseStatusCode, headers: e.responseHeaders ?? [] }) ? ['download'] : [];
  }
}

function isRedirect(e: PausedRequest): boolean {
  const status = e.responseStatusCode ?? 0;
  return status >= 300 && status < 400 && (e.responseHeaders ?? []).some((h) => h.name.toLowerCase() === 'location');
}
