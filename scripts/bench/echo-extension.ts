// An extension that lives in the relay's own process: an in-memory LinkSocket that answers the
// relay's challenge with a hello (proving the key) with one tab and answers every request at once,
// delivering each answer in a later task as a socket would. It lets relay-hop measure the relay's own work, with no network between the
// relay and the extension.

import { EventEmitter } from 'node:events';
import { PROTOCOL_VERSION, type RelayFrame } from '../../shared/protocol';
import type { LinkSocket } from '../../relay/cdp/extension-link';
import { fakeTab } from '../../test/helpers/fake-extension';
import { keyProofSync } from '../../relay/http/key-proofs';

export class InMemoryEchoExtension extends EventEmitter implements LinkSocket {
  readonly tab = fakeTab(1);
  /** The nonce this extension chose: the relay's challenge proves the key for it. */
  readonly nonce = 'bench-nonce-bench-nonce';

  constructor(
    private readonly key: string,
    private readonly port: number,
  ) {
    super();
  }

  #hello(relayNonce: string): void {
    this.#deliver({
      type: 'hello',
      proof: keyProofSync(this.key, 'extension', this.port, relayNonce),
      protocol: PROTOCOL_VERSION,
      extensionVersion: 'bench',
      browser: { product: 'Chrome/0', userAgent: 'bench', protocolVersion: '1.3' },
      tabs: [this.tab],
    });
  }

  send(data: string): void {
    const frame = JSON.parse(data) as RelayFrame;
    if (frame.type === 'challenge') this.#hello(frame.nonce);
    if (frame.type === 'request') this.#deliver({ type: 'reply', id: frame.id, result: {} });
  }

  close(code = 1000, reason = ''): void {
    setImmediate(() => this.emit('close', code, Buffer.from(reason)));
  }

  #deliver(frame: object): void {
    const text = Buffer.from(JSON.stringify(frame));
    setImmediate(() => this.emit('message', text));
  }
}
