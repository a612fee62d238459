// Defaults shared by the relay (Node) and the extension (MV3 worker): ports, the pinned
// extension id, and every limit or timeout a client can observe. One place, named, so a
// reader can find "how long until X gives up" without reading the code that waits.

export const PRODUCT_NAME = 'clawd-browser';

/** Loopback ports of the contract (README: The control API, The relay's endpoints). Tests pass port 0 instead. */
export const DEFAULT_CONTROL_PORT = 18791;
export const DEFAULT_RELAY_PORT = 18792;
export const LOOPBACK_HOST = '127.0.0.1';

/**
 * The extension's id, fixed by the `key` in extension/manifest.json (Chrome derives the id
 * from that public key). The relay accepts `/extension` upgrades only from this origin.
 * test/unit/extension-id.test.ts recomputes it from the manifest, so the two cannot drift.
 */
export const EXTENSION_ID = 'hioddficefpgpoobibbacdfbnaiihamk';
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`;

export const MiB = 1024 * 1024;

export const LIMITS = {
  /** Largest frame the extension may send: full-page screenshots and PDFs arrive as base64. */
  extensionMaxPayload: 256 * MiB,
  /** Largest frame a CDP client may send: commands, init scripts, page content. */
  clientMaxPayload: 64 * MiB,
  /**
   * A CDP client that stops reading is closed once this much output is queued for it (config
   * `relay.clientMaxBufferedMb`). Big enough for a few full-page screenshots in flight; small
   * enough that a stalled client cannot make the relay hold hundreds of megabytes.
   */
  clientMaxBuffered: 64 * MiB,
  /** Concurrent /cdp clients; more are refused with 503 instead of degrading everyone. */
  maxClients: 64,
  /** Events the extension keeps while its relay socket is down (worker waking up, relay restarting). */
  extensionEventBuffer: 5_000,
} as const;

export const TIMEOUTS = {
  /** A forwarded CDP command fails after this long with an error naming the method. Chrome has no
   *  bound of its own, and Playwright's longest default wait is 30 s, so 90 s only catches true hangs. */
  commandMs: 90_000,
  /** A command sent while the extension is away waits this long for it to come back, then fails. */
  reconnectWaitMs: 5_000,
  /**
   * Tabs stay in the registry this long after the extension's socket drops. Measured: debugger
   * sessions survive a service-worker restart and any debugger or tab event wakes a fresh worker,
   * so the same tabs come back; chrome.alarms wakes an idle worker at most every 30 s.
   */
  tabGraceMs: 75_000,
  /** The extension sends an application-level ping this often; MV3 counts only real messages
   *  (not ws ping frames) as activity, and kills an idle worker after ~30 s (measured). */
  keepaliveMs: 20_000,
  /**
   * A handed-over tab no agent call and no CDP client used for this long rests: the debugger lets
   * go of it (Chrome's "started debugging" bar goes with the last one) until the next command.
   * config.json `extension.idleDetachMs`; 0 keeps every tab attached.
   */
  idleDetachMs: 30_000,
  /** The relay drops an extension socket that has been silent this long. */
  extensionIdleMs: 65_000,
  /** An /extension socket must send hello within this long. */
  helloMs: 5_000,
  /**
   * chrome.debugger delivers events ahead of earlier command responses (measured). The relay holds
   * a tab's events until the commands in flight when they arrived have answered, but never longer
   * than this, so a long-running command (an awaited evaluate, a dialog) cannot stall events.
   */
  eventFenceMs: 100,
  /** A client closed for not reading has this long to take its queue and the close frame before its socket is cut. */
  notReadingCutMs: 5_000,
  /**
   * Reconnect backoff of the extension: first retry, cap (jitter ±30% on top). The relay is on
   * loopback, where a refused connect costs next to nothing: capped so a relay that restarts is
   * followed within 2 s.
   */
  reconnectMinMs: 250,
  reconnectMaxMs: 1_500,
} as const;

/** An agent session's name (the agent API's `session`, a raw client's `?session=`). */
export const SESSION_NAME = /^[\w.-]{1,64}$/;
