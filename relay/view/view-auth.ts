// Who may open the live view. `clawd view` (holding the token) asks for a one-time code; the
// link it prints carries the code in its #fragment, which browsers never send to a server, put
// in a Referer or log. The page trades the code (POST /view/login, once, within a minute) for a
// view session: an HttpOnly, SameSite=Strict cookie, so page scripts never see it and other
// sites cannot ride it. The token itself never reaches the browser.
// Expiry is checked on use: no timers to own.

import { randomBytes } from 'node:crypto';

export const VIEW_COOKIE = 'clawd_view';
const CODE_TTL_MS = 60_000;
/** The longest a code may wait: a hand-over's link lives as long as the hand-over, at most this. */
export const MAX_CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;
/** Codes minted and not yet used or expired; more than this means something is minting in a loop. */
const MAX_CODES = 100;

const mint = () => randomBytes(24).toString('base64url');

export class ViewAuth {
  // code → expiry; removed when redeemed or found expired.
  readonly #codes = new Map<string, number>();
  // session id → expiry; removed when found expired or on close().
  readonly #sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A code that opens one view session, once, within a minute (or `ttlMs`, at most 10 minutes). */
  code(ttlMs = CODE_TTL_MS): { code: string; expiresInMs: number } {
    this.#sweep();
    if (this.#codes.size >= MAX_CODES) this.#codes.delete(this.#codes.keys().next().value!);
    const code = mint();
    const expiresInMs = Math.min(Math.max(ttlMs, 1_000), MAX_CODE_TTL_MS);
    this.#codes.set(code, this.now() + expiresInMs);
    return { code, expiresInMs };
  }

  /** Trades a code for a session id; undefined when the code is unknown, used or expired. */
  redeem(code: string): { session: string; maxAgeSeconds: number } | undefined {
    const expires = this.#codes.get(code);
    this.#codes.delete(code);
    if (expires === undefined || this.now() > expires) return undefined;
    const session = mint();
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

  #sweep(): void {
    const now = this.now();
    for (const [code, expires] of this.#codes) if (now > expires) this.#codes.delete(code);
  }
}

export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export function sessionCookie(session: string, maxAgeSeconds: number): string {
  return `${VIEW_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}
