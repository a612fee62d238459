// The worker's side of the side panel and the options page: each opens a port to the worker; the
// relay is told a panel is open while any port is, and the consent state it sends is handed to
// every port (the newest kept for a port that opens later). What the person says on a port goes
// to the worker's hook. The messages on a port are typed here for both ends.

import type { ConsentState } from '../../shared/consent-state';
import type { PersonFrame } from '../../shared/protocol';

export const CONSENT_PORT = 'clawd-consent';

/** Panel → worker: what the person said. */
export interface PanelMessage {
  say: PersonFrame['say'];
}

/** Worker → panel: the consent state, or how the link to clawd is. */
export interface WorkerMessage {
  state?: ConsentState;
  status?: { state: string; text: string };
}

export class ConsentPorts {
  // Added when a panel or options page connects, removed when it disconnects.
  readonly #ports = new Set<chrome.runtime.Port>();
  #state: ConsentState | undefined;
  #status: WorkerMessage['status'];

  constructor(
    private readonly hooks: {
      /** The first port opened, or the last one closed. */
      open(open: boolean): void;
      said(say: PersonFrame['say']): void;
    },
  ) {}

  get open(): boolean {
    return this.#ports.size > 0;
  }

  add(port: chrome.runtime.Port): void {
    this.#ports.add(port);
    port.onMessage.addListener((message: PanelMessage) => {
      if (message && typeof message === 'object' && 'say' in message) this.hooks.said(message.say);
    });
    port.onDisconnect.addListener(() => {
      this.#ports.delete(port);
      if (this.#ports.size === 0) this.hooks.open(false);
    });
    if (this.#status) port.postMessage({ status: this.#status } satisfies WorkerMessage);
    if (this.#state) port.postMessage({ state: this.#state } satisfies WorkerMessage);
    if (this.#ports.size === 1) this.hooks.open(true);
  }

  state(state: ConsentState): void {
    this.#state = state;
    this.#post({ state });
  }

  status(state: string, text: string): void {
    this.#status = { state, text };
    this.#post({ status: this.#status });
  }

  #post(message: WorkerMessage): void {
    for (const port of this.#ports) {
      try {
        port.postMessage(message);
      } catch {
        this.#ports.delete(port); // closed under us
      }
    }
  }
}
