// The wire protocol between the extension (MV3 worker) and the relay, over the `/extension`
// WebSocket. Both sides import these types and validate every frame they receive with the
// parsers of protocol-parse.ts, so a malformed frame is a clear protocol error at the socket edge
// and never a crash deep inside. Bump PROTOCOL_VERSION for any incompatible change: the relay refuses a
// hello with another version (close code VERSION_MISMATCH), and the options page says so.
//
// The extension is a thin forwarder, so the model lives in one place: it announces attached tabs, forwards
// debugger events and detaches, and executes a small allow-list of requests. The relay owns the
// model: it mints session ids, answers Browser/Target methods itself, and routes per client.
// The checker tables there are keyed by these frame types: a frame added here without a checker
// does not compile.

import type { Protocol } from 'devtools-protocol';
import type { AskKind } from './ask-kinds';
import type { AskNotice, ConsentState, StandingScope } from './consent-state';
import type { Recipe } from './recipe';

export const PROTOCOL_VERSION = 6;

/** Close codes on `/extension`, shown by the extension and the relay's logs. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  /** Unparsable or ill-typed frame (RFC 6455: inconsistent data). */
  invalidFrame: 1007,
  /** A frame other than hello before the hello. */
  helloRequired: 1008,
  /** A newer connection from the extension replaced this one. */
  replaced: 4000,
  /** hello carried another protocol version. */
  versionMismatch: 4001,
  /** No frame within the idle bound (keepalive lost). */
  idle: 4002,
  /** The hello's proof of the extension key was wrong: this browser is not paired with this server. */
  keyRefused: 4003,
  /** The extension key was replaced (`clawd token --rotate`): the native host or a new pairing brings the new one. */
  keyRotated: 4004,
  /** Said by the extension: what answers on the port could not prove it knows the key, so it is not clawd. */
  relayUnproven: 4005,
} as const;

export type TargetInfo = Protocol.Target.TargetInfo;

export interface BrowserInfo {
  /** e.g. "Chrome/156.0.8078.73", as Browser.getVersion's `product`. */
  product: string;
  userAgent: string;
  protocolVersion: string;
}

/** A tab the extension has attached with chrome.debugger. */
export interface AnnouncedTab {
  tabId: number;
  /** The relay session id this tab was given before (kept across worker and relay restarts). */
  sessionId?: string;
  targetInfo: TargetInfo;
  /**
   * The debugger was attached afresh to a tab the relay may know (back from a chrome:// page,
   * after an extension reload): whatever clients set up on the old session is gone.
   */
  reattached?: boolean;
  /** The person dragged it into the clawd tab group of this agent session: attached, and that session's. */
  session?: string;
  /**
   * A pop-up of an attached tab while the relay holds new tabs (holdNewTabs): its page loads wait
   * (declarativeNetRequest) for the relay's releaseTab, and the one they refused is made again then.
   */
  held?: boolean;
}

/** Codes the extension answers a request with when the person's own settings refuse it; the relay passes them on as they are. */
export const PERSON_CODES = ['tab_open_refused', 'focus_refused'] as const;

/** An error the extension reports for a request; `cdp` carries Chrome's own protocol error. */
export interface WireError {
  code: string;
  message: string;
  cdp?: { code: number; message: string; data?: string };
}

// ---- extension → relay -------------------------------------------------------------------

export interface HelloFrame {
  type: 'hello';
  /**
   * The extension key's proof for the relay's challenge nonce (shared/key-proof.ts, role
   * `extension`). Optional on the wire only so that an older extension hears "version mismatch".
   */
  proof?: string;
  protocol: number;
  extensionVersion: string;
  browser: BrowserInfo;
  tabs: AnnouncedTab[];
}
export interface ReplyFrame {
  type: 'reply';
  id: number;
  result?: unknown;
  error?: WireError;
}
/** A chrome.debugger event; `sessionId` is Chrome's child session (iframe, worker), if any. */
export interface EventFrame {
  type: 'event';
  tabId: number;
  sessionId?: string;
  method: string;
  params?: Record<string, unknown>;
}
export interface TabAttachedFrame {
  type: 'tabAttached';
  tab: AnnouncedTab;
}
export interface TabDetachedFrame {
  type: 'tabDetached';
  tabId: number;
  /** chrome.debugger's reason (`target_closed`, `canceled_by_user`) or `toggle` for a click. */
  reason: string;
}
export interface TabUpdatedFrame {
  type: 'tabUpdated';
  tabId: number;
  url?: string;
  title?: string;
}
export interface PingFrame {
  type: 'ping';
}
/**
 * Chrome detached the debugger because the tab went to a page it cannot attach to (chrome://…);
 * the tab stays the person's choice and is attached again (tabAttached, reattached) when it is back on the web.
 */
export interface TabParkedFrame {
  type: 'tabParked';
  tabId: number;
  url: string;
}
/** The person gave a handed-over tab back with the toolbar button. */
export interface HandBackFrame {
  type: 'handBack';
  tabId: number;
}
/**
 * The person touched an attached tab (a key, a click, the wheel) — or so its page saw: the
 * relay tells the person's input from an agent's, which goes through it.
 */
export interface PersonInputFrame {
  type: 'personInput';
  tabId: number;
  /** What the page saw since its last word (at most PERSON_INPUTS_MAX); absent from an older extension. */
  inputs?: PersonInput[];
}
/** One input the page's watch saw: a key pressed (and which), a mouse press, the wheel, a touch. */
export type PersonInput = { kind: 'key'; key?: string } | { kind: 'mouse' } | { kind: 'wheel' } | { kind: 'touch' };
/** The most inputs one personInput frame carries (a watch that sees more says them in another). */
export const PERSON_INPUTS_MAX = 32;
/** A side panel (or the options page) opened or closed: the relay sends consent state while one is open. */
export interface PanelFrame {
  type: 'panel';
  open: boolean;
}
/** What the person said in the side panel. */
export interface PersonFrame {
  type: 'person';
  /**
   * Allow or deny a question (a notification's buttons say the same); Stop everything; block a site; what to be asked before; open the
   * live view of a tab an agent handed them (in one of clawd's own browsers), to act in it;
   * record a task in a tab of theirs (no agent changes it meanwhile), and save what they recorded.
   */
  say:
    /**
     * `for`: and the same on this site for 30 minutes, or in this tab until it closes; `value`:
     * the code the person typed, for a question that asks for one.
     */
    | { answer: string; allow: boolean; for?: StandingScope; value?: string }
    /** Take back a standing yes. */
    | { revoke: string }
    | { stop: true }
    | { block: string }
    | { ask: AskKind[] }
    | { view: { profile: string; targetId: string } }
    | { record: { targetId: string; on: boolean } }
    /** `id`: the panel's for this save, said back in the consent state's recipeSaid. */
    | { recipe: { id: string; name: string; targetId: string; recipe: Recipe } };
}
export type ExtensionFrame =
  | HelloFrame
  | PersonInputFrame
  | PanelFrame
  | PersonFrame
  | ReplyFrame
  | EventFrame
  | TabAttachedFrame
  | TabDetachedFrame
  | TabUpdatedFrame
  | PingFrame
  | HandBackFrame
  | TabParkedFrame;

// ---- relay → extension -------------------------------------------------------------------

export interface WelcomeFrame {
  type: 'welcome';
  protocol: number;
  relayVersion: string;
  sessions: TabSession[];
}
export interface TabSession {
  tabId: number;
  sessionId: string;
}
/** The relay assigned (or confirmed) the session id of a tab. */
export interface TabSessionFrame extends TabSession {
  type: 'tabSession';
}
export interface PongFrame {
  type: 'pong';
}
export type RequestOp =
  | { op: 'cdp'; tabId: number; sessionId?: string; method: string; params?: Record<string, unknown> }
  /** `session`: the agent session whose clawd tab group the tab joins (`clawd · <session>`); none, the plain `clawd` group. */
  | { op: 'createTab'; url: string; active: boolean; session?: string }
  | { op: 'closeTab'; tabId: number }
  | { op: 'activateTab'; tabId: number }
  /** Detach and re-attach the debugger: clears every override, script and domain a client left. */
  | { op: 'resetTab'; tabId: number }
  /**
   * Nobody has used the tab for a while: detach the debugger (its "started debugging" bar goes with
   * the last attachment) and keep the tab handed over; refused while the extension needs the session.
   */
  | { op: 'restTab'; tabId: number }
  /** A command is coming for a resting tab: attach the debugger again (a fresh session). */
  | { op: 'wakeTab'; tabId: number }
  /** The agent handed the tab to the person (with the reason shown on the badge), or it is back (no reason). */
  | { op: 'showHandoff'; tabId: number; reason?: string }
  /** Where the browser saved the newest download of `url` (chrome.downloads), for a client that asked for its downloads. */
  | { op: 'downloadedFile'; url: string }
  /**
   * Browser.cancelDownload of a download an attached tab began at `since` (ms since the epoch):
   * the newest of `url` started since then is cancelled; finished already, its file is removed
   * when `removeFile` (the person refused it), else it stays.
   */
  | { op: 'cancelDownload'; url: string; since: number; removeFile: boolean }
  /** Browser.grantPermissions for these origins (chrome.contentSettings), undone when the last attached tab is released. */
  | { op: 'grantPermissions'; origins: string[]; permissions: string[] }
  /** Browser.resetPermissions: the person's own settings back. */
  | { op: 'resetPermissions' }
  /** The origin policy Chrome enforces on the attached tabs (declarativeNetRequest), replacing the last one; `own`: clawd's own addresses, always blocked. */
  | { op: 'setPolicy'; allow?: string[]; block?: string[]; own?: string[] }
  /** Opens the person's own live view in a new tab of theirs (they asked for it in the side panel). */
  | { op: 'openView'; url: string }
  /**
   * Hold new tabs (on) or not: every new tab's page loads wait until it is known to be the
   * person's, or, an attached tab's pop-up, until releaseTab (a watch judges its loads by then).
   */
  | { op: 'holdNewTabs'; on: boolean }
  /** A held pop-up's loads go (its watch is on); the one the hold refused is made again. */
  | { op: 'releaseTab'; tabId: number };
export type RequestFrame = { type: 'request'; id: number } & RequestOp;
/** The consent state for the side panel, sent while one is open and whenever it changes. */
export interface ConsentFrame {
  type: 'consent';
  state: ConsentState;
}
/**
 * The relay's first frame: the proof that it knows the extension key, for the nonce the extension
 * chose (its `/extension?nonce=`), and a nonce of its own for the extension's proof in its hello.
 * The extension says nothing, the key least of all, until this proof holds.
 */
export interface ChallengeFrame {
  type: 'challenge';
  proof: string;
  nonce: string;
}
/**
 * The questions waiting for the person, on every profile, whenever they change (and on connect):
 * the person's browser notifies each, with Allow and Deny, and clears those no longer waiting.
 */
export interface AsksFrame {
  type: 'asks';
  asks: AskNotice[];
}
export type RelayFrame =
  ChallengeFrame | WelcomeFrame | TabSessionFrame | PongFrame | RequestFrame | ConsentFrame | AsksFrame;

/** What each request op resolves with. */
export interface RequestResults {
  cdp: unknown;
  createTab: { tab: AnnouncedTab };
  closeTab: Record<string, never>;
  activateTab: Record<string, never>;
  resetTab: Record<string, never>;
  /** `at`: when the debugger let go (the browser's clock, ms since the epoch). */
  restTab: { at?: number };
  wakeTab: { targetInfo: TargetInfo };
  showHandoff: Record<string, never>;
  downloadedFile: { filename: string; bytes: number; state: string } | { filename: null };
  /** `found`: whether there was such a download to cancel. */
  cancelDownload: { found: boolean };
  grantPermissions: Record<string, never>;
  resetPermissions: Record<string, never>;
  setPolicy: Record<string, never>;
  openView: Record<string, never>;
  holdNewTabs: Record<string, never>;
  releaseTab: Record<string, never>;
}
