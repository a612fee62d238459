// The checks every request and upgrade passes before anything else runs: the Host header must
// name loopback and our port (DNS rebinding), a web page's Origin is refused (any site could
// otherwise open a WebSocket to localhost), and the token must match, compared in constant time.
// Pure functions, so HTTP routes, WebSocket upgrades and the control API share one definition.

import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { MiddlewareHandler } from 'hono';
import { ClawdError, httpErrorBody, httpStatusOf } from '../errors';
import { callerAuthority } from '../caller-authority';

/** The header clawd's person commands send the person's key in (after the server proved it knows it). */
export const PERSON_HEADER = 'x-clawd-person';

/** Refuses the current call unless it is the person's (their terminal's key came with it). */
export function requirePerson(what: string): void {
  if (callerAuthority() !== 'person')
    throw new ClawdError(
      'person_only',
      `${what} is the person's to do, from their terminal (clawd's own command sends the person's key from its home); the token agents are given cannot`,
    );
}

export function isAllowedHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

export type OriginKind = 'none' | 'extension' | 'web';

/** No Origin (a CLI, Playwright, Node) is fine; our extension is recognised; anything else is a web origin. */
export function classifyOrigin(origin: string | undefined, extensionOrigins: readonly string[]): OriginKind {
  if (origin === undefined || origin === '') return 'none';
  return extensionOrigins.includes(origin) ? 'extension' : 'web';
}

/** The token from `Authorization: Bearer <token>` or `?token=<token>`. */
export function requestToken(authorization: string | undefined, url: URL): string | undefined {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? url.searchParams.get('token') ?? undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
export function tokenMatches(candidate: string | undefined, token: string): boolean {
  if (candidate === undefined) return false;
  return timingSafeEqual(digest(candidate), digest(token));
}

export interface GuardInput {
  host: string | undefined;
  origin: string | undefined;
  authorization: string | undefined;
  url: URL;
}

export interface GuardPolicy {
  token: string;
  port: number;
  /** Our extension's origins: the pinned development id's, and any listed in config (a store build). */
  extensionOrigins: readonly string[];
  /** 'extension': only our extension's origin may connect (the `/extension` socket). */
  origins: 'extension' | 'no-web';
  /**
   * The credential is proven inside the connection instead of sent with it (the `/extension`
   * socket: the extension key, challenge and answer), so no token is asked for here.
   */
  provenInBand?: true;
}

/** Returns the refusal for a request, or undefined when it may proceed. Order: host, origin, token. */
export function refusal(input: GuardInput, policy: GuardPolicy): ClawdError | undefined {
  if (!isAllowedHost(input.host, policy.port)) {
    return new ClawdError(
      'host_not_allowed',
      `Host ${JSON.stringify(input.host ?? '')} is not allowed: connect to 127.0.0.1:${policy.port}`,
    );
  }
  const origin = classifyOrigin(input.origin, policy.extensionOrigins);
  if (policy.origins === 'extension' ? origin !== 'extension' : origin === 'web') {
    const who =
      policy.origins === 'extension'
        ? 'only the clawd extension may connect here'
        : 'requests from web pages are refused';
    return new ClawdError('origin_not_allowed', `Origin ${JSON.stringify(input.origin ?? '')} is not allowed: ${who}`);
  }
  if (policy.provenInBand) return undefined;
  if (!tokenMatches(requestToken(input.authorization, input.url), policy.token)) {
    const sent = requestToken(input.authorization, input.url) !== undefined;
    return new ClawdError(
      'unauthorized',
      sent
        ? 'The token is wrong: run `clawd token` to see the current one'
        : 'A token is required: pass `Authorization: Bearer <token>` or `?token=<token>` (see `clawd token`)',
    );
  }
  return undefined;
}

/** hono middleware: the Host check alone (the health check needs nothing more). */
export function hostGuard(port: () => number): MiddlewareHandler {
  return async function hostGuard(c, next) {
    if (!isAllowedHost(c.req.header('host'), port())) {
      const error = new ClawdError(
        'host_not_allowed',
        `Host ${JSON.stringify(c.req.header('host') ?? '')} is not allowed: connect to 127.0.0.1:${port()}`,
      );
      return c.json(httpErrorBody(error), httpStatusOf(error) as 403);
    }
    await next();
  };
}

/** hono middleware: origin and token, as `refusal` decides. */
export function accessGuard(policy: () => GuardPolicy): MiddlewareHandler {
  return async function accessGuard(c, next) {
    const error = refusal(
      {
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        authorization: c.req.header('authorization'),
        url: new URL(c.req.url),
      },
      policy(),
    );
    if (error) return c.json(httpErrorBody(error), httpStatusOf(error) as 401);
    await next();
  };
}

/** Answers an upgrade we refuse with a plain HTTP response and closes the socket. */
export function refuseUpgrade(socket: Duplex, error: ClawdError): void {
  const status = httpStatusOf(error);
  const body = JSON.stringify(httpErrorBody(error));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The control API's own origin: the live view's page, and the only web origin let in (on its routes). */
function isSelfOrigin(origin: string | undefined, port: number): boolean {
  return (
    origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}` || origin === `http://[::1]:${port}`
  );
}

export interface ViewGuardInput extends GuardInput {
  /** True when the request carries a live view session (its cookie). */
  viewSession: boolean;
}

/**
 * The live view's routes: no Origin or the control API's own; then the token or a view session,
 * unless `open` (the page itself and its code exchange, which carry neither yet).
 */
export function viewRefusal(
  input: ViewGuardInput,
  policy: { token: string; port: number; open: boolean },
): ClawdError | undefined {
  if (!isAllowedHost(input.host, policy.port)) {
    return new ClawdError(
      'host_not_allowed',
      `Host ${JSON.stringify(input.host ?? '')} is not allowed: connect to 127.0.0.1:${policy.port}`,
    );
  }
  if (input.origin !== undefined && input.origin !== '' && !isSelfOrigin(input.origin, policy.port)) {
    return new ClawdError(
      'origin_not_allowed',
      `Origin ${JSON.stringify(input.origin)} is not allowed: only the live view's own page may call this`,
    );
  }
  if (policy.open || input.viewSession || tokenMatches(requestToken(input.authorization, input.url), policy.token))
    return undefined;
  return new ClawdError(
    'unauthorized',
    'Open the live view with the link `clawd view` prints (it signs this browser in), or pass the token',
  );
}
