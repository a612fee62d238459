// One CDP client on `/cdp` (or a page-scoped `/devtools/page/<id>` socket): the socket edge.
// Validates each incoming frame, serialises what goes back, and closes a client that stops
// reading. Malformed frames get a CDP error and the client stays usable. Which session ids the
// client holds is the session table's; what a command means is the switchboard's.

import type { RawData, WebSocket } from 'ws';
import { ClawdError, cdpErrorOf } from '../errors';
import type { Logger } from '../log';

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
  log: Logger;
}

type ParsedCommand = { ok: true; command: CdpCommand } | { ok: false; id?: number; sessionId: string; error: ClawdError };

/** Validates one client frame as a CDP command: `{ id: int, method: string, params?: object, sessionId?: string }`. */
export function parseCdpCommand(raw: string): ParsedCommand {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, sessionId: '', error: new ClawdError('parse_error', `Message must be valid JSON: ${(error as Error).message}`) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, sessionId: '', error: new ClawdError('invalid_request', 'Message must be a JSON object') };
  }
  const { id, method, params, sessionId } = value as Record<string, unknown>;
  const session = typeof sessionId === 'string' ? sessionId : '';
  const validId = Number.isSafeInteger(id) ? (id as number) : undefined;
  const fail = (message: string): ParsedCommand => ({ ok: false, id: validId, sessionId: session, error: new ClawdError('invalid_request', message) });
  if (validId === undefined) return fail("Message must have an integer 'id' property");
  if (typeof method !== 'string' || method.length === 0) return fail("Message must have a string 'method' property");
  if (sessionId !== undefined && typeof sessionId !== 'string') return fail("'sessionId' must be a string");
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return fail("'params' must be an object");
  }
  return { ok: true, command: { id: validId, method, params: (params as Record<string, unknown>) ?? {}, sessionId: session } };
}

let nextClientId = 1;

export class ClientSession {
  readonly id = nextClientId++;
  #closed = false;

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
    const head = sessionId ? `{"method":${JSON.stringify(method)},"sessionId":${JSON.stringify(sessionId)},"params":` : `{"method":${JSON.stringify(method)},"params":`;
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

  #sendRaw(text: string): void {
    if (this.#closed) return;
    if (this.ws.bufferedAmount > this.options.maxBufferedBytes) {
      this.options.log.warn(`client ${this.id} is not reading its socket; closing it`);
      this.close(1013, 'client is not reading: too much output queued');
      return;
    }
    this.ws.send(text);
  }

  readonly #onMessage = (data: RawData) => {
    const parsed = parseCdpCommand(data.toString());
    if (!parsed.ok) {
      this.sendError(parsed.id, parsed.sessionId, parsed.error);
      return;
    }
    this.handlers.command(this, parsed.command);
  };

  readonly #onClose = () => this.#finish();

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
