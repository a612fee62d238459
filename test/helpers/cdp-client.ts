// A raw CDP client over ws for tests: commands with ids, flat sessions, recorded events, and
// waits with a bound. Deliberately independent of the relay's code, so tests check the relay
// against the protocol rather than against itself.

import WebSocket from 'ws';
import { nextMatching, within } from './waits';

export interface CdpMessage {
  id?: number;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
  sessionId?: string;
}

export class CdpError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/** Under the e2e tests' 60 s limit, so a stuck harness call names itself; over every bound the tests give the relay. */
const SEND_BOUND_MS = 45_000;
const CONNECT_BOUND_MS = 20_000;

export class CdpClient {
  #nextId = 1;
  readonly #pending = new Map<number, { method: string; resolve(v: any): void; reject(e: Error): void }>();
  readonly events: CdpMessage[] = [];
  readonly raw: CdpMessage[] = [];
  readonly #listeners = new Set<(m: CdpMessage) => void>();
  closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as CdpMessage;
      this.raw.push(message);
      if (message.method) this.events.push(message);
      for (const listener of [...this.#listeners]) listener(message);
      const call = message.id !== undefined ? this.#pending.get(message.id) : undefined;
      if (call) {
        this.#pending.delete(message.id!);
        if (message.error) call.reject(new CdpError(call.method, message.error.code, message.error.message));
        else call.resolve(message.result);
      }
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    ws.once('close', () => {
      for (const call of this.#pending.values()) call.reject(new Error(`${call.method}: socket closed`));
      this.#pending.clear();
    });
  }

  static connect(url: string, options: { headers?: Record<string, string>; origin?: string } = {}): Promise<CdpClient> {
    // A server that takes the connection and never answers its upgrade fails by name too.
    const ws = new WebSocket(url, {
      headers: options.headers,
      origin: options.origin,
      perMessageDeflate: false,
      handshakeTimeout: CONNECT_BOUND_MS,
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new CdpClient(ws)));
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })),
      );
      ws.once('error', reject);
    });
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.#nextId++;
    this.ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    const answered = new Promise<T>((resolve, reject) => this.#pending.set(id, { method, resolve, reject }));
    // A harness call that never answers fails by name rather than as the test's own timeout.
    return within(SEND_BOUND_MS, answered, `${method} (sent by the test's CDP client)`);
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  onMessage(listener: (m: CdpMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves with the first event (already received or future) that matches, or rejects after timeoutMs. */
  waitForEvent(
    method: string,
    predicate: (m: CdpMessage) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<CdpMessage> {
    const seen = this.events.find((e) => e.method === method && predicate(e));
    if (seen) return Promise.resolve(seen);
    return this.waitForNext((m) => m.method === method && predicate(m), `event ${method}`, timeoutMs);
  }

  /** The next message (not one already received) that matches. */
  waitForNext(predicate: (m: CdpMessage) => boolean, what = 'message', timeoutMs = 5_000): Promise<CdpMessage> {
    return nextMatching((listener) => this.onMessage(listener), predicate, what, timeoutMs);
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.close();
    return this.closed.then(() => undefined);
  }
}
