// A client for the HTTP face of a CDP endpoint: Chrome's own `/json/*` on a managed profile's
// port, our relay's (with the token) for the extension profile, or a remote browser's. Tab
// operations are the same calls for every driver. Every request has a timeout: a short one for
// the questions readiness asks, a longer one for tab calls (a browser busy starting, or eight on
// two cores, took over 2 s to open a tab: bench `many-profiles`); one that runs out is a
// `command_timeout`, never "nothing answers" (that is for a browser that refused the connection).

/** Opening, focusing or closing a tab: what a loaded browser may take. */
const TAB_CALL_MS = 15_000;

import WebSocket from 'ws';
import { ClawdError, type ErrorCode } from '../errors';

import type { CdpTarget, CdpVersion, TabEndpoint } from './tab-endpoint';

export type { CdpTarget, CdpVersion } from './tab-endpoint';

export class CdpHttp implements TabEndpoint {
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
    private readonly timeoutMs = 5_000,
    /** Opening, focusing or closing a tab (never shorter than `timeoutMs`). */
    private readonly tabCallMs = TAB_CALL_MS,
  ) {}

  async #request(method: string, path: string, timeoutMs = this.timeoutMs): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.base), {
        method,
        headers: this.headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError')
        throw new ClawdError(
          'command_timeout',
          `the browser at ${this.base} did not answer ${method} ${path.split('?')[0]} within ${timeoutMs / 1000} s (it is running, but busy)`,
          { cause: error },
        );
      throw new ClawdError('not_running', `nothing answers CDP at ${this.base} (${(error as Error).message})`, {
        cause: error,
      });
    }
    if (response.status === 404)
      throw new ClawdError('target_not_found', `${this.base}${path}: ${(await response.text()).slice(0, 200)}`);
    if (!response.ok) {
      const text = await response.text();
      // clawd's own relay (an extension profile's) says why in its own words: the person's refusal stays one.
      const said = saidByClawd(text);
      if (said) throw new ClawdError(said.code, said.message);
      throw new ClawdError(
        'upstream_error',
        `${this.base}${path} answered HTTP ${response.status}: ${text.slice(0, 200)}`,
      );
    }
    return response;
  }

  get #tabCallMs(): number {
    return Math.max(this.timeoutMs, this.tabCallMs);
  }

  async version(timeoutMs = this.timeoutMs): Promise<CdpVersion> {
    return (await (await this.#request('GET', '/json/version', timeoutMs)).json()) as CdpVersion;
  }

  /** The page targets (tabs). */
  async list(): Promise<CdpTarget[]> {
    const targets = (await (await this.#request('GET', '/json/list')).json()) as CdpTarget[];
    return targets.filter((t) => t.type === 'page');
  }

  async open(url: string): Promise<CdpTarget> {
    return (await (
      await this.#request('PUT', `/json/new?${encodeURIComponent(url)}`, this.#tabCallMs)
    ).json()) as CdpTarget;
  }

  async activate(id: string): Promise<void> {
    await this.#request('GET', `/json/activate/${encodeURIComponent(id)}`, this.#tabCallMs);
  }

  async close(id: string): Promise<void> {
    await this.#request('GET', `/json/close/${encodeURIComponent(id)}`, this.#tabCallMs);
  }

  /**
   * Ready = /json/version answers and its WebSocket opens (two steps: a browser answers HTTP a moment before its WebSocket accepts). With the
   * WebSocket URL already known (Chromium prints it on stderr as it starts listening) both steps
   * run at once: measured on Chromium 156 that saves the 30–50 ms the handshake takes while the
   * browser finishes starting.
   */
  async isReady(handshakeMs = 2_000, knownWebSocketUrl?: string): Promise<CdpVersion | undefined> {
    const version = this.version().catch(() => undefined);
    if (knownWebSocketUrl) {
      const [answer, opened] = await Promise.all([version, this.#opens(knownWebSocketUrl, handshakeMs)]);
      return answer && opened ? answer : undefined;
    }
    const answer = await version;
    return answer && (await this.#opens(answer.webSocketDebuggerUrl, handshakeMs)) ? answer : undefined;
  }

  #opens(url: string, handshakeMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const ws = new WebSocket(url, { headers: this.headers, handshakeTimeout: handshakeMs });
      ws.once('open', () => {
        ws.close();
        resolve(true);
      });
      ws.once('error', () => resolve(false));
    });
  }
}

/** The person's refusals clawd's relay answers `/json/*` with (`{error: {code, message}}`), kept as they are. */
const PASSED_ON = new Set<ErrorCode>(['focus_refused', 'tab_open_refused', 'origin_blocked', 'person_declined']);

function saidByClawd(text: string): { code: ErrorCode; message: string } | undefined {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (PASSED_ON.has(error?.code as ErrorCode) && typeof error?.message === 'string')
      return { code: error.code as ErrorCode, message: error.message };
  } catch {
    // Chrome's own text
  }
  return undefined;
}
