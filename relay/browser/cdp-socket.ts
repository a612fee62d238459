// One raw CDP connection of clawd's own to a browser's WebSocket (the policy guard's, the pop-up
// hold's): commands answered within a bound, every event handed to one listener, and what waits
// failed when the connection closes. No compression: it is loopback, or a Grid's hub.

import WebSocket from 'ws';

/** An event as the browser sent it (on a session when `sessionId` is set). */
export interface CdpEvent {
  method: string;
  params?: any;
  sessionId?: string;
}

interface Waiting {
  resolve(value: any): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class CdpSocket {
  #nextId = 1;
  readonly #pending = new Map<number, Waiting>();
  #closed = false;
  #listener: (event: CdpEvent) => void = () => {};
  /** Settles when the connection has closed (the browser went, or close()). */
  readonly gone: Promise<void>;

  private constructor(
    private readonly ws: WebSocket,
    /** What the socket's failures and an unasked close are told to (its owner's log, named). */
    said: (message: string) => void,
    private readonly boundMs: number,
  ) {
    ws.on('message', (data) => this.#message(data.toString()));
    this.gone = new Promise((resolve) =>
      ws.on('close', (code) => {
        if (!this.#closed) said(`the browser closed the connection (${code})`);
        this.#fail('the browser closed the connection');
        resolve();
      }),
    );
    ws.on('error', (error) => said(error.message));
  }

  /**
   * Opens the socket at `browser` (its own headers too: a Grid's credentials, clawd's key) within
   * `openMs`; each command is answered within `boundMs` unless it says otherwise.
   */
  static async open(
    browser: { url: string; headers?: Record<string, string> },
    openMs: number,
    boundMs: number,
    said: (message: string) => void,
  ): Promise<CdpSocket> {
    const ws = new WebSocket(browser.url, {
      perMessageDeflate: false,
      handshakeTimeout: openMs,
      headers: browser.headers,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      // A refused upgrade is an error too ("Unexpected server response: 401").
      ws.once('error', reject);
    });
    return new CdpSocket(ws, said, boundMs);
  }

  /** Where every event goes from now on (one listener: its owner's). */
  onEvent(listener: (event: CdpEvent) => void): void {
    this.#listener = listener;
  }

  /** Still connected to its browser. */
  get open(): boolean {
    return !this.#closed && this.ws.readyState === WebSocket.OPEN;
  }

  send(method: string, params: object = {}, sessionId?: string, boundMs = this.boundMs): Promise<any> {
    if (!this.open) return Promise.reject(new Error('the connection is closed'));
    const id = this.#nextId++;
    this.ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} got no answer within ${boundMs} ms`));
      }, boundMs);
      this.#pending.set(id, { resolve, reject, timer });
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.ws.close();
    this.#fail('closed');
  }

  #message(text: string): void {
    const message = JSON.parse(text) as CdpEvent & { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return this.#listener(message);
    const call = this.#pending.get(message.id);
    if (!call) return;
    this.#pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error) call.reject(new Error(message.error.message));
    else call.resolve(message.result);
  }

  #fail(reason: string): void {
    for (const call of this.#pending.values()) {
      clearTimeout(call.timer);
      call.reject(new Error(reason));
    }
    this.#pending.clear();
  }
}
