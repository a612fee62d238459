// Who may open the live view. `clawd view` (holding the token) asks for a one-time code; the
// link it prints carries the code in its #fragment, which browsers never send to a server, put
// in a Referer or log. The page trades the code (POST /view/login, once, within a minute) for a
// view session: an HttpOnly, SameSite=Strict cookie, so page scripts never see it and other
// sites cannot ride it. Cookies are per host, not per port: its name carries the server's port (a
// second clawd server never overwrites it), and it is sent only under /view, where every route
// of the view lives — another server on 127.0.0.1 the person visits is sent it only there.
// The token itself never reaches the browser.
// Only a session from `clawd view`'s own link may answer the questions agents ask the person: the
// link a hand-over gives is an agent's to pass on (and its own browser could open it), so a
// session made from it watches and acts, but never allows anything. Expiry is checked on use:
// no timers to own.

import { mintSecret, OneTimeCodes } from '../http/one-time-codes';

const CODE_TTL_MS = 60_000;
/** The longest a code may wait: a hand-over's link lives as long as the hand-over, at most this. */
const MAX_CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;

export class ViewAuth {
  readonly #codes: OneTimeCodes;
  // session id → expiry and whether it may answer questions; removed when found expired or on close().
  readonly #sessions = new Map<string, { expires: number; answers: boolean }>();
  // Codes whose session may answer questions (minted for `clawd view`); removed when redeemed or on close().
  readonly #answering = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {
    this.#codes = new OneTimeCodes(CODE_TTL_MS, MAX_CODE_TTL_MS, 100, now);
  }

  /**
   * A code that opens one view session, once, within a minute (or `ttlMs`, at most 10 minutes);
   * `answers`: the session may answer the person's questions (the person's own `clawd view`).
   */
  code(ttlMs = CODE_TTL_MS, answers = false): { code: string; expiresInMs: number } {
    const minted = this.#codes.mint(ttlMs);
    if (answers) this.#answering.add(minted.code);
    if (this.#answering.size > 1_000) this.#answering.delete(this.#answering.values().next().value!); // codes never redeemed
    return minted;
  }

  /** Trades a code for a session id; undefined when the code is unknown, used or expired. */
  redeem(code: string): { session: string; maxAgeSeconds: number } | undefined {
    const answers = this.#answering.delete(code);
    if (!this.#codes.redeem(code)) return undefined;
    const session = mintSecret();
    this.#sessions.set(session, { expires: this.now() + SESSION_TTL_MS, answers });
    return { session, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  /** True when the request's Cookie header carries a live view session of the server on `port`. */
  hasSession(cookieHeader: string | undefined, port: number): boolean {
    return this.#session(cookieHeader, port) !== undefined;
  }

  /** True when that session may answer the questions agents ask the person. */
  mayAnswer(cookieHeader: string | undefined, port: number): boolean {
    return this.#session(cookieHeader, port)?.answers === true;
  }

  close(): void {
    this.#codes.clear();
    this.#sessions.clear();
    this.#answering.clear();
  }

  #session(cookieHeader: string | undefined, port: number): { expires: number; answers: boolean } | undefined {
    const session = cookieOf(cookieHeader, viewCookieName(port));
    if (session === undefined) return undefined;
    const found = this.#sessions.get(session);
    if (found === undefined) return undefined;
    if (this.now() > found.expires) {
      this.#sessions.delete(session);
      return undefined;
    }
    return found;
  }
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The view session's cookie name on the server listening on `port`. */
export function viewCookieName(port: number): string {
  return `clawd_view_${port}`;
}

export function sessionCookie(session: string, maxAgeSeconds: number, port: number): string {
  return `${viewCookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/view; Max-Age=${maxAgeSeconds}`;
}
