// How clawd reaches a browser's tabs, whatever the browser gives: Chrome's `/json/*` HTTP face
// (cdp-http.ts: a managed profile's port, our relay, a remote browser that serves it), or only a
// CDP WebSocket (cdp-socket-tabs.ts: a Selenium Grid's `se:cdp`, a hosted browser's URL), where
// the same calls go over CDP's Target domain. Drivers hold one; nothing else asks which.

export interface CdpTarget {
  id: string;
  type: string;
  title: string;
  url: string;
  webSocketDebuggerUrl?: string;
}

/** What the endpoint says of itself (`/json/version`'s shape; a bare socket answers it from Browser.getVersion). */
export interface CdpVersion {
  Browser: string;
  'Protocol-Version': string;
  'User-Agent': string;
  /** The browser's CDP WebSocket, where Playwright and the policy guard connect. */
  webSocketDebuggerUrl: string;
}

export interface TabEndpoint {
  /** Where it is, as the person gave it (for messages and status). */
  readonly base: string;
  version(): Promise<CdpVersion>;
  /** The page targets (tabs). */
  list(): Promise<CdpTarget[]>;
  open(url: string): Promise<CdpTarget>;
  activate(id: string): Promise<void>;
  close(id: string): Promise<void>;
  /** The endpoint's version when it answers and its WebSocket opens within `handshakeMs`, else undefined. */
  isReady(handshakeMs?: number, knownWebSocketUrl?: string): Promise<CdpVersion | undefined>;
}
