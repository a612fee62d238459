// Every frame on the `/extension` WebSocket checked as it arrives (protocol.ts has the frames):
// a malformed one is a clear protocol error at the socket edge, never a crash deep inside. The
// checker tables are keyed by the frame types, so a new frame without a checker does not compile.

import { parseAskKinds } from './ask-kinds';
import { isNonce } from './key-proof';
import { RECIPE_NAME } from './recipe';
import { recipeProblem } from './recipe-parse';
import {
  PERSON_INPUTS_MAX,
  type AnnouncedTab,
  type ExtensionFrame,
  type PersonInput,
  type RelayFrame,
  type TargetInfo,
  type WireError,
} from './protocol';

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
    optStr(v.session) &&
    (v.held === undefined || typeof v.held === 'boolean')
  );
}
function personSayProblem(v: unknown): string | null {
  if (!isObj(v)) return 'say must be an object';
  if ('answer' in v)
    return isStr(v.answer) &&
      typeof v.allow === 'boolean' &&
      (v.for === undefined || v.for === 'minutes' || v.for === 'tab') &&
      (v.value === undefined || (isStr(v.value) && v.value.length <= 64))
      ? null
      : 'say.answer needs a question id and allow (and for: minutes or tab; value: a code of at most 64 characters)';
  if ('revoke' in v) return isStr(v.revoke) ? null : 'say.revoke needs the id of a standing yes';
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
  if ('record' in v)
    return isObj(v.record) && isStr(v.record.targetId) && typeof v.record.on === 'boolean'
      ? null
      : 'say.record needs the targetId of a tab and on';
  if ('recipe' in v) {
    if (
      !isObj(v.recipe) ||
      !isStr(v.recipe.id) ||
      !isStr(v.recipe.name) ||
      !RECIPE_NAME.test(v.recipe.name) ||
      !isStr(v.recipe.targetId)
    )
      return 'say.recipe needs an id, a name (letters, digits, - and _) and the targetId it was recorded in';
    const problem = recipeProblem(v.recipe.recipe);
    return problem ? `say.recipe: ${problem}` : null;
  }
  return 'say must be {answer, allow}, {revoke}, {stop}, {block}, {view}, {ask}, {record} or {recipe}';
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
  asks: (f) =>
    Array.isArray(f.asks) && f.asks.every((a) => isObj(a) && isStr(a.id) && isStr(a.title) && isStr(a.message))
      ? null
      : 'asks needs a list of {id, title, message}',
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
      case 'restTab':
      case 'wakeTab':
      case 'releaseTab':
        return isInt(f.tabId) ? null : `${f.op} needs tabId`;
      case 'holdNewTabs':
        return typeof f.on === 'boolean' ? null : 'holdNewTabs needs on (true or false)';
      case 'showHandoff':
        return isInt(f.tabId) && optStr(f.reason) ? null : 'showHandoff needs tabId and reason?';
      case 'downloadedFile':
        return isStr(f.url) ? null : 'downloadedFile needs url';
      case 'cancelDownload':
        return isStr(f.url) && typeof f.since === 'number' && typeof f.removeFile === 'boolean'
          ? null
          : 'cancelDownload needs url, since and removeFile';
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
