// A scripted stand-in for the extension on `/extension`, for socket-tier tests of the relay: it
// speaks the real protocol from shared/protocol.ts, records the requests it gets, and answers
// them with whatever the test's handler returns. (End-to-end tests use the real extension.)

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

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as RelayFrame;
      this.received.push(frame);
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

  /** Opens the socket (not saying hello yet). */
  static open(port: number, token: string, options: { origin?: string; path?: string } = {}): Promise<FakeExtension> {
    const ws = new WebSocket(
      `ws://127.0.0.1:${port}${options.path ?? '/extension'}?token=${encodeURIComponent(token)}`,
      {
        origin: options.origin ?? EXTENSION_ORIGIN,
        perMessageDeflate: false,
      },
    );
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new FakeExtension(ws)));
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })),
      );
      ws.once('error', reject);
    });
  }

  /** Opens the socket, says hello with these tabs and waits for the welcome. */
  static async connect(
    port: number,
    token: string,
    tabs: AnnouncedTab[] = [],
    hello: Partial<HelloFrame> = {},
  ): Promise<FakeExtension> {
    const ext = await FakeExtension.open(port, token);
    await ext.hello(tabs, hello);
    return ext;
  }

  async hello(tabs: AnnouncedTab[] = [], overrides: Partial<HelloFrame> = {}): Promise<RelayFrame> {
    const welcome = this.next((f) => f.type === 'welcome');
    this.send({
      type: 'hello',
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
    this.welcome = await welcome;
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
