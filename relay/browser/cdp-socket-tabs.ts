// Tabs of a browser that gives only its CDP WebSocket — a Selenium Grid session's `se:cdp`, a
// hosted browser's URL — where no `/json/*` answers beside it: listed, opened, focused and closed
// over CDP's Target domain, its version from Browser.getVersion, readiness by opening the socket.
// One short connection per call, as `/json/*` is one request per call: nothing to keep alive or
// to lose when the endpoint restarts. The URL's query (a token) and the headers go with every
// connection; what the endpoint answered instead of a socket is said in the error.

import WebSocket from 'ws';
import { ClawdError } from '../errors';
import type { CdpTarget, CdpVersion, TabEndpoint } from './tab-endpoint';

/** Opening, focusing or closing a tab: what a loaded browser may take (as over `/json/*`). */
const TAB_CALL_MS = 15_000;

interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
}

export class CdpSocketTabs implements TabEndpoint {
  constructor(
    /** The browser's CDP WebSocket (ws:// or wss://, query and user:password kept). */
    readonly base: string,
    private readonly headers: Record<string, string> = {},
    private readonly timeoutMs = 5_000,
    private readonly tabCallMs = TAB_CALL_MS,
  ) {}

  /** One CDP command on a connection of its own, answered or refused within `timeoutMs`. */
  #call<T>(method: string, params: object, timeoutMs = this.timeoutMs): Promise<T> {
    const where = redacted(this.base);
    return new Promise<T>((resolve, reject) => {
      const ws = new WebSocket(this.base, { headers: this.headers, handshakeTimeout: timeoutMs });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(
          new ClawdError(
            'command_timeout',
            `the browser at ${where} did not answer ${method} within ${timeoutMs / 1000} s (it is reachable, but busy)`,
          ),
        );
      }, timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.close();
        settle();
      };
      // Something answered, but not with a WebSocket: say what (a 401 of a token, a 404 of a gone session).
      ws.once('unexpected-response', (_request, response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk.slice(0, 300 - body.length)));
        response.once('end', () =>
          done(() =>
            reject(
              new ClawdError(
                response.statusCode === 404 ? 'not_running' : 'upstream_error',
                `${where} answered HTTP ${response.statusCode}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ''} instead of a CDP WebSocket`,
              ),
            ),
          ),
        );
        response.once('error', () =>
          done(() => reject(new ClawdError('not_running', `nothing answers CDP at ${where}`))),
        );
      });
      ws.once('error', (error) =>
        done(() =>
          reject(new ClawdError('not_running', `nothing answers CDP at ${where} (${error.message})`, { cause: error })),
        ),
      );
      ws.once('open', () => ws.send(JSON.stringify({ id: 1, method, params })));
      ws.on('message', (data) => {
        let answer: { id?: number; result?: T; error?: { message?: string } };
        try {
          answer = JSON.parse(data.toString()) as typeof answer;
        } catch {
          return; // not ours to read
        }
        if (answer.id !== 1) return; // an event
        done(() => {
          if (!answer.error) return resolve(answer.result as T);
          const message = answer.error.message ?? 'refused';
          reject(
            new ClawdError(
              /no target|not found/i.test(message) ? 'target_not_found' : 'upstream_error',
              `${where}: ${method} answered ${message}`,
            ),
          );
        });
      });
      ws.once('close', (code) =>
        done(() =>
          reject(
            new ClawdError('not_running', `${where} closed the CDP connection (${code}) before answering ${method}`),
          ),
        ),
      );
    });
  }

  get #tabCallMs(): number {
    return Math.max(this.timeoutMs, this.tabCallMs);
  }

  async version(timeoutMs = this.timeoutMs): Promise<CdpVersion> {
    const v = await this.#call<{ product: string; protocolVersion: string; userAgent: string }>(
      'Browser.getVersion',
      {},
      timeoutMs,
    );
    return {
      Browser: v.product,
      'Protocol-Version': v.protocolVersion,
      'User-Agent': v.userAgent,
      webSocketDebuggerUrl: this.base,
    };
  }

  async list(): Promise<CdpTarget[]> {
    const { targetInfos } = await this.#call<{ targetInfos: TargetInfo[] }>('Target.getTargets', {});
    return targetInfos.filter((t) => t.type === 'page').map(toTarget);
  }

  async open(url: string): Promise<CdpTarget> {
    const { targetId } = await this.#call<{ targetId: string }>('Target.createTarget', { url }, this.#tabCallMs);
    return { id: targetId, type: 'page', title: '', url };
  }

  async activate(id: string): Promise<void> {
    await this.#call('Target.activateTarget', { targetId: id }, this.#tabCallMs);
  }

  async close(id: string): Promise<void> {
    await this.#call('Target.closeTarget', { targetId: id }, this.#tabCallMs);
  }

  /** Ready = the socket opens and the browser says its version, within `handshakeMs`. */
  isReady(handshakeMs = 2_000): Promise<CdpVersion | undefined> {
    return this.version(handshakeMs).catch(() => undefined);
  }

  /** Why the endpoint is not ready (what it answered), for a status hint; undefined when it is. */
  problem(handshakeMs = 2_000): Promise<string | undefined> {
    return this.version(handshakeMs).then(
      () => undefined,
      (error: Error) => error.message,
    );
  }
}

const toTarget = (t: TargetInfo): CdpTarget => ({ id: t.targetId, type: t.type, title: t.title, url: t.url });

/** The URL as it may be said: no password, no query values (tokens live there). */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password && !parsed.search) return url;
    if (parsed.password) parsed.password = '…';
    for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, '…');
    return parsed.toString().replace(/%E2%80%A6/g, '…');
  } catch {
    return url;
  }
}
