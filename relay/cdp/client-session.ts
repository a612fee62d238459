// One CDP client on `/cdp` (or a page-scoped `/devtools/page/<id>` socket): the socket edge.
// Validates each incoming frame, serialises what goes back, and closes a client that stops
// reading (once its queued output passes the cap; the socket is cut if it cannot even take the
// close frame, so its queue is freed). Malformed frames get a CDP error and the client stays usable. A large result
// the relay did not read (raw-json.ts) goes out as the bytes it came in. Which session ids the
// client holds is the session table's; what a command means is the switchboard's.

import type { RawData, WebSocket } from 'ws';
import { ClawdError, cdpErrorOf } from '../errors';
import { SESSION_NAME } from '../../shared/defaults';
import type { Logger } from '../log';
import { RawJson } from './raw-json';

export interface CdpCommand {
  id: number;
  method: string;
  params: Record<string, unknown>;
  /** '' for the client's root session. */
  sessionId: string;
}

export interface ClientSessionHandlers {
  command(client: ClientSession, command: CdpCommand): void;
  closed(client: ClientSession): void;
}

export interface ClientSessionOptions {
  /** A client that stops reading is closed once this much output is queued for it. */
  maxBufferedBytes: number;
  /** Then how long it has to take its queue and the close frame before its socket is cut. */
  notReadingCutMs: number;
  log: Logger;
  /** clawd's own agent layer (it says so in its upgrade): its doings are logged as operations, not as a raw client's. */
  internal?: boolean;
  /** The agent session the client says it is (`?session=` or X-Clawd-Session on its upgrade). */
  name?: string;
  /** clawd's own pop-up hold (`?clawd=popups` with clawd's key): shown held pop-ups paused (held-tabs.ts). */
  holdsPopups?: boolean;
}

/** A session name a client may give itself: what the agent API's `session` takes. */
export const CLIENT_NAME = SESSION_NAME;

type ParsedCommand =
  { ok: true; command: CdpCommand } | { ok: false; id?: number; sessionId: string; error: ClawdError };

/** Validates one client frame as a CDP command: `{ id: int, method: string, params?: object, sessionId?: string }`. */
export function parseCdpCommand(raw: string): ParsedCommand {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      sessionId: '',
      error: new ClawdError('parse_error', `Message must be valid JSON: ${(error as Error).message}`),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, sessionId: '', error: new ClawdError('invalid_request', 'Message must be a JSON object') };
  }
  const { id, method, params, sessionId } = value as Record<string, unknown>;
  const session = typeof sessionId === 'string' ? sessionId : '';
  const validId = Number.isSafeInteger(id) ? (id as number) : undefined;
  const fail = (message: string): ParsedCommand => ({
    ok: false,
    id: validId,
    sessionId: session,
    error: new ClawdError('invalid_request', message),
  });
  if (validId === undefined) return fail("Message must have an integer 'id' property");
  if (typeof method !== 'string' || method.length === 0) return fail("Message must have a string 'method' property");
  if (sessionId !== undefined && typeof sessionId !== 'string') return fail("'sessionId' must be a string");
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return fail("'params' must be an object");
  }
  return {
    ok: true,
    command: { id: validId, method, params: (params as Record<string, unknown>) ?? {}, sessionId: session },
  };
}

let nextClientId = 1;

/** Close code and reason a client that stopped reading gets, after what was queued for it. */
export const NOT_READING_CLOSE = { code: 1013, reason: 'client is not reading: too much output queued' } as const;
/** Close code a client that came in with a token since rotated gets (1008: policy violation). */
export const TOKEN_ROTATED_CLOSE = {
  code: 1008,
  reason: 'the token was rotated: connect with the new one (clawd token)',
} as const;

export class ClientSession {
  readonly id = nextClientId++;

  get internal(): boolean {
    return this.options.internal === true;
  }

  get holdsPopups(): boolean {
    return this.options.holdsPopups === true;
  }

  /** An agent session of its own: named after the client when it says, else `cdp-N`. */
  get name(): string {
    return this.options.name ?? `cdp-${this.id}`;
  }
  #closed = false;
  #cut: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly handlers: ClientSessionHandlers,
    private readonly options: ClientSessionOptions,
  ) {
    ws.on('message', this.#onMessage);
    ws.on('close', this.#onClose);
    ws.on('error', this.#onError);
  }

  sendResult(id: number, sessionId: string, result: unknown): void {
    if (result instanceof RawJson) {
      // A large result as the extension wrote it: framed around, not parsed and written again.
      const tail = sessionId ? `,"sessionId":${JSON.stringify(sessionId)}}` : '}';
      this.#sendRaw(Buffer.concat([Buffer.from(`{"id":${id},"result":`), result.bytes, Buffer.from(tail)]));
      return;
    }
    this.#send(sessionId ? { id, result, sessionId } : { id, result });
  }

  sendError(id: number | undefined, sessionId: string, error: unknown): void {
    const body = cdpErrorOf(error);
    const frame: Record<string, unknown> = id === undefined ? { error: body } : { id, error: body };
    if (sessionId) frame.sessionId = sessionId;
    this.#send(frame);
  }

  sendEvent(sessionId: string, method: string, params: unknown): void {
    this.#send(sessionId ? { method, params, sessionId } : { method, params });
  }

  /** Sends an event whose params are already serialised (one JSON.stringify per event, not per client). */
  sendEventJson(sessionId: string, method: string, paramsJson: string): void {
    const head = sessionId
      ? `{"method":${JSON.stringify(method)},"sessionId":${JSON.stringify(sessionId)},"params":`
      : `{"method":${JSON.stringify(method)},"params":`;
    this.#sendRaw(head + paramsJson + '}');
  }

  close(code = 1000, reason = ''): void {
    if (this.#closed) return;
    this.ws.close(code, reason);
    this.#finish();
  }

  #send(frame: unknown): void {
    this.#sendRaw(JSON.stringify(frame));
  }

  /** A frame's text, or its UTF-8 bytes (still sent as a text frame). */
  #sendRaw(text: string | Buffer): void {
    if (this.#closed) return;
    if (this.ws.bufferedAmount > this.options.maxBufferedBytes) {
      const queued = Math.round(this.ws.bufferedAmount / 2 ** 20);
      this.options.log.warn(
        `client ${this.id} is not reading its socket (${queued} MiB queued, the cap is ${Math.round(this.options.maxBufferedBytes / 2 ** 20)} MiB); closing it`,
      );
      this.close(NOT_READING_CLOSE.code, NOT_READING_CLOSE.reason);
      // The close frame waits behind the queue: a client that stays stalled never reads it, and
      // the queue would be held until ws's own 30 s close timeout. Cut the socket sooner.
      this.#cut = setTimeout(() => this.ws.terminate(), this.options.notReadingCutMs);
      this.#cut.unref();
      return;
    }
    if (typeof text === 'string') this.ws.send(text);
    else this.ws.send(text, { binary: false });
  }

  readonly #onMessage = (data: RawData) => {
    const parsed = parseCdpCommand(data.toString());
    if (!parsed.ok) {
      this.sendError(parsed.id, parsed.sessionId, parsed.error);
      return;
    }
    this.handlers.command(this, parsed.command);
  };

  readonly #onClose = () => {
    clearTimeout(this.#cut);
    this.#finish();
  };

  readonly #onError = (error: Error) => {
    this.options.log.debug(`client ${this.id} socket error: ${error.message}`);
  };

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.ws.off('message', this.#onMessage);
    this.handlers.closed(this);
  }
}
