// The session table's words (session-table.ts): what a client's session id is bound to — the
// browser, a tab target, a page or a child target (a binding, which is also its subscription to
// that debuggee) — and, per tab, the page's and each child's debuggee state.

import type { Protocol } from 'devtools-protocol';
import type { ClientSession } from './client-session';
import type { DebuggeeState, Released } from './debuggee-state';
import type { TargetFilterEntry } from './target-info';
import type { TabRecord } from './target-registry';

interface BindingBase {
  readonly client: ClientSession;
  /** The id the client uses ('' for its root). */
  readonly sessionId: string;
  /** The session its attach was announced on ('' for the root). */
  readonly parent: string;
}
export interface BrowserBinding extends BindingBase {
  readonly kind: 'browser';
}
/** The synthetic `tab` target above a page (Puppeteer attaches there first). */
export interface TabTargetBinding extends BindingBase {
  readonly kind: 'tab';
  readonly tab: TabRecord;
  autoAttach: boolean;
}
export interface PageBinding extends BindingBase {
  readonly kind: 'page';
  readonly tab: TabRecord;
}
export interface ChildBinding extends BindingBase {
  readonly kind: 'child';
  readonly tab: TabRecord;
  readonly child: ChildTarget;
}
/** A client's view of one debuggee (a page or a child target). */
export type Subscription = PageBinding | ChildBinding;
/** What a session id means for a client. */
export type Binding = BrowserBinding | TabTargetBinding | Subscription;

export interface ChildTarget {
  /** The id clients know it by: Chrome's session id for it when it was first attached. */
  readonly sessionId: string;
  /**
   * Chrome's session id for it now: the same, until the tab rests (tab-rest.ts) and its new
   * debugger session attaches the child again under another (clients keep `sessionId`).
   */
  chromeId: string;
  /** While the tab rests: waiting to be attached again when it wakes, else gone. */
  asleep?: boolean;
  /** The child session it was attached under; undefined when attached under the page. */
  readonly parentId: string | undefined;
  targetInfo: Protocol.Target.TargetInfo;
  readonly state: DebuggeeState<Subscription>;
  /**
   * The clients told it waits for them (waitingForDebugger) that still hold it. Chrome lets a
   * paused target run when the session that paused it goes; here the extension's one session
   * stays, so when the last of these goes the relay lets it run (a no-op if one resumed it).
   */
  readonly toldWaiting: Set<ClientSession>;
}

/** A client's root-level requests. */
export interface ClientRoot {
  /** Root Target.setAutoAttach: new tabs are attached and announced to this client. */
  autoAttach: TargetFilterEntry[] | undefined;
  /** Its root auto-attach asked new targets to wait for it (waitForDebuggerOnStart). */
  pauses: boolean;
  /** Root Target.setDiscoverTargets: this client gets targetCreated/Destroyed/InfoChanged. */
  discover: TargetFilterEntry[] | undefined;
}

export interface ClientEntry extends ClientRoot {
  // '' is the root, set when the client is added: the browser for /cdp, the page for a
  // page-scoped socket. Other entries are added by attaches and removed by detaches or when
  // their tab goes away.
  readonly bindings: Map<string, Binding>;
}

export interface TabSessions {
  readonly page: DebuggeeState<Subscription>;
  // Added when a Target.attachedToTarget for a child is delivered, removed on its detach or
  // when the tab gets a fresh debugger session. By the id clients know each by.
  readonly children: Map<string, ChildTarget>;
  // Chrome's session id → the id clients know the child by, for children attached again after a rest.
  readonly aliases: Map<string, string>;
}

export interface SessionTableEvents {
  /** A subscription left while others stay on its debuggee: undo what only it needed. */
  released(sub: Subscription, released: Released): void;
  /** The last page subscription of a tab left: nobody drives the tab any more. */
  unused(tab: TabRecord): void;
  /** A child Chrome paused for a debugger that no client took: let it run (`childId`: Chrome's). */
  unclaimed(tab: TabRecord, childId: string): void;
  /** A child the tab had before its rest is attached again (under `child.chromeId`): what its clients set up goes on it. */
  rebound(tab: TabRecord, child: ChildTarget): void;
  /** Whether the client is shown the tab waiting for the debugger (a held pop-up, for the pop-up hold: held-tabs.ts). */
  waits?(client: ClientSession, tab: TabRecord): boolean;
}

export const RANK = { child: 0, page: 1, tab: 2, browser: 3 } as const;

/**
 * Children that Chrome reports under a page's auto-attach (measured: a page's service worker)
 * but that a browser shows at its root, where Playwright looks for them (context.serviceWorkers()).
 * They are announced to clients with root auto-attach, never under the page.
 */
export const ROOT_CHILD_TYPES = new Set(['service_worker']);
