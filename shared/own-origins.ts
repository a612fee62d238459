// clawd's own addresses: every port it listens on (the relay, the control API with the live view,
// the managed profiles' CDP ports), on each loopback host the server's Host check lets in
// (127.0.0.1, localhost, [::1]; every other spelling of them — 2130706433, 0.0.0.0, a.localhost,
// [::ffff:7f00:1], a trailing dot — is folded into these by shared/host-spelling.ts). No agent's
// page may load them, on any profile, whatever the policy says: a tab on clawd's own origin would
// carry whatever the person's browser holds there (the live view's session). For the same reason the live view's cookie is never shown to, or set
// by, a client. Shared: the relay, the managed guard and the extension's rules use the same list.

import { canonicalHost } from './host-spelling';

/** The origin patterns (shared/origin-policy.ts syntax) of clawd's listeners on these ports. */
export function ownOrigins(ports: readonly number[]): string[] {
  return [...new Set(ports)]
    .filter((port) => Number.isInteger(port) && port > 0 && port < 65536)
    .flatMap((port) => [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
}

/** The live view's session cookie names begin so (view-auth.ts: `clawd_view_<port>`). */
export const VIEW_COOKIE_PREFIX = 'clawd_view_';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A cookie of clawd's own (the live view's session, on a loopback host): no client sees or sets it. */
export function isClawdCookie(cookie: { name?: string; domain?: string; url?: string }): boolean {
  if (!cookie.name?.startsWith(VIEW_COOKIE_PREFIX)) return false;
  let host = cookie.domain === undefined ? undefined : canonicalHost(cookie.domain.replace(/^\./, ''));
  if (host === undefined && cookie.url !== undefined) {
    try {
      host = canonicalHost(new URL(cookie.url).hostname);
    } catch {
      return true; // a cookie with that name and no readable host: not let through
    }
  }
  return host === undefined || LOOPBACK_HOSTS.has(host);
}
