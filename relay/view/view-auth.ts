// Who may open the live view, and what each view may do. `clawd view` (the person's command: it
// sends the person's key) asks for a one-time code; the link it prints carries the code in its
// #fragment, which browsers never send to a server, put in a Referer or log. The page trades the
// code (POST /view/login, once, within a minute) for a view session: an HttpOnly,
// SameSite=Strict cookie, so page scripts never see it and other sites cannot ride it. Cookies
// are per host, not per port: its name carries the server's port (a second clawd server never
// overwrites it), and it is sent only under /view, where every route of the view lives.
//
// Each session carries a grant: whether it may answer the questions agents ask the person,
// whether it may act (take over, give back, input, navigate), and the one tab it is bound to, if
// any. The person's own `clawd view` link answers and acts on every tab; a hand-over's link is
// the agent's to pass on (its own browser could open it), so it watches its one tab only; the
// token on a view route watches too. Expiry is checked on use: no timers to own.

import { mintSecret, OneTimeCodes } from '../http/one-time-codes';

const CODE_TTL_MS = 60_000;
/** The longest a code may wait: a hand-over's link lives as long as the hand-over, at most this. */
const MAX_CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;

/** What one live view may do. */
export interface ViewGrant {
  /** It answers the questions agents ask the person (the person's own view). */
  answers: boolean;
  /** It acts: takes a tab over, gives it back, types, clicks, navigates. */
  acts: boolean;
  /** The one tab it shows; none: every tab of every profile. */
  tab?: { profile: string; targetId: string };
}

/** A view that only watches: what the token and a hand-over's link open. */
export const WATCH_ONLY: ViewGrant = { answers: false, acts: false };
/** The person's own view (`clawd view`): answers and acts, anywhere. */
export const PERSONS_VIEW: ViewGrant = { answers: true, acts: true };

export class ViewAuth {
  readonly #codes: OneTimeCodes;
  // session id → expiry and grant; removed when found expired or on close().
  readonly #sessions = new Map<string, { expires: number; grant: ViewGrant }>();
  // Code → the grant its session gets; removed when redeemed, pushed out, or on close().
  readonly #grants = new Map<string, ViewGrant>();

  constructor(private readonly now: () => number = Date.now) {
    this.#codes = new OneTimeCodes(CODE_TTL_MS, MAX_CODE_TTL_MS, 100, now);
  }

  /** A code that opens one view session with `grant`, once, within a minute (or `ttlMs`, at most 10 minutes). */
  code(grant: ViewGrant, ttlMs = CODE_TTL_MS): { code: string; expiresInMs: number } {
    const minted = this.#codes.mint(ttlMs);
    this.#grants.set(minted.code, grant);
    if (this.#grants.size > 1_000) this.#grants.delete(this.#grants.keys().next().value!); // codes never redeemed
    return minted;
  }

  /** Trades a code for a session id; undefined when the code is unknown, used or expired. */
  redeem(code: string): { session: string; maxAgeSeconds: number } | undefined {
    const grant = this.#grants.get(code);
    this.#grants.delete(code);
    if (!this.#codes.redeem(code) || !grant) return undefined;
    const session = mintSecret();
    this.#sessions.set(session, { expires: this.now() + SESSION_TTL_MS, grant });
    return { session, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  /** The grant of the view session the request's Cookie header carries (of the server on `port`), if any. */
  grantOf(cookieHeader: string | undefined, port: number): ViewGrant | undefined {
    const session = cookieOf(cookieHeader, viewCookieName(port));
    if (session === undefined) return undefined;
    const found = this.#sessions.get(session);
    if (found === undefined) return undefined;
    if (this.now() > found.expires) {
      this.#sessions.delete(session);
      return undefined;
    }
    return found.grant;
  }

  /** True when the request's Cookie header carries a live view session of the server on `port`. */
  hasSession(cookieHeader: string | undefined, port: number): boolean {
    return this.grantOf(cookieHeader, port) !== undefined;
  }

  /** True when that session may answer the questions agents ask the person. */
  mayAnswer(cookieHeader: string | undefined, port: number): boolean {
    return this.grantOf(cookieHeader, port)?.answers === true;
  }

  close(): void {
    this.#codes.clear();
    this.#sessions.clear();
    this.#grants.clear();
  }
}

/** Whether a view with `grant` may see this tab. */
export function grantShows(grant: ViewGrant, profile: string, targetId: string | undefined): boolean {
  return grant.tab === undefined || (grant.tab.profile === profile && grant.tab.targetId === targetId);
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
