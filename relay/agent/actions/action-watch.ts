// Asks decided by what happens: while an agent's call changes a tab, the tab's document requests
// are paused at the browser (CDP Fetch, on a session of clawd's own that the tab's watches
// share: fetch-hold.ts) and judged before they go —
// a form sent (a document POST: whatever sent it, a key, a label, a script), a load of a site
// the session has not been on (a link, a redirect hop, a script's navigation), a file the answer
// makes a download (Content-Disposition: attachment). The page cannot reach any of it: it is the
// browser's request, not the page's word. The gate (tab-gate.ts) still asks before the call where
// the call itself tells (a submit button, navigate's URL); what it asked is not asked again.
// A question waits within the call's bound; Deny fails the request (the server never sees a
// form, the browser saves no file) and the call answers person_declined.

import type { Page } from 'playwright-core';
import type { AskKind } from '../../../shared/ask-kinds';
import { originOf } from '../../../shared/origin-policy';
import { FetchHold, type HoldMember, type PausedRequest } from './fetch-hold';

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

/** After the call's work: how long a navigation it started (a script's, a redirect's next hop) may take to show. */
const GRACE_MS = 250;
/** The most the call waits after its work for the loads it started to answer (their next hop judged). */
const SETTLE_MS = 10_000;

export class ActionWatch {
  /** The first refusal (Deny, no answer): the call answers it. */
  #refused: Error | undefined;
  /** Questions still open: the call waits for them before it answers. */
  readonly #pending = new Set<Promise<void>>();
  #hold: HoldMember | undefined;
  #closed = false;
  /** Document loads started and not answered yet (by network id: a redirect's hops share it). */
  readonly #loading = new Set<string>();

  private constructor(private readonly options: WatchOptions) {}

  /**
   * Holds the page's document requests until stop() (with the tab's other watches: fetch-hold.ts);
   * refuses (throws) when it cannot watch.
   */
  static async start(page: Page, options: WatchOptions): Promise<ActionWatch> {
    const watch = new ActionWatch(options);
    watch.#hold = await FetchHold.join(page, {
      judge: (paused) => watch.#judge(paused),
      // Another watch's refusal stopped a load: if this call started it, it answers that refusal too.
      failed: (paused, error) => {
        if (watch.#loading.delete(paused.networkId ?? paused.requestId)) watch.#refused ??= error;
      },
    });
    return watch;
  }

  /**
   * Waits for what the call started: a load that shows within GRACE_MS, the loads in flight until
   * they answer (a redirect's next hop is judged on the way), the questions still open. Then stops
   * watching and throws the first refusal.
   */
  async stop(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
    const until = Date.now() + Math.min(SETTLE_MS, this.options.left());
    while ((this.#loading.size > 0 || this.#pending.size > 0) && Date.now() < until && !this.#refused) {
      if (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    this.#closed = true;
    await this.#hold?.leave();
    if (this.#refused) throw this.#refused;
  }

  /** Every paused request of the tab: undefined lets it go (for this watch), else the person's answer. */
  #judge(e: PausedRequest): Promise<void> | undefined {
    const atResponse = e.responseStatusCode !== undefined || e.responseErrorReason !== undefined;
    const load = e.networkId ?? e.requestId;
    if (atResponse) this.#loading.delete(load);
    else this.#loading.add(load);
    const kinds = atResponse ? this.#responseKinds(e) : this.#requestKinds(e);
    if (kinds.length === 0 || this.#closed) return undefined;
    const what = `${kinds.includes('submit') ? `${e.request.method} ` : ''}${e.request.url}`;
    const judged = this.options.ask(kinds, e.request.url, what).then(
      () => {
        const origin = originOf(e.request.url);
        if (origin && kinds.includes('new-site')) this.options.visited.add(origin);
      },
      (error: unknown) => {
        this.#loading.delete(load);
        this.#refused ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      },
    );
    const settled: Promise<void> = judged
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
    return judged;
  }

  #requestKinds(e: PausedRequest): AskKind[] {
    const { kinds, asked, visited } = this.options;
    const out: AskKind[] = [];
    if (kinds.has('submit') && !asked.has('submit') && e.request.method === 'POST') out.push('submit');
    const origin = originOf(e.request.url);
    if (kinds.has('new-site') && e.frameId === this.#hold?.mainFrame && origin && !visited.has(origin))
      out.push('new-site');
    return out;
  }

  #responseKinds(e: PausedRequest): AskKind[] {
    const { kinds, asked } = this.options;
    if (!kinds.has('download') || asked.has('download')) return [];
    const disposition = e.responseHeaders?.find((h) => h.name.toLowerCase() === 'content-disposition')?.value ?? '';
    return /^\s*attachment/i.test(disposition) ? ['download'] : [];
  }
}
