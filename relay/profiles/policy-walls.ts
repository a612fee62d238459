// The policy's walls inside a target, as CDP commands' inputs: the script that holds a realm's
// WebSocket constructor to the policy, and the browser's network conditions that take a blocked
// WebSocket offline. The policy guard puts both in every target; a word to run a brand-new service
// worker goes behind the constructor's wall on its own session (workerWalls).

import { patternRegex, socketConditions, type OriginPolicy } from '../../shared/origin-policy';

/**
 * A script that holds a realm's WebSocket constructor to the policy: the same rules as regexes
 * (the ones Chrome's own rules use on a person's tab), checked before a socket opens.
 */
export function webSocketGuard(policy: OriginPolicy): string {
  const { allow } = policy.config;
  const block = [...(policy.config.block ?? []), ...(policy.config.own ?? [])];
  const regexes = (list: string[] | undefined) =>
    list ? `[${list.map((p) => `new RegExp(${JSON.stringify(patternRegex(p))})`).join(',')}]` : 'null';
  return `(() => {
  const Native = globalThis.WebSocket;
  if (!Native || Native.__clawdGuarded) return;
  const allow = ${regexes(allow)}, block = ${regexes(block)};
  const Guarded = function WebSocket(url, protocols) {
    const href = new URL(url, globalThis.location && location.href).href;
    if (block.some((r) => r.test(href)) || (allow && !allow.some((r) => r.test(href)))) throw new DOMException('blocked by the clawd origin policy: ' + href, 'SecurityError');
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  };
  Guarded.prototype = Native.prototype;
  // new WebSocket.prototype.constructor(url) reaches the guard, not the native constructor.
  Object.defineProperty(Native.prototype, 'constructor', { value: Guarded, writable: true, configurable: true });
  Object.assign(Guarded, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3, __clawdGuarded: true });
  globalThis.WebSocket = Guarded;
})();`;
}

export const CONDITIONS_BY_RULE = 'Network.emulateNetworkConditionsByRule';

/** The rules that take a blocked WebSocket offline, as Chrome's network conditions. */
export const conditions = (policy: OriginPolicy) => ({
  matchedNetworkConditions: socketConditions(policy.config).map((rule) => ({
    ...rule,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  })),
});

/** A CDP command the guard or the mux sends in a target. */
export interface Wall {
  method: string;
  params: Record<string, unknown>;
}

/**
 * What a word to run a brand-new service worker goes behind, on the word's own session: the
 * constructor's wall (nothing while only clawd's own addresses are kept out: Fetch holds their
 * requests browser-side, and clawd refuses a WebSocket by its Origin). Chrome starts such a worker
 * on another holder's word too, and what the guard's session queued is not sure to run before its
 * first line then (measured on 150 and 156: every time when that word came first, 3 in 60 even
 * after the guard's commands were answered when the other client had attached first); a
 * session's own commands run in the order they came, always. On a client's session
 * Network.enable is not among them: it would send the client events it did not ask for (the
 * guard's own page copy takes it, and the rules, too).
 */
export function workerWalls(policy: OriginPolicy): Wall[] {
  return policy.ownOnly ? [] : [{ method: 'Runtime.evaluate', params: { expression: webSocketGuard(policy) } }];
}
