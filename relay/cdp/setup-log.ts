// What clients set up on a tab's page session that a fresh debugger session would not have:
// enabled domains (with their parameters), emulation and network settings, bindings, init
// scripts and auto-attach. chrome.debugger loses all of it when Chrome detaches the debugger
// (a chrome:// detour, an extension reload); the relay replays it on the new session so
// connected clients carry on. Per subscription, so a client that leaves takes its setup with
// it (nothing it set comes back on the person's tab later). Pure bookkeeping.

/** Commands that set something up until undone, as opposed to doing something once. */
const SETUP =
  /^(\w+\.enable|Emulation\.set\w+|Network\.(setExtraHTTPHeaders|setUserAgentOverride|setCacheDisabled|setBypassServiceWorker|setBlockedURLs|setCookies)|Page\.(setLifecycleEventsEnabled|setBypassCSP|setInterceptFileChooserDialog|setDownloadBehavior|setAdBlockingEnabled)|Runtime\.(addBinding|setAsyncCallStackDepth)|Security\.setIgnoreCertificateErrors|Target\.setAutoAttach|Page\.addScriptToEvaluateOnNewDocument)$/;

export interface SetupCommand {
  method: string;
  params: Record<string, unknown>;
  /** An init script's identifier as its client knows it. */
  identifier?: string;
}

export function isSetup(method: string): boolean {
  return SETUP.test(method);
}

export class SetupLog<S> {
  // key (method, or the script's identifier) → the subscription's command; insertion order is replay order.
  readonly #entries = new Map<S, Map<string, SetupCommand>>();
  // A script's identifier as its client knows it → its identifier on the current debugger session.
  readonly #aliases = new Map<string, string>();

  /** A setup command answered; `identifier` for an init script. */
  record(sub: S, method: string, params: Record<string, unknown>, identifier?: string): void {
    let entries = this.#entries.get(sub);
    if (!entries) this.#entries.set(sub, (entries = new Map()));
    const key = identifier ?? method;
    entries.delete(key); // a newer setting moves to the end, after what it builds on
    entries.set(key, { method, params, ...(identifier !== undefined ? { identifier } : {}) });
  }

  /** The client undid something: `X.disable` undoes `X.enable`, a removed script its add. */
  undo(sub: S, key: string): void {
    this.#entries.get(sub)?.delete(key);
  }

  /** The client left: its setup goes with it. */
  forget(sub: S): void {
    this.#entries.delete(sub);
  }

  /**
   * What to replay on a fresh session, each command once: in the order clients first set it up
   * (an enable before what builds on it), with the latest client's parameters.
   */
  commands(): SetupCommand[] {
    const merged = new Map<string, SetupCommand>();
    for (const entries of this.#entries.values()) for (const [key, command] of entries) merged.set(key, command);
    return [...merged.values()];
  }

  /** The identifier to use on the tab for one a client knows (they differ after a replay). */
  current(identifier: string): string {
    return this.#aliases.get(identifier) ?? identifier;
  }

  /** After a replay: the script the client knows as `known` is now `now` on the tab. */
  alias(known: string, now: string): void {
    this.#aliases.set(known, now);
  }
}
