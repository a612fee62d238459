// What a tab asked of the network, as an agent debugging a web app needs it: the last 1,000
// requests per tab (a ring: memory stays bounded however many a page makes), each with its
// status, type, size, time, cause and headers, failures with the browser's reason, and the
// navigation it belongs to (a list answers the current page's unless asked for all). Read from
// CDP's Network domain on a session of our own rather than Playwright's request events: those
// keep two objects per request alive on each side of Playwright's connection (measured: +200 MB
// for 10,000 requests). Bodies are not copied: Network.getResponseBody reads one when asked,
// while the browser still holds it. The session goes with the page.

import type { CDPSession, Page } from 'playwright-core';
import type Protocol from 'devtools-protocol';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type { NetworkDetail, NetworkEntry, NetworkQuery } from '../operations/network-operations';
import { seconds, within } from '../time-limit';

/** Requests kept per tab. */
export const NETWORK_KEPT = 1_000;
/** How long a new page waits for its request log to be listening before the agent's call goes on. */
const START_MS = 3_000;

/** Header pairs as the browser sent them. */
export type HeaderList = Array<{ name: string; value: string }>;

interface Kept {
  entry: NetworkEntry;
  /** CDP's id: a redirect chain shares it, so only the chain's latest entry is in `#live`. */
  requestId: string;
  /** Which main-frame navigation of the tab it came after (1 = the first seen). */
  nav: number;
  startedAt: number;
  requestHeaders: HeaderList;
  responseHeaders: HeaderList;
  postData?: string;
  hasPostData: boolean;
}

/** A request with what HAR needs beside the entry: both sides' headers, the POST body. */
export interface HarSource {
  entry: NetworkEntry;
  requestHeaders: HeaderList;
  responseHeaders: HeaderList;
  postData?: string;
}

const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|javascript|ecmascript|xml|[\w.+-]*\+xml|x-www-form-urlencoded|graphql))|^image\/svg\+xml/;

const pairs = (headers: Protocol.Network.Headers | undefined): HeaderList => Object.entries(headers ?? {}).map(([name, value]) => ({ name, value: String(value) }));

/** A status filter: "404", or a class as "4xx". */
function statusMatches(status: number | undefined, wanted: string): boolean {
  if (status === undefined) return false;
  const cls = wanted.match(/^([1-5])xx$/i)?.[1];
  return cls ? Math.floor(status / 100) === Number(cls) : String(status) === wanted;
}

/** What started a request, in a few words: "script https://…/app.js:12", "parser https://…/", "redirect". */
function initiatorOf(initiator: Protocol.Network.Initiator): string {
  const frame = initiator.stack?.callFrames[0];
  const where = initiator.url ?? (frame ? `${frame.url}:${frame.lineNumber + 1}` : undefined);
  return where ? `${initiator.type} ${where}` : initiator.type;
}

export class NetworkLog {
  readonly #kept: Kept[] = [];
  /** The latest entry of each request id still in the ring. */
  readonly #live = new Map<string, Kept>();
  #count = 0;
  #nav = 0;
  #session: CDPSession | undefined;
  /** Resolves once the log listens (or could not: then it stays empty and says nothing). */
  readonly started: Promise<void>;

  constructor(
    page: Page,
    /** The page's target id: its main frame has the same id. */
    private readonly targetId: Promise<string>,
    log: Logger,
  ) {
    this.started = within(this.#start(page), START_MS, () => new Error(`not listening within ${seconds(START_MS)}`)).catch((error: Error) => {
      log.debug(`network log of ${page.url()}: ${error.message}`);
    });
  }

  async #start(page: Page): Promise<void> {
    const [session, mainFrame] = await Promise.all([page.context().newCDPSession(page), this.targetId]);
    this.#session = session;
    session.on('Network.requestWillBeSent', (e) => this.#sent(e, mainFrame));
    session.on('Network.responseReceived', (e) => this.#answered(e.requestId, e.response, e.type));
    session.on('Network.loadingFinished', (e) => this.#finished(e));
    session.on('Network.loadingFailed', (e) => this.#failed(e));
    await session.send('Network.enable', {});
  }

  #sent(e: Protocol.Network.RequestWillBeSentEvent, mainFrame: string): void {
    const previous = this.#live.get(e.requestId);
    if (previous && e.redirectResponse) {
      // A redirect: the hop so far ends with its 30x; the next hop is a new entry with the same id.
      this.#answered(e.requestId, e.redirectResponse, e.type);
      delete previous.entry.pending;
      previous.entry.durationMs = Math.round(Date.now() - previous.startedAt);
    }
    // A new document in the tab's main frame starts a new page's list (its redirects do not).
    if (e.type === 'Document' && e.frameId === mainFrame && !e.redirectResponse) this.#nav++;
    const type = (e.type ?? 'Other').toLowerCase();
    const kept: Kept = {
      entry: { id: `n${++this.#count}`, url: e.request.url, method: e.request.method, type, startedAt: new Date(e.wallTime * 1000).toISOString(), initiator: e.redirectResponse ? `redirect ${previous?.entry.url ?? ''}`.trim() : initiatorOf(e.initiator), pending: true },
      requestId: e.requestId,
      nav: this.#nav,
      startedAt: Date.now(),
      requestHeaders: pairs(e.request.headers),
      responseHeaders: [],
      hasPostData: e.request.hasPostData === true,
      ...(e.request.postData !== undefined ? { postData: e.request.postData } : {}),
    };
    this.#kept.push(kept);
    this.#live.set(e.requestId, kept);
    if (this.#kept.length > NETWORK_KEPT) {
      for (const gone of this.#kept.splice(0, this.#kept.length - NETWORK_KEPT)) if (this.#live.get(gone.requestId) === gone) this.#live.delete(gone.requestId);
    }
  }

  #answered(requestId: string, response: Protocol.Network.Response, type: string | undefined): void {
    const kept = this.#live.get(requestId);
    if (!kept) return;
    const { entry } = kept;
    entry.status = response.status;
    entry.statusText = response.statusText;
    if (response.mimeType) entry.mimeType = response.mimeType;
    if (type) entry.type = type.toLowerCase();
    if (response.fromDiskCache || response.fromPrefetchCache) entry.fromCache = true;
    if (response.fromServiceWorker) entry.fromServiceWorker = true;
    kept.responseHeaders = pairs(response.headers);
  }

  #finished(e: Protocol.Network.LoadingFinishedEvent): void {
    const kept = this.#live.get(e.requestId);
    if (!kept) return;
    delete kept.entry.pending;
    kept.entry.bytes = Math.round(e.encodedDataLength);
    kept.entry.durationMs = Math.round(Date.now() - kept.startedAt);
  }

  #failed(e: Protocol.Network.LoadingFailedEvent): void {
    const kept = this.#live.get(e.requestId);
    if (!kept) return;
    delete kept.entry.pending;
    kept.entry.failed = true;
    kept.entry.errorText = e.errorText || (e.canceled ? 'canceled' : 'failed');
    kept.entry.durationMs = Math.round(Date.now() - kept.startedAt);
  }

  /** The kept requests the query asks for, oldest first, the newest `limit`. */
  list(query: NetworkQuery): NetworkEntry[] {
    const types = query.type ? new Set<string>(query.type) : undefined;
    const filter = query.filter?.toLowerCase();
    const chosen = this.#kept.filter(({ entry, nav }) => {
      if (!query.all && nav !== this.#nav) return false;
      if (filter && !entry.url.toLowerCase().includes(filter)) return false;
      if (types && !types.has(entry.type)) return false;
      if (query.status && !statusMatches(entry.status, query.status)) return false;
      if (query.failed && !entry.failed && !(entry.status !== undefined && entry.status >= 400)) return false;
      return true;
    });
    return chosen.slice(-query.limit).map(({ entry }) => ({ ...entry }));
  }

  /** How many requests are kept, and how many the tab made since it was first seen. */
  counts(): { kept: number; seen: number } {
    return { kept: this.#kept.length, seen: this.#count };
  }

  #get(id: string): Kept {
    const kept = this.#kept.find((k) => k.entry.id === id);
    if (!kept) throw new ClawdError('request_unknown', `no request ${id} is kept for this tab (the last ${NETWORK_KEPT} are): list them with network`);
    return kept;
  }

  async #postData(kept: Kept): Promise<string | undefined> {
    if (kept.postData !== undefined || !kept.hasPostData || !this.#session) return kept.postData;
    // A large body is not in the event: the browser gives it on request while it has it.
    return this.#session.send('Network.getRequestPostData', { requestId: kept.requestId }).then(
      (r) => r.postData,
      () => undefined,
    );
  }

  /** One request with both sides' headers and its body, read from the browser now. */
  async detail(id: string, cut: { maxChars: number; maxBytes: number }): Promise<NetworkDetail> {
    const kept = this.#get(id);
    const { entry } = kept;
    const detail: NetworkDetail = { ...entry, requestHeaders: kept.requestHeaders, responseHeaders: kept.responseHeaders };
    const postData = await this.#postData(kept);
    if (postData !== undefined) detail.postData = postData.length > cut.maxChars ? postData.slice(0, cut.maxChars) : postData;
    if (entry.failed) return { ...detail, bodyError: `the request failed (${entry.errorText}): there is no body` };
    if (entry.pending) return { ...detail, bodyError: 'it has not finished loading yet' };
    if (entry.status !== undefined && entry.status >= 300 && entry.status < 400) return { ...detail, bodyError: 'a redirect has no body' };
    // Only the chain's latest hop is the one the browser can give the body of.
    if (this.#live.get(kept.requestId) !== kept || !this.#session) return { ...detail, bodyError: 'the browser no longer has its body' };
    let answer: { body: string; base64Encoded: boolean };
    try {
      answer = await this.#session.send('Network.getResponseBody', { requestId: kept.requestId });
    } catch (error) {
      const why = (error as Error).message.split('\n')[0]!.replace(/^[\w.]+: /, '');
      return { ...detail, bodyError: `the browser no longer has its body (${why.slice(0, 160)}): it keeps the bodies of the current page while it can` };
    }
    const bytes = answer.base64Encoded ? Buffer.from(answer.body, 'base64') : Buffer.from(answer.body, 'utf8');
    detail.bodyBytes = bytes.length;
    if (TEXTUAL.test(entry.mimeType ?? '')) {
      const text = bytes.toString('utf8');
      detail.body = text.length > cut.maxChars ? text.slice(0, cut.maxChars) : text;
      detail.bodyEncoding = 'text';
      if (text.length > cut.maxChars) detail.truncated = true;
    } else {
      detail.body = bytes.subarray(0, cut.maxBytes).toString('base64');
      detail.bodyEncoding = 'base64';
      if (bytes.length > cut.maxBytes) detail.truncated = true;
    }
    return detail;
  }

  /** The entries with what HAR needs beside them. */
  async harSources(entries: NetworkEntry[]): Promise<HarSource[]> {
    return Promise.all(
      entries.map(async (entry) => {
        const kept = this.#get(entry.id);
        const postData = await this.#postData(kept);
        return { entry, requestHeaders: kept.requestHeaders, responseHeaders: kept.responseHeaders, ...(postData !== undefined ? { postData } : {}) };
      }),
    );
  }
}
