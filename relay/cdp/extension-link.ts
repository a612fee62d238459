// The relay's end of the `/extension` WebSocket. First proves the extension key to the extension
// (a challenge for the nonce it chose) and takes a hello only with the extension's proof back
// (wrong → close 4003). Validates every frame at the edge (bad JSON or
// shape → close 1007, anything before hello → close 1008, another protocol version → 4001),
// answers the extension's keepalive, drops a silent socket, and carries requests to the
// extension with a labelled timeout. What the frames mean is the switchboard's business. A large
// reply whose caller only forwards it is read at its head and passed on as raw JSON (raw-json.ts).

import { randomBytes } from 'node:crypto';
import type { RawData } from 'ws';
import {
  CLOSE,
  PERSON_CODES,
  PROTOCOL_VERSION,
  type EventFrame,
  type HandBackFrame,
  type HelloFrame,
  type PanelFrame,
  type PersonFrame,
  type PersonInputFrame,
  type RelayFrame,
  type RequestOp,
  type RequestResults,
  type TabAttachedFrame,
  type TabDetachedFrame,
  type TabSession,
  type TabParkedFrame,
  type TabUpdatedFrame,
} from '../../shared/protocol';
import { readBinaryReply } from '../../shared/binary-reply';
import { parseExtensionFrame } from '../../shared/protocol-parse';
import { ClawdError } from '../errors';
import { keyProofSync, proofMatches } from '../http/key-proofs';
import type { Logger } from '../log';
import { PendingCalls, type Settle } from './pending-calls';
import { RawJson, binaryResult, peekReply } from './raw-json';

/**
 * What the link needs of its socket: the subset of a `ws` WebSocket it uses, so an in-memory
 * transport (the benchmark's in-process echo extension) can stand in for a real socket.
 */
export interface LinkSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** `isBinary`: a binary frame (a base64 answer sent as its bytes); a socket that never has one may leave it out. */
  on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
}

export interface ExtensionLinkHandlers {
  /** The extension said hello; return the session id of each announced tab for the welcome. */
  hello(link: ExtensionLink, frame: HelloFrame): TabSession[];
  event(link: ExtensionLink, frame: EventFrame): void;
  tabAttached(link: ExtensionLink, frame: TabAttachedFrame): void;
  tabDetached(link: ExtensionLink, frame: TabDetachedFrame): void;
  tabUpdated(link: ExtensionLink, frame: TabUpdatedFrame): void;
  handBack(link: ExtensionLink, frame: HandBackFrame): void;
  tabParked(link: ExtensionLink, frame: TabParkedFrame): void;
  personInput(link: ExtensionLink, frame: PersonInputFrame): void;
  panel(link: ExtensionLink, frame: PanelFrame): void;
  person(link: ExtensionLink, frame: PersonFrame): void;
  closed(link: ExtensionLink, code: number, reason: string): void;
}

export interface ExtensionLinkOptions {
  /** The extension key in force (it may be rotated while the server runs). */
  key: () => string;
  /** The relay's own port: proofs name it, so one made for another server is worth nothing here. */
  port: number;
  /** The nonce the extension chose (`/extension?nonce=`), for the relay's proof. */
  clientNonce: string;
  relayVersion: string;
  helloMs: number;
  idleMs: number;
  commandMs: number;
  log: Logger;
}

/** WebSocket close reasons are limited to 123 bytes. */
function clampReason(reason: string): string {
  const bytes = Buffer.from(reason);
  return bytes.length <= 123 ? reason : bytes.subarray(0, 120).toString() + '...';
}

export class ExtensionLink {
  #hello: HelloFrame | undefined;
  #helloAt: number | undefined;
  /** The nonce the extension's proof must answer (sent in the challenge). */
  readonly #nonce = randomBytes(18).toString('base64url');
  readonly #pending = new PendingCalls<unknown>();
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly ws: LinkSocket,
    private readonly handlers: ExtensionLinkHandlers,
    private readonly options: ExtensionLinkOptions,
  ) {
    ws.on('message', this.#onMessage);
    ws.on('close', this.#onClose);
    ws.on('error', this.#onError);
    this.#idleTimer = setTimeout(() => this.close(CLOSE.helloRequired, 'no hello received in time'), options.helloMs);
    // First the relay proves it knows the key, for the extension's own nonce: until then the
    // extension says nothing (a program on this port while clawd was down learns nothing).
    this.send({
      type: 'challenge',
      nonce: this.#nonce,
      proof: keyProofSync(options.key(), 'relay', options.port, options.clientNonce),
    });
  }

  get hello(): HelloFrame | undefined {
    return this.#hello;
  }

  /** When the extension said hello on this connection (ms since the epoch): which worker's it is. */
  get helloAt(): number | undefined {
    return this.#helloAt;
  }

  /**
   * Sends a request to the extension. `settle` runs exactly once, synchronously when the answer
   * is read (so answers keep their order), on timeout, or when the link closes. `passThrough`:
   * the caller forwards the answer unread, so a large one may settle as a RawJson.
   */
  requestWith<K extends RequestOp['op']>(
    op: Extract<RequestOp, { op: K }>,
    label: string,
    settle: Settle<RequestResults[K]>,
    timeoutMs = this.options.commandMs,
    passThrough = false,
  ): void {
    if (this.#closed) {
      settle(new ClawdError('extension_not_connected', `${label} was not sent: the extension is not connected`));
      return;
    }
    const id = this.#pending.create(label, timeoutMs, settle as Settle<unknown>, passThrough);
    this.send({ type: 'request', id, ...op } as RelayFrame);
  }

  /** The promise form of requestWith, for requests whose answer order does not matter. */
  request<K extends RequestOp['op']>(
    op: Extract<RequestOp, { op: K }>,
    label: string,
    timeoutMs = this.options.commandMs,
  ): Promise<RequestResults[K]> {
    return new Promise((resolve, reject) =>
      this.requestWith(op, label, (error, value) => (error ? reject(error) : resolve(value!)), timeoutMs),
    );
  }

  send(frame: RelayFrame): void {
    if (!this.#closed) this.ws.send(JSON.stringify(frame));
  }

  close(code: number = CLOSE.normal, reason = ''): void {
    if (this.#closed) return;
    this.ws.close(code, clampReason(reason));
    this.#finish(code, reason);
  }

  /** A base64 answer sent as its bytes (shared/binary-reply.ts): the only binary frame there is. */
  #onBinary(data: RawData): void {
    const frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const read = this.#hello
      ? readBinaryReply(frame)
      : { ok: false as const, error: 'expected hello, got a binary frame' };
    if (!read.ok) {
      this.options.log.warn(`extension sent an invalid frame: ${read.error}`);
      this.close(this.#hello ? CLOSE.invalidFrame : CLOSE.helloRequired, read.error);
      return;
    }
    const { head, bytes } = read;
    this.#pending.resolve(head.id, binaryResult(head, bytes, this.#pending.passesThrough(head.id)));
  }

  readonly #onMessage = (data: RawData, isBinary: boolean) => {
    this.#armIdle();
    if (isBinary) return this.#onBinary(data);
    // A large answer for a caller that forwards it: routed by its id, its result left as it came.
    const reply = this.#hello && Buffer.isBuffer(data) ? peekReply(data) : undefined;
    if (reply && this.#pending.passesThrough(reply.id)) {
      this.#pending.resolve(reply.id, new RawJson(reply.result));
      return;
    }
    const parsed = parseExtensionFrame(data.toString());
    if (!parsed.ok) {
      this.options.log.warn(`extension sent an invalid frame: ${parsed.error}`);
      this.close(CLOSE.invalidFrame, parsed.error);
      return;
    }
    const frame = parsed.frame;
    if (!this.#hello && frame.type !== 'hello') {
      this.close(CLOSE.helloRequired, `expected hello, got ${frame.type}`);
      return;
    }
    switch (frame.type) {
      case 'hello':
        return this.#onHello(frame);
      case 'reply':
        if (frame.error) {
          const { code, message, cdp } = frame.error;
          const kind =
            code === 'tab_gone'
              ? 'target_closed'
              : (PERSON_CODES as readonly string[]).includes(code)
                ? (code as (typeof PERSON_CODES)[number])
                : 'extension_error';
          this.#pending.reject(frame.id, new ClawdError(kind, message, cdp ? { cdp } : {}));
        } else {
          this.#pending.resolve(frame.id, frame.result ?? {});
        }
        return;
      case 'event':
        return this.handlers.event(this, frame);
      case 'tabAttached':
        return this.handlers.tabAttached(this, frame);
      case 'tabDetached':
        return this.handlers.tabDetached(this, frame);
      case 'tabUpdated':
        return this.handlers.tabUpdated(this, frame);
      case 'ping':
        return this.send({ type: 'pong' });
      case 'handBack':
        return this.handlers.handBack(this, frame);
      case 'tabParked':
        return this.handlers.tabParked(this, frame);
      case 'personInput':
        return this.handlers.personInput(this, frame);
      case 'panel':
        return this.handlers.panel(this, frame);
      case 'person':
        return this.handlers.person(this, frame);
    }
  };

  #onHello(frame: HelloFrame): void {
    if (this.#hello) {
      this.close(CLOSE.invalidFrame, 'hello sent twice');
      return;
    }
    if (frame.protocol !== PROTOCOL_VERSION) {
      this.close(
        CLOSE.versionMismatch,
        `version mismatch: relay speaks protocol ${PROTOCOL_VERSION}, extension ${frame.protocol}`,
      );
      return;
    }
    if (!proofMatches(frame.proof, this.options.key(), 'extension', this.options.port, this.#nonce)) {
      this.options.log.warn('refused an /extension connection: its proof of the extension key is wrong');
      this.close(
        CLOSE.keyRefused,
        'this browser is not paired with this clawd server (its key is wrong): run `clawd pair` and open the link',
      );
      return;
    }
    this.#hello = frame;
    this.#helloAt = Date.now();
    const sessions = this.handlers.hello(this, frame);
    this.send({ type: 'welcome', protocol: PROTOCOL_VERSION, relayVersion: this.options.relayVersion, sessions });
  }

  #armIdle(): void {
    if (!this.#hello) return; // the hello deadline stays armed until hello arrives
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(
      () => this.close(CLOSE.idle, `silent for ${Math.round(this.options.idleMs / 1000)} s`),
      this.options.idleMs,
    );
  }

  readonly #onClose = (code: number, reason: Buffer) => this.#finish(code, reason.toString());

  readonly #onError = (error: Error) => {
    // ws reports protocol violations (e.g. a frame over maxPayload, close 1009) here before closing.
    this.options.log.warn(`extension socket error: ${error.message}`);
  };

  #finish(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    this.ws.off('message', this.#onMessage);
    this.#pending.rejectAll(
      (label) =>
        new ClawdError('extension_not_connected', `${label} failed: the extension disconnected before answering`),
    );
    this.handlers.closed(this, code, reason);
  }
}
