// Who may open the live view. `clawd view` (holding the token) asks for a one-time code; the
// link it prints carries the code in its #fragment, which browsers never send to a server, put
// in a Referer or log. The page trades the code (POST /view/login, once, within a minute) for a
// view session: an HttpOnly, SameSite=Strict cookie, so page scripts never see it and other
// sites cannot ride it. The token itself never reaches the browser.
// Expiry is checked on use: no timers to own.

import { mintSecret, OneTimeCodes } from '../http/one-time-codes';

const VIEW_COOKIE = 'clawd_view';
const CODE_TTL_MS = 60_000;
/** The longest a code may wait: a hand-over's link lives as long as the hand-over, at most this. */
const MAX_CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;

export class ViewAuth {
  readonly #codes: OneTimeCodes;
  // session id → expiry; removed when found expired or on close().
  readonly #sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {
    this.#codes = new OneTimeCodes(CODE_TTL_MS, MAX_CODE_TTL_MS, 100, now);
  }

  /** A code that opens one view session, once, within a minute (or `ttlMs`, at most 10 minutes). */
  code(ttlMs = CODE_TTL_MS): { code: string; expiresInMs: number } {
    return this.#codes.mint(ttlMs);
  }

  /** Trades a code for a session id; undefined when the code is unknown, used or expired. */
  redeem(code: string): { session: string; maxAgeSeconds: number } | undefined {
    if (!this.#codes.redeem(code)) return undefined;
    const session = mintSecret();
    this.#sessions.set(session, this.now() + SESSION_TTL_MS);
    return { session, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  /** True when the request's Cookie header carries a live view session. */
  hasSession(cookieHeader: string | undefined): boolean {
    const session = cookieOf(cookieHeader, VIEW_COOKIE);
    if (session === undefined) return false;
    const expires = this.#sessions.get(session);
    if (expires === undefined) return false;
    if (this.now() > expires) {
      this.#sessions.delete(session);
      return false;
    }
    return true;
  }

  close(): void {
    this.#codes.clear();
    this.#sessions.clear();
  }
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export function sessionCookie(session: string, maxAgeSeconds: number): string {
  return `${VIEW_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}
