// Which CDP commands read or set cookies, for the origin policy: a client is never shown a cookie
// of a host the person's policy blocks, and may not set one, whichever session asks (the browser
// session's Storage.*, a page's Network.* or Storage.*). Measured: a tab's session answers these
// for the browser's whole cookie store, so one attached tab would otherwise show every site's.

/** A cookie as Network.setCookie(s) and Storage.setCookies take it: a domain, or a URL it is for. */
export interface CookieToSet {
  name?: string;
  domain?: string;
  url?: string;
  secure?: boolean;
}

/** What judges which cookies a client is shown (relay-policy.ts). */
interface CookieFilter {
  visibleCookies<C extends { domain: string; secure?: boolean; name?: string }>(cookies: readonly C[]): C[];
}

/** Commands whose result is `{ cookies: [...] }` of the whole store or of some URLs. */
const COOKIE_READS = new Set(['Storage.getCookies', 'Network.getAllCookies', 'Network.getCookies']);

export function readsCookies(method: string): boolean {
  return COOKIE_READS.has(method);
}

/** The cookies a command would set, or undefined when it sets none. */
export function cookiesToSet(method: string, params: Record<string, unknown>): CookieToSet[] | undefined {
  switch (method) {
    case 'Storage.setCookies':
    case 'Network.setCookies':
      return Array.isArray(params.cookies) ? (params.cookies as CookieToSet[]) : [];
    case 'Network.setCookie':
      return [params as CookieToSet];
    default:
      return undefined;
  }
}

/** The host a cookie to set is for: its domain, else its URL's host; undefined when it has neither. */
export function cookieDomain(cookie: CookieToSet): string | undefined {
  if (cookie.domain !== undefined) return cookie.domain;
  try {
    return cookie.url === undefined ? undefined : new URL(cookie.url).hostname;
  } catch {
    return undefined;
  }
}

/** A cookie read's result with what the policy hides left out. */
export function visibleCookieResult(policy: CookieFilter, result: unknown): unknown {
  const cookies = (result as { cookies?: unknown } | undefined)?.cookies;
  if (!Array.isArray(cookies)) return result;
  return {
    ...(result as object),
    cookies: policy.visibleCookies(cookies as Array<{ domain: string; secure?: boolean; name?: string }>),
  };
}

/**
 * Who sees what of the cookies an event carries: `visible` judges one cookie by its domain (the
 * origin policy's cookieVerdict); `none` hides every cookie and credential (the person asked to
 * be asked before a raw client reads cookies: the events cannot ask, Network.getCookies can).
 */
export interface CookieJudge {
  visible(cookie: { domain: string; secure?: boolean; name?: string }): boolean;
  /** Some cookie may be hidden (the person has rules): else only `none` hides anything. */
  hidesSome: boolean;
  none: boolean;
}

/** Events that carry cookies or credentials: request and response headers, cookie lists. */
const COOKIE_EVENTS = new Set([
  'Network.requestWillBeSent',
  'Network.requestWillBeSentExtraInfo',
  'Network.responseReceived',
  'Network.responseReceivedExtraInfo',
  'Network.webSocketWillSendHandshakeRequest',
  'Network.webSocketHandshakeResponseReceived',
]);

export function carriesCookies(method: string): boolean {
  return COOKIE_EVENTS.has(method);
}

const CREDENTIALS = new Set(['authorization', 'proxy-authorization']);
type Headers = Record<string, unknown>;
type Listed = { cookie?: { domain: string; secure?: boolean; name?: string; value?: string }; cookieLine?: string };

const HEADER_NAMES = /^(cookie|set-cookie|authorization|proxy-authorization)$/i;
const hasCredentialHeader = (headers: unknown) =>
  headers !== null && typeof headers === 'object' && Object.keys(headers).some((name) => HEADER_NAMES.test(name));

/** Whether an event's params may hold a cookie or a credential (read without copying anything). */
function mayCarry(params: Record<string, unknown>): boolean {
  if (['associatedCookies', 'blockedCookies', 'exemptedCookies'].some((k) => (params[k] as unknown[])?.length > 0))
    return true;
  const request = params.request as { headers?: unknown } | undefined;
  const response = params.response as { headers?: unknown; requestHeaders?: unknown } | undefined;
  return [params.headers, request?.headers, response?.headers, response?.requestHeaders].some(hasCredentialHeader);
}

/** The Domain attribute of a Set-Cookie line as a cookie domain (`.example.com`), or undefined (host-only). */
function setCookieDomain(line: string): { domain: string; secure: boolean } | undefined {
  const attributes = line.split(';').slice(1);
  const domain = attributes.map((a) => a.trim().match(/^domain\s*=\s*\.?(.+)$/i)?.[1]).find((d) => d !== undefined);
  if (domain === undefined) return undefined;
  return { domain: `.${domain.trim()}`, secure: attributes.some((a) => /^\s*secure\s*$/i.test(a)) };
}

/**
 * An event's params with what the judge hides left out: the cookies in its lists and headers
 * (Cookie pairs of hidden cookies, Set-Cookie lines for hidden domains), and with `none` every
 * cookie and credential header. The same object when nothing is hidden.
 */
export function cookieEventShown(
  method: string,
  params: Record<string, unknown>,
  judge: CookieJudge,
): Record<string, unknown> {
  // Most events carry nothing to hide, and most policies hide nothing: those pass untouched.
  if ((!judge.none && !judge.hidesSome) || !mayCarry(params)) return params;
  const shown = new ShownCookies(structuredClone(params), judge);
  const knowsPairs = shown.associatedCookies();
  shown.listedCookies();
  shown.headers(method, knowsPairs);
  if (!shown.changed) return params;
  return shown.withoutHeaderText();
}

/** One event's copy, filtered part by part; `changed` once anything was left out. */
class ShownCookies {
  changed = false;
  /** Cookie pairs (`name=value`) of the hidden cookies the event's list says were sent. */
  readonly #hiddenPairs = new Set<string>();

  constructor(
    readonly out: Record<string, unknown>,
    private readonly judge: CookieJudge,
  ) {}

  /**
   * Cookie pairs of a request: of hidden cookies (by name and value) when the list says which
   * were sent, else the whole header unless no domain it may hold is hidden. Says whether the
   * event has that list.
   */
  associatedCookies(): boolean {
    const { judge } = this;
    const associated = this.out.associatedCookies as Listed[] | undefined;
    if (!Array.isArray(associated)) return false;
    this.out.associatedCookies = associated.filter((a) => {
      if (a.cookie !== undefined && !judge.none && judge.visible(a.cookie)) return true;
      if (a.cookie) this.#hiddenPairs.add(`${a.cookie.name}=${a.cookie.value ?? ''}`);
      this.changed = true;
      return false;
    });
    return true;
  }

  listedCookies(): void {
    const { judge } = this;
    for (const list of ['blockedCookies', 'exemptedCookies'] as const) {
      const listed = this.out[list] as Listed[] | undefined;
      if (!Array.isArray(listed)) continue;
      this.out[list] = listed.filter((l) => {
        const domain = l.cookie ?? (l.cookieLine !== undefined ? setCookieDomain(l.cookieLine) : undefined);
        const keep = !judge.none && (domain === undefined || judge.visible(domain));
        if (!keep) this.changed = true;
        return keep;
      });
    }
  }

  /** The headers each event carries: a request's, a response's, or both. */
  headers(method: string, knowsPairs: boolean): void {
    const { out } = this;
    switch (method) {
      case 'Network.requestWillBeSentExtraInfo':
        this.#requestHeaders(out.headers as Headers, knowsPairs);
        break;
      case 'Network.requestWillBeSent':
        this.#requestHeaders((out.request as { headers?: Headers } | undefined)?.headers, false);
        break;
      case 'Network.webSocketWillSendHandshakeRequest':
        this.#requestHeaders((out.request as { headers?: Headers } | undefined)?.headers, false);
        break;
      case 'Network.responseReceivedExtraInfo':
        this.#responseHeaders(out.headers as Headers);
        break;
      case 'Network.responseReceived':
      case 'Network.webSocketHandshakeResponseReceived': {
        const response = out.response as { headers?: Headers; requestHeaders?: Headers } | undefined;
        this.#responseHeaders(response?.headers);
        this.#requestHeaders(response?.requestHeaders, false);
        break;
      }
    }
  }

  /** The raw header text says it all again: it goes when anything was hidden. */
  withoutHeaderText(): Record<string, unknown> {
    const { out } = this;
    delete out.headersText;
    const response = out.response as { headersText?: unknown; requestHeadersText?: unknown } | undefined;
    if (response) {
      delete response.headersText;
      delete response.requestHeadersText;
    }
    return out;
  }

  #requestHeaders(headers: Headers | undefined, knowsPairs: boolean): void {
    const { judge } = this;
    if (!headers) return;
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (CREDENTIALS.has(lower) && judge.none) {
        delete headers[name];
        this.changed = true;
      } else if (lower === 'cookie') {
        if (judge.none || !knowsPairs) {
          // Without the list of what was sent, a header is kept only while nothing is hidden at all.
          if (judge.none || judge.hidesSome) {
            delete headers[name];
            this.changed = true;
          }
          continue;
        }
        const pairs = String(headers[name])
          .split(/;\s*/)
          .filter((pair) => !this.#hiddenPairs.has(pair));
        if (pairs.length === 0) delete headers[name];
        else headers[name] = pairs.join('; ');
        if (this.#hiddenPairs.size > 0) this.changed = true;
      }
    }
  }

  #responseHeaders(headers: Headers | undefined): void {
    const { judge } = this;
    if (!headers) return;
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() !== 'set-cookie') continue;
      const lines = String(headers[name])
        .split('\n')
        .filter((line) => {
          if (judge.none) return false;
          const domain = setCookieDomain(line);
          return domain === undefined || judge.visible(domain);
        });
      if (lines.join('\n') !== String(headers[name])) this.changed = true;
      if (lines.length === 0) delete headers[name];
      else headers[name] = lines.join('\n');
    }
  }
}
