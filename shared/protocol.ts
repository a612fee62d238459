// The wire protocol between the extension (MV3 worker) and the relay, over the `/extension`
// WebSocket. Both sides import these types and validate every frame they receive with the
// parsers below, so a malformed frame is a clear protocol error at the socket edge and never
// a crash deep inside. Bump PROTOCOL_VERSION for any incompatible change: the relay refuses a
// hello with another version (close code VERSION_MISMATCH), and the options page says so.
//
// The extension is a thin forwarder, so the model lives in one place: it announces attached tabs, forwards
// debugger events and detaches, and executes a small allow-list of requests. The relay owns the
// model: it mints session ids, answers Browser/Target methods itself, and routes per client.
// One file on purpose: every frame's type and its parser sit together, so the two cannot drift.

import type { Protocol } from 'devtools-protocol';
import { parseAskKinds, type AskKind } from './ask-kinds';
import { isNonce } from './key-proof';
import type { ConsentState } from './consent-state';

export const PROTOCOL_VERSION = 5;

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
}

/** Codes the extension answers a request with when the person's own settings refuse it; the relay passes them on as they are. */
export const PERSON_CODES = ['tab_open_refused'] as const;

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
/** The most inputs one personInput frame carries (the watch keeps the last ones). */
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
   * Allow or deny a question; Stop everything; block a site; what to be asked before; open the
   * live view of a tab an agent handed them (in one of clawd's own browsers), to act in it.
   */
  say:
    | { answer: string; allow: boolean }
    | { stop: true }
    | { block: string }
    | { ask: AskKind[] }
    | { view: { profile: string; targetId: string } };
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
  /** The agent handed the tab to the person (with the reason shown on the badge), or it is back (no reason). */
  | { op: 'showHandoff'; tabId: number; reason?: string }
  /** Where the browser saved the newest download of `url` (chrome.downloads), for a client that asked for its downloads. */
  | { op: 'downloadedFile'; url: string }
  /** Browser.grantPermissions for these origins (chrome.contentSettings), undone when the last attached tab is released. */
  | { op: 'grantPermissions'; origins: string[]; permissions: string[] }
  /** Browser.resetPermissions: the person's own settings back. */
  | { op: 'resetPermissions' }
  /** The origin policy Chrome enforces on the attached tabs (declarativeNetRequest), replacing the last one; `own`: clawd's own addresses, always blocked. */
  | { op: 'setPolicy'; allow?: string[]; block?: string[]; own?: string[] }
  /** Opens the person's own live view in a new tab of theirs (they asked for it in the side panel). */
  | { op: 'openView'; url: string };
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
export type RelayFrame = ChallengeFrame | WelcomeFrame | TabSessionFrame | PongFrame | RequestFrame | ConsentFrame;

/** What each request op resolves with. */
export interface RequestResults {
  cdp: unknown;
  createTab: { tab: AnnouncedTab };
  closeTab: Record<string, never>;
  activateTab: Record<string, never>;
  resetTab: Record<string, never>;
  showHandoff: Record<string, never>;
  downloadedFile: { filename: string; bytes: number; state: string } | { filename: null };
  grantPermissions: Record<string, never>;
  resetPermissions: Record<string, never>;
  setPolicy: Record<string, never>;
  openView: Record<string, never>;
}

// ---- validation ---------------------------------------------------------------------------

export type Parsed<T> = { ok: true; frame: T } | { ok: false; error: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const INPUT_KINDS: ReadonlySet<unknown> = new Set(['key', 'mouse', 'wheel', 'touch']);
const isPersonInput = (v: unknown): boolean =>
  isObj(v) && INPUT_KINDS.has(v.kind) && (v.key === undefined || (v.kind === 'key' && isStr(v.key)));
/** The inputs a page's watch reported that a personInput frame may carry (the last PERSON_INPUTS_MAX good ones), or undefined. */
export function personInputsOf(v: unknown): PersonInput[] | undefined {
  return Array.isArray(v) ? (v.filter(isPersonInput) as PersonInput[]).slice(-PERSON_INPUTS_MAX) : undefined;
}
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const optStr = (v: unknown) => v === undefined || isStr(v);
const optObj = (v: unknown) => v === undefined || isObj(v);

function isTargetInfo(v: unknown): v is TargetInfo {
  return isObj(v) && isStr(v.targetId) && isStr(v.type) && isStr(v.url) && isStr(v.title);
}
function isAnnouncedTab(v: unknown): v is AnnouncedTab {
  return (
    isObj(v) &&
    isInt(v.tabId) &&
    optStr(v.sessionId) &&
    isTargetInfo(v.targetInfo) &&
    (v.reattached === undefined || typeof v.reattached === 'boolean') &&
    optStr(v.session)
  );
}
function personSayProblem(v: unknown): string | null {
  if (!isObj(v)) return 'say must be an object';
  if ('answer' in v)
    return isStr(v.answer) && typeof v.allow === 'boolean' ? null : 'say.answer needs a question id and allow';
  if ('stop' in v) return v.stop === true ? null : 'say.stop must be true';
  if ('block' in v) return isStr(v.block) ? null : 'say.block must be an origin';
  if ('view' in v)
    return isObj(v.view) && isStr(v.view.profile) && isStr(v.view.targetId)
      ? null
      : 'say.view needs the profile and targetId of a tab handed to the person';
  if ('ask' in v) {
    const kinds = parseAskKinds(v.ask);
    return typeof kinds === 'string' ? `say.ask ${kinds}` : null;
  }
  return 'say must be {answer, allow}, {stop}, {block}, {view} or {ask}';
}
function isWireError(v: unknown): v is WireError {
  if (!isObj(v) || !isStr(v.code) || !isStr(v.message)) return false;
  return v.cdp === undefined || (isObj(v.cdp) && isInt(v.cdp.code) && isStr(v.cdp.message));
}

/** Each checker returns null when the frame is well-formed, or what is wrong with it. */
const extensionChecks: Record<ExtensionFrame['type'], (f: Obj) => string | null> = {
  hello: (f) =>
    !optStr(f.proof)
      ? 'proof must be a string'
      : !isInt(f.protocol)
        ? 'protocol must be an integer'
        : !isStr(f.extensionVersion)
          ? 'extensionVersion must be a string'
          : !isObj(f.browser) ||
              !isStr(f.browser.product) ||
              !isStr(f.browser.userAgent) ||
              !isStr(f.browser.protocolVersion)
            ? 'browser must be {product, userAgent, protocolVersion}'
            : !Array.isArray(f.tabs) || !f.tabs.every(isAnnouncedTab)
              ? 'tabs must be a list of {tabId, sessionId?, targetInfo}'
              : null,
  reply: (f) =>
    !isInt(f.id)
      ? 'id must be an integer'
      : f.error !== undefined && !isWireError(f.error)
        ? 'error must be {code, message, cdp?}'
        : null,
  event: (f) =>
    !isInt(f.tabId)
      ? 'tabId must be an integer'
      : !isStr(f.method)
        ? 'method must be a string'
        : !optStr(f.sessionId)
          ? 'sessionId must be a string'
          : !optObj(f.params)
            ? 'params must be an object'
            : null,
  tabAttached: (f) => (isAnnouncedTab(f.tab) ? null : 'tab must be {tabId, sessionId?, targetInfo}'),
  tabDetached: (f) =>
    !isInt(f.tabId) ? 'tabId must be an integer' : !isStr(f.reason) ? 'reason must be a string' : null,
  tabUpdated: (f) =>
    !isInt(f.tabId)
      ? 'tabId must be an integer'
      : !optStr(f.url) || !optStr(f.title)
        ? 'url and title must be strings'
        : null,
  ping: () => null,
  handBack: (f) => (isInt(f.tabId) ? null : 'tabId must be an integer'),
  tabParked: (f) => (!isInt(f.tabId) ? 'tabId must be an integer' : !isStr(f.url) ? 'url must be a string' : null),
  personInput: (f) =>
    !isInt(f.tabId)
      ? 'tabId must be an integer'
      : f.inputs !== undefined &&
          !(Array.isArray(f.inputs) && f.inputs.length <= PERSON_INPUTS_MAX && f.inputs.every(isPersonInput))
        ? `inputs must be at most ${PERSON_INPUTS_MAX} of {kind: key|mouse|wheel|touch, key?}`
        : null,
  panel: (f) => (typeof f.open === 'boolean' ? null : 'open must be true or false'),
  person: (f) => personSayProblem(f.say),
};

const relayChecks: Record<RelayFrame['type'], (f: Obj) => string | null> = {
  welcome: (f) =>
    !isInt(f.protocol)
      ? 'protocol must be an integer'
      : !isStr(f.relayVersion)
        ? 'relayVersion must be a string'
        : !Array.isArray(f.sessions) || !f.sessions.every((s) => isObj(s) && isInt(s.tabId) && isStr(s.sessionId))
          ? 'sessions must be a list of {tabId, sessionId}'
          : null,
  tabSession: (f) => (isInt(f.tabId) && isStr(f.sessionId) ? null : 'tabSession needs tabId and sessionId'),
  pong: () => null,
  challenge: (f) =>
    isStr(f.proof) && /^[A-Za-z0-9_-]{16,128}$/.test(f.proof) && isNonce(f.nonce)
      ? null
      : 'challenge needs proof and nonce (base64url)',
  consent: (f) =>
    isObj(f.state) &&
    isStr(f.state.profile) &&
    Array.isArray(f.state.tabs) &&
    Array.isArray(f.state.actions) &&
    Array.isArray(f.state.questions) &&
    Array.isArray(f.state.ask)
      ? null
      : 'state must be {profile, tabs, actions, policy, ask, questions}',
  request: (f) => {
    if (!isInt(f.id)) return 'id must be an integer';
    switch (f.op) {
      case 'cdp':
        return isInt(f.tabId) && isStr(f.method) && optStr(f.sessionId) && optObj(f.params)
          ? null
          : 'cdp needs tabId, method, params?';
      case 'createTab':
        return isStr(f.url) && typeof f.active === 'boolean' && optStr(f.session)
          ? null
          : 'createTab needs url, active and session?';
      case 'closeTab':
      case 'activateTab':
      case 'resetTab':
        return isInt(f.tabId) ? null : `${f.op} needs tabId`;
      case 'showHandoff':
        return isInt(f.tabId) && optStr(f.reason) ? null : 'showHandoff needs tabId and reason?';
      case 'downloadedFile':
        return isStr(f.url) ? null : 'downloadedFile needs url';
      case 'grantPermissions':
        return Array.isArray(f.origins) &&
          f.origins.every(isStr) &&
          Array.isArray(f.permissions) &&
          f.permissions.every(isStr)
          ? null
          : 'grantPermissions needs origins and permissions';
      case 'resetPermissions':
        return null;
      case 'openView':
        return isStr(f.url) && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/view#/.test(f.url)
          ? null
          : "openView needs the url of clawd's live view";
      case 'setPolicy': {
        const list = (v: unknown) => v === undefined || (Array.isArray(v) && v.every(isStr));
        return list(f.allow) && list(f.block) && list(f.own)
          ? null
          : 'setPolicy needs allow?, block? and own?, lists of origin patterns';
      }
      default:
        return `unknown request op ${JSON.stringify(f.op)}`;
    }
  },
};

function parseWith<T extends { type: string }>(
  raw: string,
  checks: Record<string, (f: Obj) => string | null>,
): Parsed<T> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  if (!isObj(value)) return { ok: false, error: 'a frame must be a JSON object' };
  const type = value.type;
  const check = isStr(type) && Object.hasOwn(checks, type) ? checks[type] : undefined;
  if (!check) return { ok: false, error: `unknown frame type ${JSON.stringify(type)}` };
  const problem = check(value);
  return problem ? { ok: false, error: `${type as string}: ${problem}` } : { ok: true, frame: value as unknown as T };
}

export function parseExtensionFrame(raw: string): Parsed<ExtensionFrame> {
  return parseWith<ExtensionFrame>(raw, extensionChecks);
}

export function parseRelayFrame(raw: string): Parsed<RelayFrame> {
  return parseWith<RelayFrame>(raw, relayChecks);
}
