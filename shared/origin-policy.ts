// Which sites an agent may reach: a profile's origin policy (config `browser.policy`, or the
// profile's own `browser.profiles.<name>.policy`, which replaces it). Patterns are origins with
// wildcards — `https://*.example.com` (the domain and its subdomains), `http://localhost:*` (any
// port), `https://example.com:8443`, `*://intranet` (http and https), `file://` — and a pattern
// without a port means the scheme's default port, as an origin does. Block wins over allow; with
// an allow list, everything else is blocked. Pages with no server behind them (about:blank,
// about:srcdoc, data:) are always allowed; a blob: URL is judged by the origin inside it;
// WebSocket URLs by the http(s) origin they stand for. Pure, and shared: the relay and the
// extension judge a URL the same way.

import { canonicalHost, hostRegex, hostUrlPatterns, USERINFO_REGEX } from './host-spelling';
import { isClawdCookie } from './own-origins';

export interface PolicyConfig {
  allow?: string[];
  block?: string[];
  /**
   * clawd's own addresses (shared/own-origins.ts), blocked before anything else whatever the
   * person's rules say. Set by the server, never read from config.json.
   */
  own?: string[];
}

interface Pattern {
  /** As written in the config, for messages. */
  text: string;
  schemes: string[];
  /** '*' any host; '*.example.com' the domain and below; else exact (lowercase, punycode, IPv6 in brackets). */
  host: string;
  /** '*' any port; '' the scheme's default. */
  port: string;
}

export type Verdict = { allowed: true } | { allowed: false; rule: string; reason: string };

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };
const ALWAYS_ALLOWED = new Set(['about:blank', 'about:srcdoc']);

/** A pattern checked, or a message saying what is wrong with it (config errors name it). */
export function parsePattern(text: string): Pattern | string {
  if (text === 'file://' || text === 'file://*') return { text, schemes: ['file:'], host: '*', port: '*' };
  const match = text.match(/^(\*|https?):\/\/(\*|\*\.[^/:]+|\[[0-9a-fA-F:.]+\]|[^/:*[\]]+)(?::(\*|\d{1,5}))?$/);
  if (!match)
    return `"${text}" is not an origin pattern: write scheme://host[:port], e.g. https://*.example.com or http://localhost:*`;
  const [, scheme, host, port = ''] = match;
  if (port !== '' && port !== '*' && Number(port) > 65535) return `"${text}": port ${port} is out of range`;
  let normalHost = host!;
  if (host !== '*') {
    const bare = host!.startsWith('*.') ? host!.slice(2) : host!;
    try {
      // The URL parser writes the host as the browser does (lowercase, IDN as punycode), then
      // the one spelling every enforcer compares (shared/host-spelling.ts).
      const written = canonicalHost(new URL(`http://${bare}`).hostname);
      normalHost = host!.startsWith('*.') ? `*.${written}` : written;
    } catch {
      return `"${text}": ${bare} is not a host name`;
    }
  }
  return { text, schemes: scheme === '*' ? ['http:', 'https:'] : [`${scheme}:`], host: normalHost, port };
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) {
    const domain = pattern.slice(2);
    return host === domain || host.endsWith(`.${domain}`);
  }
  return pattern === host;
}

function matches(pattern: Pattern, url: URL): boolean {
  const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
  if (!pattern.schemes.includes(scheme)) return false;
  if (scheme === 'file:') return true;
  if (!hostMatches(pattern.host, canonicalHost(url.hostname))) return false;
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : url.port;
  return pattern.port === '*' || (pattern.port === '' ? port === DEFAULT_PORTS[scheme] : pattern.port === port);
}

/**
 * A checked pattern as a regular expression over whole URLs, in the RE2 dialect Chrome's
 * declarativeNetRequest takes: the same URLs `check` would match with it (WebSockets included).
 */
export function patternRegex(text: string): string {
  const pattern = parsePattern(text);
  if (typeof pattern === 'string') throw new Error(pattern);
  if (pattern.schemes.includes('file:')) return '^file://';
  const schemes =
    pattern.schemes.length === 2 ? '(https?|wss?)' : pattern.schemes[0] === 'https:' ? '(https|wss)' : '(http|ws)';
  // Chrome writes a URL without its scheme's default port; user information is not the host.
  const port = pattern.port === '*' ? '(:[0-9]+)?' : pattern.port === '' ? '' : `:${pattern.port}`;
  return `^${schemes}://${USERINFO_REGEX}${hostRegex(pattern.host)}${port}([/?#]|$)`;
}

/**
 * A checked pattern as URLPatterns over WebSocket URLs (ws: for http, wss: for https), in the
 * syntax Chrome's network-conditions rules take: every spelling of the host.
 */
export function patternSocketUrls(text: string): string[] {
  const pattern = parsePattern(text);
  if (typeof pattern === 'string') throw new Error(pattern);
  if (pattern.schemes.includes('file:')) return [];
  const schemes = pattern.schemes.length === 2 ? 'ws{s}?' : pattern.schemes[0] === 'https:' ? 'wss' : 'ws';
  // A scheme's default port is written as none.
  const port = pattern.port === '*' ? ':*' : pattern.port === '' ? '' : `:${pattern.port}`;
  return hostUrlPatterns(pattern.host).map((host) => `${schemes}://${host}${port}/*`);
}

/**
 * The policy as network-conditions rules for WebSockets, first match wins (CDP
 * Network.emulateNetworkConditionsByRule): clawd's own and the blocked origins offline, then
 * the allowed ones as they are, then, with an allow list, every other WebSocket offline. What
 * the browser enforces outside the page, where request interception does not see WebSockets.
 */
export function socketConditions(config: PolicyConfig): Array<{ urlPattern: string; offline: boolean }> {
  const rules: Array<{ urlPattern: string; offline: boolean }> = [];
  for (const text of [...(config.own ?? []), ...(config.block ?? [])])
    for (const urlPattern of patternSocketUrls(text)) rules.push({ urlPattern, offline: true });
  if (config.allow) {
    for (const text of config.allow)
      for (const urlPattern of patternSocketUrls(text)) rules.push({ urlPattern, offline: false });
    rules.push({ urlPattern: 'ws{s}?://*:*/*', offline: true });
  }
  return rules;
}

/** A URL's origin (`https://example.com`), or undefined for one that has none (about:blank, data:, not a URL). */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

export class OriginPolicy {
  readonly #allow: Pattern[] | undefined;
  readonly #block: Pattern[];
  readonly #own: Pattern[];

  /** Throws a message naming the bad pattern; `where` says which config key it came from. `config` is kept as given. */
  constructor(
    readonly config: PolicyConfig,
    where = 'browser.policy',
  ) {
    const parse = (list: string[] | undefined, key: string) =>
      list?.map((text) => {
        const pattern = parsePattern(text);
        if (typeof pattern === 'string') throw new Error(`${where}.${key}: ${pattern}`);
        return pattern;
      });
    this.#allow = parse(config.allow, 'allow');
    this.#block = parse(config.block, 'block') ?? [];
    this.#own = parse(config.own, 'own') ?? [];
  }

  /** No rule at all: nothing to enforce (and nothing to intercept). */
  get empty(): boolean {
    return this.#allow === undefined && this.#block.length === 0 && this.#own.length === 0;
  }

  /** Only clawd's own addresses to keep out (the person set no rule): only loopback requests need judging. */
  get ownOnly(): boolean {
    return this.#allow === undefined && this.#block.length === 0;
  }

  /** Whether a URL may be loaded, and when not, the rule that says so. */
  check(raw: string): Verdict {
    if (ALWAYS_ALLOWED.has(raw) || raw.startsWith('data:')) return { allowed: true };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { allowed: false, rule: '(not a URL)', reason: `${JSON.stringify(raw)} is not a URL` };
    }
    if (url.protocol === 'blob:') return this.check(url.pathname);
    if (url.protocol === 'about:') return { allowed: true };
    const origin = url.protocol === 'file:' ? 'file://' : url.origin;
    const own = this.#own.find((p) => matches(p, url));
    if (own)
      return {
        allowed: false,
        rule: "clawd's own address",
        reason: `${origin} is clawd's own address: never a page for agents`,
      };
    const blocked = this.#block.find((p) => matches(p, url));
    if (blocked)
      return {
        allowed: false,
        rule: `block ${blocked.text}`,
        reason: `${origin} is blocked by the rule block ${blocked.text}`,
      };
    if (this.#allow && !this.#allow.some((p) => matches(p, url))) {
      const list = this.#allow.map((p) => p.text).join(', ');
      return {
        allowed: false,
        rule: `allow ${list}`,
        reason: `${origin} is not in the allowed origins (${list || 'none'})`,
      };
    }
    return { allowed: true };
  }

  /**
   * Whether a cookie may be shown to (or set by) a client. A cookie travels to its host on every
   * port, over each scheme it may (https only when Secure) — and a domain cookie (`.bank.test`) to
   * every host below its domain too. It is hidden when a block rule names any host it travels to,
   * or when an allow list names none of them.
   */
  cookieVerdict(cookie: { domain: string; secure?: boolean; name?: string }): Verdict {
    // The live view's session (the person's) is clawd's own: never shown to a client, never set by one.
    if (this.#own.length > 0 && isClawdCookie(cookie))
      return {
        allowed: false,
        rule: "clawd's own address",
        reason: "the live view's session cookie is clawd's own: never shown to, or set by, a client",
      };
    const domainWide = cookie.domain.startsWith('.');
    const raw = cookie.domain.replace(/^\./, '').toLowerCase();
    const schemes = cookie.secure ? ['https:'] : ['http:', 'https:'];
    let host: string;
    try {
      host = canonicalHost(new URL(`https://${raw}/`).hostname);
    } catch {
      return {
        allowed: false,
        rule: '(not a host)',
        reason: `the cookie's domain ${JSON.stringify(cookie.domain)} is not a host`,
      };
    }
    const below = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);
    // Does the pattern's host name a host the cookie travels to?
    const reaches = (pattern: string) => {
      if (hostMatches(pattern, host)) return true;
      if (!domainWide) return false;
      const named = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
      return pattern === '*' || below(named, host);
    };
    const names = (p: Pattern) => schemes.some((s) => p.schemes.includes(s)) && reaches(p.host);
    const blocked = this.#block.find(names);
    if (blocked)
      return {
        allowed: false,
        rule: `block ${blocked.text}`,
        reason: `cookies of ${host} are hidden by the rule block ${blocked.text}`,
      };
    if (this.#allow && !this.#allow.some(names)) {
      const list = this.#allow.map((p) => p.text).join(', ');
      return {
        allowed: false,
        rule: `allow ${list}`,
        reason: `cookies of ${host} are hidden: it is not in the allowed origins (${list || 'none'})`,
      };
    }
    return { allowed: true };
  }
}
