// Says precisely why the extension cannot talk to the relay. A browser WebSocket hides the HTTP
// status of a refused upgrade (every failure looks like close 1006), so the options page's
// "Test connection" and the worker's error badge ask the relay's HTTP side instead: is anything
// listening, is it our relay, does it speak our protocol. Whether it knows this browser's key is
// the WebSocket's own handshake (relay-connection.ts), where nothing secret is sent first.

import { PRODUCT_NAME } from '../../shared/defaults';
import { PROTOCOL_VERSION } from '../../shared/protocol';

export interface CheckResult {
  ok: boolean;
  /** One sentence a user can act on. */
  message: string;
}

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

export async function checkRelay(port: number, fetchImpl: Fetch = fetch, timeoutMs = 2_000): Promise<CheckResult> {
  const base = `http://127.0.0.1:${port}`;
  let health: Response;
  try {
    health = await fetchImpl(`${base}/`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return {
      ok: false,
      message: `The relay is not running on 127.0.0.1:${port}: start it with \`clawd serve\`, or check the port.`,
    };
  }
  let info: { name?: unknown; version?: unknown; protocol?: unknown } = {};
  try {
    info = (await health.json()) as typeof info;
  } catch {
    // fall through: not our JSON
  }
  if (info.name !== PRODUCT_NAME) {
    return {
      ok: false,
      message: `Something else answers on port ${port}: it is not the clawd relay. Wrong port? (the default is 18792)`,
    };
  }
  if (info.protocol !== PROTOCOL_VERSION) {
    return {
      ok: false,
      message: `Version mismatch: the relay (clawd ${String(info.version)}) speaks protocol ${String(info.protocol)}, this extension speaks ${PROTOCOL_VERSION}. Rebuild with \`npm run build\` and reload the extension.`,
    };
  }
  return { ok: true, message: `clawd ${String(info.version)} answers on port ${port}.` };
}
