// One spelling of a host: what every enforcer compares (the relay, the agent API, the managed
// guard, the extension's browser rules), so a rule written once holds however a URL spells the
// host. The URL parser already writes case, IDN (as punycode), percent-encoding and the IPv4 forms
// (decimal, octal, hex, short) one way; it keeps what the network ignores, which is done here: a
// trailing dot, an IPv4 address written as IPv6, `*.localhost` (the browser resolves it to
// loopback itself) and the unspecified addresses (0.0.0.0 and [::] reach a loopback listener).

/** The host every rule compares, from a URL's `hostname` (already parsed by the URL parser). */
export function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost';
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '[::]') return '[::1]';
  const mapped = host.match(/^\[::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))\]$/);
  if (mapped) {
    if (mapped[3]) return mapped[3];
    const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return host;
}

/** A URL's host in its one spelling, or undefined when the text is not a URL with a host. */
export function hostOfUrl(url: string): string | undefined {
  try {
    const hostname = new URL(url).hostname;
    return hostname === '' ? undefined : canonicalHost(hostname);
  } catch {
    return undefined;
  }
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** One label of a host name as a URL writes it. */
const LABEL = '[^/:?#@.[\\]]+';

/**
 * Every way a URL as the browser writes it (case, IDN and IPv4 forms already made one) can spell
 * the canonical `host`, as an RE2 regular expression (Chrome's declarativeNetRequest dialect): a
 * trailing dot, and for loopback the aliases canonicalHost folds into it. `*.` before a domain
 * means the domain and its subdomains; `*` any host.
 */
export function hostRegex(host: string): string {
  if (host === '*') return `(\\[[0-9a-f:.]+\\]|${LABEL}(\\.${LABEL})*\\.*)`;
  if (host.startsWith('*.')) return `(${LABEL}\\.)*${escapeRegex(host.slice(2))}\\.*`;
  const spellings = [`${escapeRegex(host)}\\.*`];
  if (host === 'localhost') spellings.push(`(${LABEL}\\.)+localhost\\.*`);
  if (host === '127.0.0.1') spellings.push('0\\.0\\.0\\.0\\.*');
  if (host === '[::1]') spellings.push('\\[::\\]');
  const v4 = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    spellings.push(`\\[::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}\\]`);
  }
  return spellings.length === 1 ? spellings[0]! : `(${spellings.join('|')})`;
}

/** What may stand between a URL's `//` and its host: user information (`x@`), never part of the host. */
export const USERINFO_REGEX = '([^/?#@]*@)?';

/**
 * The hostname parts of URLPatterns (https://urlpattern.spec.whatwg.org/) that match every
 * spelling of the canonical `host` a URL can carry (the browser's network-conditions rules take
 * them): a trailing dot, and for loopback the aliases canonicalHost folds into it.
 */
export function hostUrlPatterns(host: string): string[] {
  // URLPattern's own syntax characters, written as themselves.
  const escape = (text: string) => text.replace(/[:*(){}?+\\[\]]/g, (c) => `\\${c}`);
  if (host === '*') return ['*'];
  if (host.startsWith('*.')) return [`{*.}?${escape(host.slice(2))}{.}?`];
  if (host === 'localhost') return ['{*.}?localhost{.}?'];
  const patterns = [host.startsWith('[') ? escape(host) : `${escape(host)}{.}?`];
  if (host === '127.0.0.1') patterns.push('0.0.0.0');
  if (host === '[::1]') patterns.push(escape('[::]'));
  const v4 = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    patterns.push(escape(`[::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}]`));
  }
  return patterns;
}
