// A scripted stand-in for the extension on `/extension`, for socket-tier tests of the relay: it
// speaks the real protocol from shared/protocol.ts (the relay's challenge, then a hello proving the
// extension key it was given), records the requests it gets, and answers them with whatever the
// test's handler returns. (End-to-end tests use the real extension.)

import WebSocket from 'ws';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import {
  PROTOCOL_VERSION,
  type AnnouncedTab,
  type ExtensionFrame,
  type HelloFrame,
  type RelayFrame,
  type RequestFrame,
  type WireError,
} from '../../shared/protocol';
import { nextMatching } from './waits';
import { keyProofSync } from '../../relay/http/key-proofs';
import { newNonce } from '../../shared/key-proof';

export type RequestHandler = (request: RequestFrame) => unknown | Promise<unknown>;

export function fakeTab(tabId: number, overrides: Partial<AnnouncedTab['targetInfo']> = {}): AnnouncedTab {
  const targetId = `PAGE${String(tabId).padStart(28, '0')}`;
  return {
    tabId,
    targetInfo: {
      targetId,
      type: 'page',
      title: `tab ${tabId}`,
      url: `https://example.test/${tabId}`,
      attached: true,
      canAccessOpener: false,
      browserContextId: 'CTX1',
      ...overrides,
    },
  };
}

export class FakeExtension {
  readonly requests: RequestFrame[] = [];
  readonly received: RelayFrame[] = [];
  handler: RequestHandler = () => ({});
  /** The relay's welcome, once hello has been answered. */
  welcome: RelayFrame | undefined;
  closed: Promise<{ code: number; reason: string }>;
  /** The relay's first frame: its proof of the key for our nonce, and the nonce our hello answers. */
  readonly challenge: Promise<Extract<RelayFrame, { type: 'challenge' }>>;

  private constructor(
    readonly ws: WebSocket,
    /** The extension key this stand-in proves (a wrong one plays an impostor). */
    readonly key: string,
    readonly port: number,
    /** The nonce it opened the socket with. */
    readonly nonce: string,
  ) {
    let challenged: (frame: Extract<RelayFrame, { type: 'challenge' }>) => void = () => {};
    this.challenge = new Promise((resolve) => (challenged = resolve));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as RelayFrame;
      this.received.push(frame);
      if (frame.type === 'challenge') challenged(frame);
      if (frame.type !== 'request') return;
      this.requests.push(frame);
      Promise.resolve()
        .then(() => this.handler(frame))
        .then(
          (result) => this.send({ type: 'reply', id: frame.id, result }),
          (error: unknown) => {
            const wire: WireError = (error as { wire?: WireError }).wire ?? {
              code: 'extension_error',
              message: String((error as Error).message ?? error),
            };
            this.send({ type: 'reply', id: frame.id, error: wire });
          },
        );
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens the socket with a nonce of its own (not saying hello yet); `key` is the extension key it will prove. */
  static open(
    port: number,
    key: string,
    options: { origin?: string; path?: string; nonce?: string; query?: string } = {},
  ): Promise<FakeExtension> {
    const nonce = options.nonce ?? newNonce();
    const ws = new WebSocket(
      `ws://127.0.0.1:${port}${options.path ?? '/extension'}?${options.query ?? `nonce=${encodeURIComponent(nonce)}`}`,
      {
        origin: options.origin ?? EXTENSION_ORIGIN,
        perMessageDeflate: false,
      },
    );
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new FakeExtension(ws, key, port, nonce)));
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })),
      );
      ws.once('error', reject);
    });
  }

  /** Opens the socket, says hello with these tabs and waits for the welcome. */
  static async connect(
    port: number,
    key: string,
    tabs: AnnouncedTab[] = [],
    hello: Partial<HelloFrame> = {},
  ): Promise<FakeExtension> {
    const ext = await FakeExtension.open(port, key);
    await ext.hello(tabs, hello);
    return ext;
  }

  /** Whether the relay's challenge proved the key this stand-in holds (what the real extension checks first). */
  async relayProved(): Promise<boolean> {
    const { proof } = await this.challenge;
    return proof === keyProofSync(this.key, 'relay', this.port, this.nonce);
  }

  async hello(tabs: AnnouncedTab[] = [], overrides: Partial<HelloFrame> = {}): Promise<RelayFrame> {
    const welcome = this.next((f) => f.type === 'welcome');
    const { nonce } = await this.challenge;
    this.send({
      type: 'hello',
      proof: keyProofSync(this.key, 'extension', this.port, nonce),
      protocol: PROTOCOL_VERSION,
      extensionVersion: '0.0.0-test',
      browser: {
        product: 'Chrome/156.0.1.2',
        userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
        protocolVersion: '1.3',
      },
      tabs,
      ...overrides,
    });
    // Refused (a wrong key): said at once, not after the welcome's wait.
    this.welcome = await Promise.race([
      welcome,
      this.closed.then(({ code, reason }) => {
        throw new Error(`the relay closed the socket (${code}: ${reason})`);
      }),
    ]);
    return this.welcome;
  }

  send(frame: ExtensionFrame): void {
    this.ws.send(JSON.stringify(frame));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  event(tabId: number, method: string, params: Record<string, unknown> = {}, sessionId?: string): void {
    this.send({ type: 'event', tabId, method, params, ...(sessionId ? { sessionId } : {}) });
  }

  /** The next frame from the relay (not one already received) that matches. */
  next(predicate: (f: RelayFrame) => boolean, timeoutMs = 5_000): Promise<RelayFrame> {
    const subscribe = (deliver: (frame: RelayFrame) => void) => {
      const listener = (data: WebSocket.RawData) => deliver(JSON.parse(data.toString()) as RelayFrame);
      this.ws.on('message', listener);
      return () => void this.ws.off('message', listener);
    };
    return nextMatching(subscribe, predicate, 'a frame from the relay', timeoutMs);
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.ws.close();
    return this.closed.then(() => undefined);
  }
}
