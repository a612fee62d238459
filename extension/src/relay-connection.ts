// The worker's WebSocket to the relay: connect with a nonce of our own, let the relay prove it
// knows the extension key for it (else it is not clawd: close, say so, send nothing), then say
// hello with our proof for the relay's nonce, wait for welcome,
// keep the worker alive with an application-level ping (MV3 counts only real messages), notice
// a silent relay, and reconnect with backoff and jitter. Frames sent while the link is down are
// kept (bounded) and flushed after the next welcome, so an event that woke a sleeping worker is
// not lost while the socket is still opening.

import { binaryReply } from '../../shared/binary-reply';
import { LIMITS, TIMEOUTS } from '../../shared/defaults';
import { PERSON_CODES } from '../../shared/protocol';
import { parseRelayFrame } from '../../shared/protocol-parse';
import {
  CLOSE,
  type AsksFrame,
  type ConsentFrame,
  type ExtensionFrame,
  type HelloFrame,
  type RequestFrame,
  type TabSessionFrame,
  type WelcomeFrame,
  type WireError,
} from '../../shared/protocol';
import { checkRelay } from './connection-check';
import { keyProof, newNonce, proofsEqual } from '../../shared/key-proof';
import type { Settings } from './settings';

export type LinkStatus = 'unconfigured' | 'connecting' | 'connected' | 'error';

export interface RelayConnectionHooks {
  /** The hello without its proof (the connection adds it, once the relay proved itself). */
  hello(): Promise<Omit<HelloFrame, 'proof'>>;
  /** Another browser took the relay over (true), or this one takes it back (false): kept across worker restarts. */
  steppedAside(aside: boolean): void;
  welcome(frame: WelcomeFrame): void;
  tabSession(frame: TabSessionFrame): void;
  request(frame: RequestFrame): Promise<unknown>;
  status(status: LinkStatus, detail: string): void;
  /** The consent state for the side panel (sent while one is open). */
  consent(frame: ConsentFrame): void;
  /** The questions waiting for the person, for notifications (sent whenever they change). */
  asks(frame: AsksFrame): void;
  /** The server refused our key, or replaced it: the native host may know the new one (ask now). */
  keyRefused(): void;
}

/** A refusal the person's settings make, with the relay's code for it. */
export class PersonRefusal extends Error {
  constructor(
    readonly code: (typeof PERSON_CODES)[number],
    message: string,
  ) {
    super(message);
  }
}

/** Turns a rejection into the wire error the relay expects (Chrome's protocol errors kept whole). */
export function toWireError(error: unknown): WireError {
  if (error instanceof PersonRefusal) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('{')) {
    try {
      const cdp = JSON.parse(message) as { code: number; message: string; data?: string };
      if (typeof cdp.code === 'number' && typeof cdp.message === 'string')
        return { code: 'cdp', message: cdp.message, cdp };
    } catch {
      // not Chrome's JSON after all
    }
  }
  if (/not attached|No tab with id|No target with given id/i.test(message)) return { code: 'tab_gone', message };
  return { code: 'extension_error', message };
}

export class RelayConnection {
  #settings: Settings | undefined;
  #ws: WebSocket | undefined;
  /** The nonce the open socket's challenge must prove the key for. */
  #nonce = '';
  #welcomed = false;
  /** The open socket's relay sent its challenge (it comes once, first). */
  #challenged = false;
  /** The open socket's relay failed its proof: we closed it, and say why. */
  #unproven = false;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #keepaliveTimer: ReturnType<typeof setInterval> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #outbox: string[] = [];
  #dropped = 0;
  /**
   * Set when another browser's extension took over the relay (close 4000). Reconnecting on our
   * own would take it back, and the two would flap forever; only a click or new settings do.
   */
  #parked = false;
  #waiters: Array<{ resolve(): void; reject(e: Error): void }> = [];
  status: LinkStatus = 'unconfigured';
  detail = 'not configured yet';

  constructor(private readonly hooks: RelayConnectionHooks) {}

  /** Stepped aside for another browser: only a click or new settings take the relay back. */
  get aside(): boolean {
    return this.#parked;
  }

  /** The relay's origin, http://127.0.0.1:<port>, once configured. */
  get relayOrigin(): string | undefined {
    return this.#settings ? `http://127.0.0.1:${this.#settings.relayPort}` : undefined;
  }

  /**
   * New settings: reconnect now if they changed (or if we were not connected). `stayAside`: this
   * browser had stepped aside for another when its worker stopped; it does not take the relay back
   * on its own (a click or new settings do).
   */
  configure(settings: Settings, stayAside = false): void {
    const same = this.#settings?.relayPort === settings.relayPort && this.#settings?.key === settings.key;
    this.#settings = settings;
    if (stayAside) {
      this.#disconnect();
      this.#stepAside();
      return;
    }
    if (same && (this.#ws || this.#retryTimer)) return;
    this.#takeBack();
    this.#disconnect();
    this.#attempt = 0;
    this.#connect();
  }

  #stepAside(): void {
    this.#parked = true;
    this.hooks.steppedAside(true);
    this.#setStatus('error', 'another browser connected to the relay; click the clawd button to take it back');
  }

  #takeBack(): void {
    if (!this.#parked) return;
    this.#parked = false;
    this.hooks.steppedAside(false);
  }

  /** Nudge from an alarm: connect now if idle or waiting to retry (not when another browser took over). */
  wake(): void {
    if (this.#ws || !this.#settings || this.#parked) return;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#connect();
  }

  /** Resolves once welcomed; rejects with the precise reason if that does not happen in time. */
  ensureConnected(timeoutMs: number): Promise<void> {
    if (this.#welcomed) return Promise.resolve();
    this.#takeBack(); // the user asked for this browser
    this.wake();
    if (this.status === 'unconfigured') return Promise.reject(new Error(this.detail));
    return new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      this.#waiters.push(waiter);
      setTimeout(() => {
        if (!this.#waiters.includes(waiter)) return;
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(
          new Error(this.status === 'error' ? this.detail : `the relay did not answer within ${timeoutMs / 1000} s`),
        );
      }, timeoutMs);
    });
  }

  /** Sends now, or keeps the frame for the next connection (replies are only useful now). */
  send(frame: ExtensionFrame): void {
    const text = JSON.stringify(frame);
    if (this.#welcomed && this.#ws?.readyState === WebSocket.OPEN) {
      this.#ws.send(text);
      return;
    }
    // Replies, pings and what is only true now (the person's input, whether a panel is open: said again at each welcome) are not kept.
    if (frame.type === 'reply' || frame.type === 'ping' || frame.type === 'personInput' || frame.type === 'panel')
      return;
    this.#outbox.push(text);
    if (this.#outbox.length > LIMITS.extensionEventBuffer) {
      this.#outbox.shift();
      this.#dropped++;
    }
  }

  /** A request's answer: a large base64 one as its bytes (shared/binary-reply.ts), any other as text. */
  #reply(frame: RequestFrame, result: unknown): void {
    const bytes = frame.op === 'cdp' ? binaryReply(frame.id, frame.method, result) : undefined;
    if (bytes && this.#welcomed && this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(bytes);
    else this.send({ type: 'reply', id: frame.id, result });
  }

  #setStatus(status: LinkStatus, detail: string): void {
    this.status = status;
    this.detail = detail;
    this.hooks.status(status, detail);
    if (status === 'connected' || status === 'error' || status === 'unconfigured') {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const w of waiters) status === 'connected' ? w.resolve() : w.reject(new Error(detail));
    }
  }

  #connect(): void {
    const settings = this.#settings;
    if (!settings) return;
    if (settings.key === '') {
      this.#setStatus(
        'unconfigured',
        'not paired with clawd yet: run `clawd pair` and open the link (or `clawd install`)',
      );
      return;
    }
    this.#setStatus('connecting', `connecting to 127.0.0.1:${settings.relayPort}`);
    // No credential in the address: the relay proves the key first, for this nonce.
    this.#nonce = newNonce();
    const ws = new WebSocket(`ws://127.0.0.1:${settings.relayPort}/extension?nonce=${this.#nonce}`);
    this.#ws = ws;
    ws.onmessage = (event) => this.#onMessage(ws, event);
    ws.onclose = (event) => void this.#onClose(ws, event.code, event.reason);
  }

  /** The relay's challenge: its proof must hold before we say anything; then our hello, with our proof. */
  async #onChallenge(ws: WebSocket, proof: string, relayNonce: string): Promise<void> {
    const settings = this.#settings;
    if (!settings) return;
    try {
      const expected = await keyProof(settings.key, 'relay', settings.relayPort, this.#nonce);
      if (!proofsEqual(proof, expected)) {
        this.#unproven = true;
        ws.close(CLOSE.relayUnproven, 'not the clawd server paired with this browser');
        return;
      }
      const hello = await this.hooks.hello();
      const answer = await keyProof(settings.key, 'extension', settings.relayPort, relayNonce);
      if (ws === this.#ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...hello, proof: answer }));
    } catch (error) {
      ws.close(CLOSE.normal, `hello failed: ${(error as Error).message}`.slice(0, 120));
    }
  }

  #onMessage(ws: WebSocket, event: MessageEvent): void {
    if (ws !== this.#ws) return;
    this.#armIdle(ws);
    const parsed = parseRelayFrame(typeof event.data === 'string' ? event.data : '');
    if (!parsed.ok) {
      ws.close(CLOSE.invalidFrame, parsed.error.slice(0, 120));
      return;
    }
    const frame = parsed.frame;
    // Until the relay proved the key, the challenge is the only frame we take.
    if (!this.#challenged && frame.type !== 'challenge') {
      ws.close(CLOSE.helloRequired, `expected the relay's challenge, got ${frame.type}`);
      return;
    }
    switch (frame.type) {
      case 'challenge':
        if (this.#challenged) return;
        this.#challenged = true;
        void this.#onChallenge(ws, frame.proof, frame.nonce);
        return;
      case 'welcome':
        this.#welcomed = true;
        this.#attempt = 0;
        this.hooks.welcome(frame);
        for (const text of this.#outbox) ws.send(text);
        if (this.#dropped > 0) console.warn(`clawd: ${this.#dropped} events were dropped while the relay was away`);
        this.#outbox = [];
        this.#dropped = 0;
        this.#keepaliveTimer = setInterval(() => this.send({ type: 'ping' }), TIMEOUTS.keepaliveMs);
        this.#setStatus('connected', `connected to 127.0.0.1:${this.#settings?.relayPort}`);
        return;
      case 'tabSession':
        return this.hooks.tabSession(frame);
      case 'pong':
        return;
      case 'consent':
        return this.hooks.consent(frame);
      case 'asks':
        return this.hooks.asks(frame);
      case 'request':
        this.hooks.request(frame).then(
          (result) => this.#reply(frame, result ?? {}),
          (error: unknown) => this.send({ type: 'reply', id: frame.id, error: toWireError(error) }),
        );
        return;
    }
  }

  #armIdle(ws: WebSocket): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => ws.close(CLOSE.idle, 'relay silent'), TIMEOUTS.extensionIdleMs);
  }

  async #onClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    if (ws !== this.#ws) return; // an older socket we replaced
    this.#disconnect();
    const settings = this.#settings;
    if (!settings) return;
    let detail = reason || `connection closed (${code})`;
    const unproven = this.#unproven;
    this.#unproven = false;
    if (code === CLOSE.replaced) return this.#stepAside();
    if (code === CLOSE.versionMismatch) detail = `${reason}. Rebuild with \`npm run build\` and reload the extension.`;
    else if (unproven)
      detail = `what answers on port ${settings.relayPort} could not prove it is the clawd server this browser is paired with: nothing was sent to it (if clawd was restarted with a new key, run \`clawd pair\`)`;
    else if (code === CLOSE.keyRefused || code === CLOSE.keyRotated) this.hooks.keyRefused();
    else if (code === 1006 || code === 1002) detail = (await checkRelay(settings.relayPort)).message;
    // New settings or a wake-up may have started another socket while we asked the relay why.
    if (this.#ws || this.#retryTimer || settings !== this.#settings) return;
    this.#setStatus('error', detail);
    const delay =
      Math.min(TIMEOUTS.reconnectMaxMs, TIMEOUTS.reconnectMinMs * 2 ** this.#attempt++) * (0.7 + Math.random() * 0.6);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect();
    }, delay);
  }

  #disconnect(): void {
    const ws = this.#ws;
    this.#ws = undefined;
    this.#welcomed = false;
    this.#challenged = false;
    clearInterval(this.#keepaliveTimer);
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(CLOSE.normal, 'reconnecting');
  }
}
