// A Selenium Grid 4 as clawd asks it for browsers: W3C WebDriver over HTTP — a new session with
// the profile's capabilities, its end, the Grid's status — and the session's CDP WebSocket
// (`se:cdp`) with its host made the one the person gave (a Grid answers the address it knows
// itself by, often one only its own network reaches: Playwright's most common failure on a
// Grid). Basic auth in the Grid URL becomes an Authorization header, carried to the socket too.

import { ClawdError } from '../../errors';
import { redacted } from '../../browser/cdp-socket-tabs';

export interface GridSession {
  id: string;
  /** The session's CDP WebSocket, on the Grid URL's host. */
  cdp: string;
  browserVersion?: string;
}

export interface GridStatus {
  ready: boolean;
  message: string;
  /** Each node and the sessions on it. */
  nodes: Array<{ uri: string; availability: string; sessions: string[] }>;
}

export class GridClient {
  /** The Grid's URL without credentials (said in messages). */
  readonly url: string;
  /** Basic auth from the URL, sent on every request and socket. */
  readonly headers: Record<string, string>;

  constructor(gridUrl: string) {
    const parsed = new URL(gridUrl);
    this.headers = {};
    if (parsed.username || parsed.password) {
      const user = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.Authorization = `Basic ${Buffer.from(user).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    this.url = parsed.toString().replace(/\/$/, '');
  }

  async #request(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<{ status: number; value: any }> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers: { ...this.headers, 'content-type': 'application/json; charset=utf-8' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw error;
      throw new ClawdError(
        'not_running',
        `the Selenium Grid at ${redacted(this.url)} does not answer (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    let value: any;
    try {
      value = (JSON.parse(text) as { value?: unknown }).value;
    } catch {
      value = { message: text.slice(0, 300) };
    }
    return { status: response.status, value };
  }

  /**
   * A new browser of the Grid's. Waits in the Grid's queue for a free slot within `timeoutMs`,
   * then answers grid_busy with the Grid's words.
   */
  async newSession(capabilities: Record<string, unknown>, timeoutMs: number): Promise<GridSession> {
    let answer: { status: number; value: any };
    try {
      answer = await this.#request('POST', '/session', { capabilities: { alwaysMatch: capabilities } }, timeoutMs);
    } catch (error) {
      if ((error as Error).name !== 'TimeoutError') throw error;
      throw new ClawdError(
        'grid_busy',
        `the Selenium Grid at ${redacted(this.url)} had no free browser within ${Math.round(timeoutMs / 100) / 10} s (every slot taken, the request still queued): try again later, or give the call a longer timeoutMs`,
      );
    }
    const said = String(answer.value?.message ?? '')
      .split('\n')[0]!
      .slice(0, 300);
    if (answer.status === 401 || answer.status === 403)
      throw new ClawdError(
        'upstream_error',
        `the Selenium Grid at ${redacted(this.url)} refused the credentials (HTTP ${answer.status})`,
      );
    if (answer.status >= 500 && /timed out|queue|no (free|available)|could not start/i.test(said))
      throw new ClawdError(
        'grid_busy',
        `the Selenium Grid at ${redacted(this.url)} has no browser for clawd now: ${said}`,
      );
    const id = answer.value?.sessionId as string | undefined;
    const cdp = answer.value?.capabilities?.['se:cdp'] as string | undefined;
    if (answer.status !== 200 || !id)
      throw new ClawdError(
        'upstream_error',
        `the Selenium Grid at ${redacted(this.url)} gave no browser (HTTP ${answer.status}): ${said}`,
      );
    if (!cdp) {
      await this.deleteSession(id).catch(() => {});
      throw new ClawdError(
        'upstream_error',
        `the Selenium Grid at ${redacted(this.url)} gave a browser without se:cdp: its nodes need CDP on (a Chromium-based browser, --enable-cdp true)`,
      );
    }
    return {
      id,
      cdp: this.onOurHost(cdp),
      ...(answer.value.capabilities.browserVersion ? { browserVersion: answer.value.capabilities.browserVersion } : {}),
    };
  }

  /** `se:cdp` on the host and port of the Grid URL the person gave (its path kept). */
  onOurHost(cdp: string): string {
    const socket = new URL(cdp);
    const ours = new URL(this.url);
    socket.protocol = ours.protocol === 'https:' ? 'wss:' : 'ws:';
    socket.host = ours.host;
    // A Grid behind a sub-path (--sub-path, an ingress) answers its sessions under it.
    const base = ours.pathname.replace(/\/$/, '');
    if (base && !socket.pathname.startsWith(`${base}/`)) socket.pathname = `${base}${socket.pathname}`;
    return socket.toString();
  }

  /** Gives the browser back; a session the Grid no longer knows is already gone. */
  async deleteSession(id: string, timeoutMs = 10_000): Promise<void> {
    await this.#request('DELETE', `/session/${encodeURIComponent(id)}`, undefined, timeoutMs).catch(() => {});
  }

  async status(timeoutMs = 5_000): Promise<GridStatus> {
    const { status, value } = await this.#request('GET', '/status', undefined, timeoutMs).catch((error: Error) => {
      if (error.name === 'TimeoutError')
        throw new ClawdError(
          'not_running',
          `the Selenium Grid at ${redacted(this.url)} did not answer within ${timeoutMs / 1000} s`,
        );
      throw error;
    });
    if (status !== 200 && status !== 503)
      throw new ClawdError(
        'not_running',
        `${redacted(this.url)}/status answered HTTP ${status}: is this a Selenium Grid 4?`,
      );
    return {
      ready: value?.ready === true,
      message: String(value?.message ?? ''),
      nodes: (
        (value?.nodes ?? []) as Array<{
          uri: string;
          availability: string;
          slots?: Array<{ session?: { sessionId: string } | null }>;
        }>
      ).map((node) => ({
        uri: node.uri,
        availability: node.availability,
        sessions: (node.slots ?? []).flatMap((slot) => (slot.session ? [slot.session.sessionId] : [])),
      })),
    };
  }
}
