// How a client reaches the running `clawd serve` (the CLI, and `clawd mcp` when a server already
// runs): $CLAWD_CONTROL_URL if set, else the address in serve.json in the home (so a server on
// other ports is found), else the default port; the token from config.json (and, for the person's
// commands, the person's key from keys.json). Before each request the server must prove it knows
// what is about to be sent (`GET /proof`, for a nonce chosen here): a program that took the port
// while clawd was down learns nothing. `invoke` calls an
// operation where the table says it lives. Every request has a timeout; a server that cannot be
// reached says how to start it. Requests go through node:http rather than fetch, which drops
// informational answers: the server says a note at once (waiting for the person's answer) as a
// 103 with X-Clawd-Note, and the caller hears it then, not when the answer comes.
// Kept whole (under the 400-line cap): the proof, the routing and the timeouts are one request's
// path.

import http from 'node:http';
import path from 'node:path';
import { DEFAULT_CONTROL_PORT } from '../../shared/defaults';
import { ClawdError, type ErrorCode } from '../errors';
import { loadConfig } from '../home/config-store';
import { loadKeys } from '../home/home-keys';
import { PERSON_HEADER } from '../http/guards';
import { proofMatches } from '../http/key-proofs';
import { newNonce } from '../../shared/key-proof';
import { readServeState, type ServeState } from '../home/serve-state';
import type { Operation } from './operation';

/** How a front door carries out an operation: here over HTTP, or in the server's own process. */
export interface Invoker {
  /**
   * `note` hears what the caller should know besides the answer (a profile started on first use),
   * as it is said; `signal`, when the caller has gone (a wait for the person's answer ends).
   */
  invoke<R>(
    operation: Operation<any, R>,
    profile: string | undefined,
    input: Record<string, unknown>,
    note?: (note: string) => void,
    signal?: AbortSignal,
  ): Promise<R>;
}

/** The header a control API answer carries its notes in (call-notes.ts). */
export const NOTE_HEADER = 'x-clawd-note';
/**
 * A note as a header value: printable ASCII, with `\`, `,` (notes are joined by ", ") and
 * everything else (the page's words, their marks) written as \uXXXX; noteFromHeader reads it back.
 */
export function noteHeader(note: string): string {
  return note.replace(/[^\x20-\x2b\x2d-\x5b\x5d-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function noteFromHeader(value: string): string {
  return value.replace(/\\u([0-9a-f]{4})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A request header asking for each note at once, as a 103 Early Hints answer, before the answer itself. */
export const EARLY_NOTES_HEADER = 'x-clawd-early-notes';

/** The request an operation's checked input makes: its path (with `:field`s filled and, for GET and DELETE, the query) and its body. */
export function httpRequest(
  operation: Operation,
  input: Record<string, unknown>,
): { method: string; path: string; body?: Record<string, unknown> } {
  const rest = { ...input };
  const path = operation.http.path.replace(/:(\w+)/g, (_, field: string) => {
    const value = rest[field];
    delete rest[field];
    return encodeURIComponent(String(value ?? ''));
  });
  if (operation.http.method === 'POST') return { method: 'POST', path, body: rest };
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined || value === null) continue;
    query.set(
      key,
      Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value),
    );
  }
  return { method: operation.http.method, path: query.size ? `${path}?${query}` : path };
}

export class ControlClient implements Invoker {
  #token: string;

  private constructor(
    readonly url: string,
    token: string,
    readonly state: ServeState | undefined,
    /** The home this client is of (the one whose token it presents), when known. */
    readonly home?: string,
    /** The person's key, sent with each call: a client of the person's own commands (never an agent's). */
    private readonly personKey?: string,
  ) {
    this.#token = token;
  }

  /** The token this client presents: the home's, read again when the server says it is wrong (rotated). */
  get token(): string {
    return this.#token;
  }

  /** A client of the control API at `url` (e.g. a server this process runs itself). */
  static at(url: string, token: string): ControlClient {
    return new ControlClient(url.replace(/\/$/, ''), token, undefined);
  }

  /** The home's server; `person`: a client of the person's commands, which also presents the person's key. */
  static async locate(
    home: string,
    env: NodeJS.ProcessEnv = process.env,
    options: { person?: boolean } = {},
  ): Promise<ControlClient> {
    const config = await loadConfig(home);
    const state = await readServeState(home);
    const url = env.CLAWD_CONTROL_URL || state?.controlUrl || `http://127.0.0.1:${DEFAULT_CONTROL_PORT}`;
    const personKey = options.person ? (await loadKeys(home)).person : undefined;
    return new ControlClient(url.replace(/\/$/, ''), config.token, state, home, personKey);
  }

  /**
   * Asks the server to prove it knows this client's token (and person's key), for a fresh nonce,
   * on the port it listens on; throws `not_running` naming what answers instead. A token rotated
   * since this client read it is read again from the home once.
   */
  async prove(timeoutMs = 5_000, retried = false): Promise<void> {
    const nonce = newNonce();
    let answer: { port?: unknown; agent?: unknown; person?: unknown } = {};
    let status = 0;
    try {
      const response = await request(
        new URL(`${this.url}/proof?nonce=${nonce}`),
        'GET',
        {},
        undefined,
        timeoutMs,
        () => {},
      );
      status = response.status;
      answer = JSON.parse(response.text) as typeof answer;
    } catch (error) {
      if ((error as Error).name === 'TimeoutError')
        throw new ClawdError(
          'command_timeout',
          `the clawd server at ${this.url} did not answer within ${Math.round(timeoutMs / 1000)} s`,
          { cause: error },
        );
      if (error instanceof SyntaxError) answer = {};
      else
        throw new ClawdError(
          'not_running',
          `cannot reach the clawd server at ${this.url}: start it with \`clawd serve\``,
          {
            cause: error,
          },
        );
    }
    const url = new URL(this.url);
    const port = typeof answer.port === 'number' ? answer.port : -1;
    // On loopback the port it proves for must be the one this client reached (not a relayed answer).
    const portHolds = !isLoopback(url) || port === Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const tokenHolds = portHolds && proofMatches(answer.agent, this.#token, 'agent', port, nonce);
    const personHolds =
      this.personKey === undefined || proofMatches(answer.person, this.personKey, 'person', port, nonce);
    if (tokenHolds && personHolds && portHolds) return;
    if (this.home !== undefined && status !== 0) {
      const other = await otherHome(this.url, this.home);
      if (other) throw anotherHome(this.url, other, this.home);
      // The token was rotated since this client read it (a long-lived `clawd mcp`): once more with the home's.
      const { token } = await loadConfig(this.home);
      if (!tokenHolds && token !== this.#token && !retried) {
        this.#token = token;
        return this.prove(timeoutMs, true);
      }
    }
    throw new ClawdError(
      'not_running',
      status === 404 || status === 0 || answer.agent === undefined
        ? `what answers at ${this.url} is not a clawd server this version knows (it cannot prove it knows the token): nothing was sent to it`
        : `what answers at ${this.url} could not prove it knows ${tokenHolds ? "the person's key" : 'the token'} of ${this.home ?? 'this home'}: nothing was sent to it. If clawd runs, its home differs; otherwise another program holds the port`,
    );
  }

  /** Calls an operation on the server; its answer is the operation's result. */
  invoke<R>(
    operation: Operation<any, R>,
    profile: string | undefined,
    input: Record<string, unknown>,
    note?: (note: string) => void,
    signal?: AbortSignal,
  ): Promise<R> {
    const { method, path, body } = httpRequest(operation, input);
    const timeoutMs = operation.clientTimeoutMs?.(input as never);
    return this.call<R>(method, path, {
      ...(profile ? { profile } : {}),
      ...(body ? { body } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(note ? { note } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** Calls the control API; the server's own error (code and message) becomes a ClawdError. */
  /** `signal`: the caller went away; the request is cut, and the server withdraws what it waited for (a question to the person). */
  async call<T = any>(
    method: string,
    path: string,
    options: {
      profile?: string;
      body?: unknown;
      timeoutMs?: number;
      note?: (note: string) => void;
      signal?: AbortSignal;
    } = {},
    retried = false,
  ): Promise<T> {
    const url = new URL(this.url + path);
    if (options.profile) url.searchParams.set('profile', options.profile);
    // A safety net only: the server bounds every action itself (at most 60 s, plus its own steps).
    const timeoutMs = options.timeoutMs ?? 90_000;
    let heard = 0; // notes said early; the final answer carries them all again
    const hear = (value: string | string[] | undefined, from: number) => {
      const notes = (Array.isArray(value) ? value.join(', ') : (value ?? '')).split(', ').filter(Boolean);
      for (const note of notes.slice(from)) options.note?.(noteFromHeader(note));
      return notes.length;
    };
    // Nothing is sent until the server proved it knows it (each call: it may have been restarted, or replaced).
    await this.prove(Math.min(timeoutMs, 5_000));
    const response = await this.#send(url, method, path, options, timeoutMs, (notes) => {
      heard += hear(notes, 0);
    });
    hear(response.notes, heard);
    const body = bodyOf(response, `${this.url}${path}`);
    if (response.status === 401 && this.home !== undefined) {
      // The default port answers, but with another home's server: say so, not "the token is wrong".
      const other = await otherHome(this.url, this.home);
      if (other) throw anotherHome(this.url, other, this.home);
      // The token was rotated since this client read it (a long-lived `clawd mcp`): once more with the home's.
      const { token } = await loadConfig(this.home);
      if (token !== this.#token && !retried) {
        this.#token = token;
        return this.call<T>(method, path, options, true);
      }
    }
    if (response.status < 200 || response.status > 299) throw serverError(response.status, body);
    return body as T;
  }

  /** The request with the token (and the person's key), or why the server could not be asked. */
  async #send(
    url: URL,
    method: string,
    path: string,
    options: { body?: unknown; signal?: AbortSignal },
    timeoutMs: number,
    early: (notes: string | string[] | undefined) => void,
  ): Promise<ServerAnswer> {
    try {
      const headers = {
        Authorization: `Bearer ${this.#token}`,
        ...(this.personKey !== undefined ? { [PERSON_HEADER]: this.personKey } : {}),
        [EARLY_NOTES_HEADER]: '1',
        ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      };
      return await request(
        url,
        method,
        headers,
        options.body === undefined ? undefined : JSON.stringify(options.body),
        timeoutMs,
        early,
        options.signal,
      );
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ClawdError(
        timedOut ? 'command_timeout' : 'not_running',
        timedOut
          ? `the clawd server at ${this.url} did not answer ${method} ${path} within ${Math.round(timeoutMs / 1000)} s`
          : `cannot reach the clawd server at ${this.url}: start it with \`clawd serve\``,
        { cause: error },
      );
    }
  }
}

/** What the server answered: its status, the final notes header and the body. */
interface ServerAnswer {
  status: number;
  notes: string | string[] | undefined;
  text: string;
}

/** The answer's JSON (an empty body is `{}`); anything else is not the control API. */
function bodyOf(response: ServerAnswer, where: string): unknown {
  const text = response.text;
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ClawdError(
      'upstream_error',
      `${where} answered HTTP ${response.status} with something that is not JSON: is this the clawd control API?`,
    );
  }
}

/** The server's own error (code and message) as a ClawdError. */
function serverError(status: number, body: unknown): ClawdError {
  const error = (body as { error?: { code?: string; message?: string; pageMarked?: string } }).error;
  // With the page's words marked, when it quotes them: the CLI fences them.
  const message = typeof error?.pageMarked === 'string' ? error.pageMarked : error?.message;
  return new ClawdError((error?.code as ErrorCode | undefined) ?? 'upstream_error', message ?? `HTTP ${status}`);
}

/** One HTTP request within `timeoutMs` in all: the status, the final notes header and the body; `early` hears the notes of each 103 as it comes. */
async function request(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  early: (notes: string | string[] | undefined) => void,
  signal?: AbortSignal,
): Promise<ServerAnswer> {
  // TLS is loaded only for a server behind https (a CLI command costs what Node does).
  const send = url.protocol === 'https:' ? (await import('node:https')).request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            notes: res.headers[NOTE_HEADER],
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })),
      timeoutMs,
    );
    signal?.addEventListener('abort', () => req.destroy(new Error('the caller went away')), { once: true });
    req.on('information', (info) => {
      if (info.statusCode === 103) early(info.headers[NOTE_HEADER]);
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

function anotherHome(url: string, other: string, home: string): ClawdError {
  return new ClawdError(
    'not_running',
    `the clawd server at ${url} serves another home (${other}), not ${home}: start one for this home with \`clawd serve --home ${home} --control-port 0 --relay-port 0\`, or use that home`,
  );
}

function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

/** The home the server at `url` says it serves, when it is not `home`. */
async function otherHome(url: string, home: string): Promise<string | undefined> {
  try {
    const health = JSON.parse((await request(new URL(`${url}/`), 'GET', {}, undefined, 1_500, () => {})).text) as {
      home?: unknown;
    };
    return typeof health.home === 'string' && path.resolve(health.home) !== path.resolve(home)
      ? health.home
      : undefined;
  } catch {
    return undefined;
  }
}
