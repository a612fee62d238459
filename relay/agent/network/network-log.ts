// What a tab asked of the network, as an agent debugging a web app needs it: the last 1,000
// requests per tab (a ring: memory stays bounded however many a page makes), each with its
// status, type, size, time, cause and headers (and a POST body up to 64 KB), failures with the
// browser's reason, and the navigation it belongs to (a list answers the current page's unless
// asked for all). Read from CDP's Network domain on a session of our own rather than
// Playwright's request events: those keep two objects per request alive on each side of
// Playwright's connection (measured: +200 MB for 10,000 requests). Response bodies are not
// copied: Network.getResponseBody reads one when asked, while the browser still holds it (20 MB
// per tab, 5 MB a body, in this session's buffer). The page's own target only: a cross-site
// iframe's or a worker's requests are not in it. The session goes with the page.
// Kept whole (under the 400-line cap): the ring and every read of it (list, counts, detail, HAR
// sources) share the same entries.

import type { CDPSession, Page } from 'playwright-core';
import type Protocol from 'devtools-protocol';
import { ClawdError } from '../../errors';
import type { Logger } from '../../log';
import type { NetworkDetail, NetworkEntry, NetworkQuery } from '../../operations/network-operations';
import { currentMask } from '../../operations/secret-use';
import { seconds, within } from '../../time-limit';

/** Requests kept per tab. */
export const NETWORK_KEPT = 1_000;
/** How long a new page waits for its request log to be listening before the agent's call goes on. */
const START_MS = 3_000;
/** A POST body kept with its request up to this size; a larger one is asked of the browser when read. */
const KEPT_POST_DATA = 64 * 1024;
/**
 * What the browser keeps of response bodies for this session (its own buffer, beside the one
 * Playwright's session has): enough for an API's answers, bounded per tab.
 */
const BODY_BUFFER = {
  maxTotalBufferSize: 20 * 1024 * 1024,
  maxResourceBufferSize: 5 * 1024 * 1024,
  maxPostDataSize: KEPT_POST_DATA,
};

/** Header pairs as the browser sent them. */
export type HeaderList = Array<{ name: string; value: string }>;

interface Kept {
  entry: NetworkEntry;
  /** CDP's id: a redirect chain shares it, so only the chain's latest entry is in `#live`. */
  requestId: string;
  /** Which main-frame navigation of the tab it came after (1 = the first seen). */
  nav: number;
  startedAt: number;
  requestHeaders: Packed;
  responseHeaders?: Packed;
  /** Which sides' headers are as the network stack sent and got them (cookies included): preferred. */
  raw: { requestHeaders?: true; responseHeaders?: true };
  postData?: string;
  hasPostData: boolean;
}

/** Extra-info events that came before their request (Chrome sends them in either order), kept a while. */
const EARLY_KEPT = 200;

/** A request with what HAR needs beside the entry: both sides' headers, the POST body. */
export interface HarSource {
  entry: NetworkEntry;
  requestHeaders: HeaderList;
  responseHeaders: HeaderList;
  postData?: string;
}

const TEXTUAL =
  /^(text\/|application\/(json|[\w.+-]*\+json|javascript|ecmascript|xml|[\w.+-]*\+xml|x-www-form-urlencoded|graphql))|^image\/svg\+xml/;

/**
 * Headers packed into one string, each name and value followed by a NUL: every kept request
 * outlives many young collections, so what it holds is what a flood leaves for the old
 * generation to collect — one string a side, not an object and two strings a header.
 */
type Packed = string;

/** A NUL inside a name or value (HTTP allows none) would shift the pairs: it is replaced. */
const noNul = (text: string) => (text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);

export function pack(headers: Protocol.Network.Headers | undefined): Packed {
  const parts: string[] = [];
  for (const name in headers) parts.push(noNul(name), noNul(String(headers[name])), '');
  return parts.join('\0');
}

export function pairs(packed: Packed | undefined): HeaderList {
  const parts = (packed ?? '').split('\0');
  const list: HeaderList = [];
  for (let i = 0; i + 1 < parts.length; i += 3) list.push({ name: parts[i]!, value: parts[i + 1]! });
  return list;
}

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

/**
 * A credential's value as the network view and HAR show it: never the value (the storage export
 * is the door to cookies, asked when the person asks before it; an Authorization's is nobody's),
 * only what kind it was, so an agent can tell a request went signed in.
 */
export function credentialShown(name: string, value: string): string | undefined {
  switch (name.toLowerCase()) {
    case 'cookie': {
      const count = value.split(';').filter((pair) => pair.trim() !== '').length;
      return `(${count} cookie${count === 1 ? '' : 's'}, hidden: storage-export reads cookies)`;
    }
    case 'set-cookie': {
      const count = value.split('\n').filter((line) => line.trim() !== '').length;
      return `(${count} cookie${count === 1 ? '' : 's'} set, hidden: storage-export reads cookies)`;
    }
    case 'authorization':
    case 'proxy-authorization':
      return `${value.split(' ')[0]} (hidden)`;
    default:
      return undefined;
  }
}

const shownPairs = (headers: Packed | undefined): HeaderList =>
  pairs(headers).map(({ name, value }) => ({ name, value: credentialShown(name, value) ?? value }));

/** Both sides' headers, the network stack's own where Chrome gave them, credentials hidden. */
const headersOf = (kept: Kept) => ({
  requestHeaders: shownPairs(kept.requestHeaders),
  responseHeaders: shownPairs(kept.responseHeaders),
});

export class NetworkLog {
  readonly #kept: Kept[] = [];
  /** The latest entry of each request id still in the ring. */
  readonly #live = new Map<string, Kept>();
  readonly #early = new Map<string, { requestHeaders?: Packed; responseHeaders?: Packed }>();
  #count = 0;
  #nav = 0;
  #session: CDPSession | undefined;
  /** Listening: false until the session is up, and for good if it could not be. */
  #recording = false;
  /** Resolves once the log listens (or could not: then the list says it is not recording). */
  readonly started: Promise<void>;

  constructor(
    page: Page,
    /** The page's target id: its main frame has the same id. */
    private readonly targetId: Promise<string>,
    log: Logger,
  ) {
    const starting = this.#start(page);
    this.started = within(starting, START_MS, () => new Error(`not listening within ${seconds(START_MS)}`)).then(
      () => void (this.#recording = true),
      (error: Error) => {
        log.debug(`network log of ${page.url()}: ${error.message}`);
        // Late or failed: whatever session it got is let go, so nothing listens unseen.
        void starting.then(
          () => this.#session?.detach().catch(() => {}),
          () => {},
        );
        this.#session = undefined;
      },
    );
  }

  async #start(page: Page): Promise<void> {
    const [session, mainFrame] = await Promise.all([page.context().newCDPSession(page), this.targetId]);
    this.#session = session;
    session.on('Network.requestWillBeSent', (e) => this.#sent(e, mainFrame));
    session.on('Network.responseReceived', (e) => this.#answered(e.requestId, e.response, e.type));
    session.on('Network.loadingFinished', (e) => this.#finished(e));
    session.on('Network.loadingFailed', (e) => this.#failed(e));
    // The headers as the network stack sent and got them (cookies included), when Chrome tells.
    session.on('Network.requestWillBeSentExtraInfo', (e) => this.#extra(e.requestId, 'requestHeaders', e.headers));
    session.on('Network.responseReceivedExtraInfo', (e) => this.#extra(e.requestId, 'responseHeaders', e.headers));
    try {
      await session.send('Network.enable', BODY_BUFFER);
    } catch (error) {
      await session.detach().catch(() => {});
      throw error;
    }
  }

  #extra(requestId: string, side: 'requestHeaders' | 'responseHeaders', headers: Protocol.Network.Headers): void {
    const kept = this.#live.get(requestId);
    if (kept) {
      kept[side] = pack(headers);
      kept.raw[side] = true;
      return;
    }
    const early = this.#early.get(requestId) ?? {};
    early[side] = pack(headers);
    this.#early.set(requestId, early);
    if (this.#early.size > EARLY_KEPT) this.#early.delete(this.#early.keys().next().value!);
  }

  /** How many documents the tab's main frame has loaded, or undefined when not recording. */
  documents(): number | undefined {
    return this.#recording ? this.#nav : undefined;
  }

  /** Whether the list is being kept (the browser let clawd listen). */
  get recording(): boolean {
    return this.#recording;
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
    const early = this.#early.get(e.requestId);
    const kept: Kept = {
      entry: {
        id: `n${++this.#count}`,
        url: e.request.url,
        method: e.request.method,
        type,
        startedAt: new Date(e.wallTime * 1000).toISOString(),
        initiator: e.redirectResponse ? `redirect ${previous?.entry.url ?? ''}`.trim() : initiatorOf(e.initiator),
        pending: true,
      },
      requestId: e.requestId,
      nav: this.#nav,
      startedAt: Date.now(),
      requestHeaders: early?.requestHeaders ?? pack(e.request.headers),
      ...(early?.responseHeaders !== undefined ? { responseHeaders: early.responseHeaders } : {}),
      raw: {
        ...(early?.requestHeaders !== undefined ? { requestHeaders: true as const } : {}),
        ...(early?.responseHeaders !== undefined ? { responseHeaders: true as const } : {}),
      },
      hasPostData: e.request.hasPostData === true,
      ...(e.request.postData !== undefined && e.request.postData.length <= KEPT_POST_DATA
        ? { postData: e.request.postData }
        : {}),
    };
    this.#early.delete(e.requestId);
    this.#kept.push(kept);
    this.#live.set(e.requestId, kept);
    if (this.#kept.length > NETWORK_KEPT) {
      for (const gone of this.#kept.splice(0, this.#kept.length - NETWORK_KEPT))
        if (this.#live.get(gone.requestId) === gone) this.#live.delete(gone.requestId);
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
    if (response.protocol) entry.protocol = response.protocol;
    if (!kept.raw.responseHeaders) kept.responseHeaders = pack(response.headers);
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
    const mask = currentMask(); // a filter matches what the agent may read, never a secret in a URL
    const chosen = this.#kept.filter(({ entry, nav }) => {
      if (!query.all && nav !== this.#nav) return false;
      if (filter && !mask.text(entry.url).toLowerCase().includes(filter)) return false;
      if (types && !types.has(entry.type)) return false;
      if (query.status && !statusMatches(entry.status, query.status)) return false;
      if (query.failed && !entry.failed && !(entry.status !== undefined && entry.status >= 400)) return false;
      return true;
    });
    return chosen.slice(-query.limit).map(({ entry }) => ({ ...entry }));
  }

  /** How many requests are kept, and how many the tab made since it was first seen. */
  counts(): { kept: number; seen: number; recording: boolean } {
    return { kept: this.#kept.length, seen: this.#count, recording: this.#recording };
  }

  #get(id: string): Kept {
    const kept = this.#kept.find((k) => k.entry.id === id);
    if (!kept)
      throw new ClawdError(
        'request_unknown',
        `no request ${id} is kept for this tab (the last ${NETWORK_KEPT} are): list them with network`,
      );
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
    const detail: NetworkDetail = { ...entry, ...headersOf(kept) };
    // The call's secrets are masked before any cut: a cut never ends inside one.
    const mask = currentMask();
    const rawPostData = await this.#postData(kept);
    const postData = rawPostData === undefined ? undefined : mask.text(rawPostData);
    if (postData !== undefined)
      detail.postData = postData.length > cut.maxChars ? postData.slice(0, cut.maxChars) : postData;
    if (entry.failed) return { ...detail, bodyError: `the request failed (${entry.errorText}): there is no body` };
    if (entry.pending) return { ...detail, bodyError: 'it has not finished loading yet' };
    if (entry.status !== undefined && [301, 302, 303, 307, 308].includes(entry.status))
      return { ...detail, bodyError: 'a redirect has no body' };
    // Only the chain's latest hop is the one the browser can give the body of.
    if (this.#live.get(kept.requestId) !== kept || !this.#session)
      return { ...detail, bodyError: 'the browser no longer has its body' };
    let answer: { body: string; base64Encoded: boolean };
    try {
      answer = await this.#session.send('Network.getResponseBody', { requestId: kept.requestId });
    } catch (error) {
      const why = (error as Error).message.split('\n')[0]!.replace(/^[\w.]+: /, '');
      return {
        ...detail,
        bodyError: `the browser no longer has its body (${why.slice(0, 160)}): it keeps the bodies of the current page while it can`,
      };
    }
    const raw = answer.base64Encoded ? Buffer.from(answer.body, 'base64') : Buffer.from(answer.body, 'utf8');
    detail.bodyBytes = raw.length;
    const bytes = mask.bytes(raw);
    if (TEXTUAL.test(entry.mimeType ?? '')) {
      const text = mask.text(bytes.toString('utf8'));
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
        return { entry, ...headersOf(kept), ...(postData !== undefined ? { postData } : {}) };
      }),
    );
  }
}
