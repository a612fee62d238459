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
