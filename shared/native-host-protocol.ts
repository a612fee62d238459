// What the extension and clawd's native messaging host say to each other (Chrome starts the host
// for `chrome.runtime.sendNativeMessage` and ends it after one answer). The extension asks where
// the home's server is; the host makes sure one runs and answers its relay port and the
// extension key (never the agents' token), so the person pastes nothing. Parsed at both edges: either side may be another version.

/** The host's registered name (lowercase, dots: Chrome's rule); `clawd install` writes its manifest. */
export const NATIVE_HOST_NAME = 'com.clawd.browser';

/** The extension's one question. */
export interface HostHello {
  type: 'hello';
  extensionVersion: string;
}

/** Where the server is: the extension connects to 127.0.0.1:relayPort and proves the key there. */
export interface HostServer {
  type: 'server';
  relayPort: number;
  /** The extension key (keys.json): the relay proves it before the extension proves it back. */
  key: string;
  /** The server's clawd version and home, for the options page. */
  version: string;
  home: string;
  /** Whether this answer started it (none was running). */
  started: boolean;
}

export interface HostFailure {
  type: 'error';
  message: string;
}

export type HostAnswer = HostServer | HostFailure;

export function parseHostHello(raw: unknown): HostHello | undefined {
  const m = raw as Partial<HostHello> | null;
  return m && typeof m === 'object' && m.type === 'hello'
    ? { type: 'hello', extensionVersion: typeof m.extensionVersion === 'string' ? m.extensionVersion : '' }
    : undefined;
}

export function parseHostAnswer(raw: unknown): HostAnswer {
  const m = raw as Record<string, unknown> | null;
  if (m && m.type === 'server') {
    const port = m.relayPort;
    if (
      typeof port === 'number' &&
      Number.isInteger(port) &&
      port > 0 &&
      port < 65536 &&
      typeof m.key === 'string' &&
      m.key
    )
      return {
        type: 'server',
        relayPort: port,
        key: m.key,
        version: typeof m.version === 'string' ? m.version : '',
        home: typeof m.home === 'string' ? m.home : '',
        started: m.started === true,
      };
  }
  if (m && m.type === 'error' && typeof m.message === 'string') return { type: 'error', message: m.message };
  return { type: 'error', message: `the clawd host answered something else: ${JSON.stringify(raw).slice(0, 200)}` };
}
