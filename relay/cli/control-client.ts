// How the CLI reaches the running `clawd serve`: $CLAWD_CONTROL_URL if set, else the address in
// serve.json in the home (so a server on other ports is found), else the default port; the token
// from config.json. Every request has a timeout; a server that cannot be reached says how to start it.

import { DEFAULT_CONTROL_PORT } from '../../shared/defaults';
import { ClawdError, type ErrorCode } from '../errors';
import { loadConfig } from '../home/config-store';
import { readServeState, type ServeState } from '../home/serve-state';

export class ControlClient {
  private constructor(
    readonly url: string,
    readonly token: string,
    readonly state: ServeState | undefined,
  ) {}

  /** A client of the control API at `url` (e.g. a server this process runs itself). */
  static at(url: string, token: string): ControlClient {
    return new ControlClient(url.replace(/\/$/, ''), token, undefined);
  }

  static async locate(home: string, env: NodeJS.ProcessEnv = process.env): Promise<ControlClient> {
    const config = await loadConfig(home);
    const state = await readServeState(home);
    const url = env.CLAWD_CONTROL_URL || state?.controlUrl || `http://127.0.0.1:${DEFAULT_CONTROL_PORT}`;
    return new ControlClient(url.replace(/\/$/, ''), config.token, state);
  }

  /** Calls the control API; the server's own error (code and message) becomes a ClawdError. */
  async call<T = any>(method: string, path: string, options: { profile?: string; body?: unknown; timeoutMs?: number } = {}): Promise<T> {
    const url = new URL(this.url + path);
    if (options.profile) url.searchParams.set('profile', options.profile);
    // A safety net only: the server bounds every action itself (at most 60 s, plus its own steps).
    const timeoutMs = options.timeoutMs ?? 90_000;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { Authorization: `Bearer ${this.token}`, ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ClawdError(
        timedOut ? 'command_timeout' : 'not_running',
        timedOut ? `the clawd server at ${this.url} did not answer ${method} ${path} within ${Math.round(timeoutMs / 1000)} s` : `cannot reach the clawd server at ${this.url}: start it with \`clawd serve\``,
        { cause: error },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new ClawdError('upstream_error', `${this.url}${path} answered HTTP ${response.status} with something that is not JSON: is this the clawd control API?`);
    }
    if (!response.ok) {
      const error = (body as { error?: { code?: string; message?: string } }).error;
      throw new ClawdError((error?.code as ErrorCode | undefined) ?? 'upstream_error', error?.message ?? `HTTP ${response.status}`);
    }
    return body as T;
  }
}
