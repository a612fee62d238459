// Finds the clawd server through clawd's native messaging host (after `clawd install`): Chrome
// runs the host, which starts the home's server if none runs and answers its port and token; the
// extension keeps them as its settings, so nothing is pasted. Without the host (not installed, a
// relay on another machine) the settings the person gave stay as they are.

import { NATIVE_HOST_NAME, parseHostAnswer, type HostServer } from '../../shared/native-host-protocol';
import type { Settings } from './settings';

/** Starting a server may take a while on a cold machine (the host waits up to 30 s for it). */
const HOST_ANSWER_MS = 35_000;
/** A relay that stays away is asked about again at most this often (the host may start it again). */
const ASK_AGAIN_MS = 10_000;

export type HostLookup =
  { kind: 'server'; server: HostServer } | { kind: 'absent'; message: string } | { kind: 'failed'; message: string };

export async function askNativeHost(): Promise<HostLookup> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const raw = await Promise.race([
      chrome.runtime.sendNativeMessage(NATIVE_HOST_NAME, {
        type: 'hello',
        extensionVersion: chrome.runtime.getManifest().version,
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${HOST_ANSWER_MS / 1000} s`)), HOST_ANSWER_MS);
      }),
    ]);
    const answer = parseHostAnswer(raw);
    return answer.type === 'server' ? { kind: 'server', server: answer } : { kind: 'failed', message: answer.message };
  } catch (error) {
    const message = (error as Error).message;
    // Chrome's words when no manifest names us, or one names us without this extension's origin.
    if (/not found|forbidden/i.test(message)) return { kind: 'absent', message };
    return { kind: 'failed', message };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks the host once at start and again when the relay cannot be reached (not more often than
 * every ASK_AGAIN_MS, one question at a time); an answer that differs from the settings replaces them.
 */
export class HostLookups {
  #asking: Promise<HostLookup> | undefined;
  #lastAsked = 0;
  /** Whether the host answered the last time (the options page says where the settings came from). */
  last: HostLookup | undefined;

  constructor(
    private readonly settings: () => Promise<Settings>,
    private readonly apply: (server: HostServer, changed: boolean) => Promise<void>,
    private readonly askHost: () => Promise<HostLookup> = askNativeHost,
    private readonly now: () => number = Date.now,
  ) {}

  ask(force = false): Promise<HostLookup> | undefined {
    if (this.#asking) return this.#asking;
    if (!force && this.now() - this.#lastAsked < ASK_AGAIN_MS) return undefined;
    this.#lastAsked = this.now();
    this.#asking = (async () => {
      const found = await this.askHost();
      this.last = found;
      if (found.kind === 'server') {
        const current = await this.settings();
        const changed = current.relayPort !== found.server.relayPort || current.key !== found.server.key;
        await this.apply(found.server, changed);
      } else if (found.kind === 'failed') console.warn(`clawd: the native host did not help: ${found.message}`);
      return found;
    })().finally(() => {
      this.#asking = undefined;
    });
    return this.#asking;
  }
}
