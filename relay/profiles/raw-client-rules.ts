// What a raw CDP client of a managed profile's port (the agents' door with the token alone) is
// held to, as the relay holds the person's tabs' raw clients: no load of a URL the profile's
// policy refuses (Page.navigate, Target.createTarget: clawd's own addresses always among them),
// no cookie shown of a host it blocks (nor the live view's session), none set for one, nothing
// done to a blocked site without loading it (site-touches.ts: permissions, clearing), no cookie
// of a blocked host in an event's headers or cookie lists; and the profile's asks, by the same
// gate as the person's tabs' raw clients (cdp/client-gate.ts: a new site, an upload, a cookie
// read asked from the command; a form sent, a site a click loads, a download judged at the
// request once the tab is watched). clawd's own connections are not held here: they passed the
// agent layer's gate. The browser's guard holds every page to the same policy from inside besides.

import type { OriginPolicy } from '../../shared/origin-policy';
import type { MuxRules } from '../browser/cdp-mux';
import { carriesCookies, cookieDomain, cookieEventShown, cookiesToSet, readsCookies } from '../cdp/cookie-rules';
import { touchRefused } from '../cdp/site-touches';
import { clientLoadRefused } from '../cdp/client-loads';
import { refusedOutright, type ClientGate, type GateClient } from '../cdp/client-gate';
import { ClawdError } from '../errors';
import { workerWalls } from './policy-walls';

/** Commands that load the address they name (an intercepted request sent on to another is one). */
const LOADS = new Set(['Page.navigate', 'Target.createTarget', 'Fetch.continueRequest']);

/** Who a raw client is: the name it gave itself (`?session=`), else `cdp-N`. */
export interface RawClientIdentity {
  name?: string;
}

let nextClientId = 1;

/** What a raw client of a profile's browser is held by. */
export interface RawClientHolds {
  policy: () => OriginPolicy;
  profile: string;
  /** The person's asks (once their say is wired). */
  gate?: ClientGate | undefined;
  identity?: RawClientIdentity;
  /** What a first command on a new target, and a word to run it, wait for: the guard's walls in it (policy-guard.ts). */
  targetSetUp?: (targetId: string, type?: string) => Promise<void> | undefined;
}

/**
 * Targets a client may hold paused and let run: its first command on each and its word to run wait
 * for the guard's walls in them. A service worker's too: another holder's word can start a
 * brand-new one (measured on 150 and 156; a client's word that came first let its first line past
 * the policy under load): for it the wait ends once the guard's walls are queued in the browser
 * (PolicyGuard.whenSetUp).
 */
const HELD_TYPES = new Set(['page', 'iframe', 'worker', 'shared_worker', 'service_worker']);
/** Sessions a client's rules remember as waited for (or walled), the oldest forgotten past it. */
const SESSIONS_KEPT = 2_000;

function remember(sessions: Set<string>, sessionId: string): void {
  sessions.add(sessionId);
  if (sessions.size > SESSIONS_KEPT) sessions.delete(sessions.values().next().value!);
}

/**
 * What one client's commands on a new target wait for and go behind. On each session of a held
 * type (or one not known yet) the first command waits for the guard's set-up of its target —
 * nothing for one the guard set up and still holds — and the word to run always does: a paused
 * service worker answers an evaluate before its script runs, which would run the client's code
 * before the guard's walls (and could mark the realm guarded so the wall's script stood down);
 * whether a target is paused is not the client's to say (`waitingForDebugger` is its own
 * session's ask, false for a target another session holds). On a service worker's session the
 * constructor's wall goes ahead of the first command (workerWalls: what the guard queued on its
 * own session is not sure to come first).
 */
function newTargetHolds(targetSetUp: RawClientHolds['targetSetUp'], policy: () => OriginPolicy): MuxRules {
  const cleared = new Set<string>();
  const walled = new Set<string>();
  return {
    before(method, _params, _tab, target) {
      if (!target || (target.type !== undefined && !HELD_TYPES.has(target.type))) return undefined;
      if (method !== 'Runtime.runIfWaitingForDebugger' && cleared.has(target.sessionId)) return undefined;
      const setUp = targetSetUp?.(target.targetId, target.type);
      if (!setUp) return void remember(cleared, target.sessionId);
      return setUp.then(() => remember(cleared, target.sessionId));
    },
    ahead(_method, target) {
      if (!target || (target.type !== undefined && target.type !== 'service_worker')) return undefined;
      if (walled.has(target.sessionId)) return undefined;
      const walls = workerWalls(policy());
      // Marked once walls went: a policy that had none (clawd's own addresses only) and has now
      // gives the next command its wall.
      if (walls.length > 0) remember(walled, target.sessionId);
      return walls;
    },
  };
}

/** clawd's own agent connection: its commands on a new target wait for the guard's walls too, nothing else. */
export function guardWaits(targetSetUp: RawClientHolds['targetSetUp'], policy: () => OriginPolicy): MuxRules {
  return newTargetHolds(targetSetUp, policy);
}

export function rawClientRules({ policy, profile, gate, identity = {}, targetSetUp }: RawClientHolds): MuxRules {
  const id = nextClientId++;
  const client: GateClient = { id, name: identity.name ?? `cdp-${id}`, internal: false };
  const holds = newTargetHolds(targetSetUp, policy);
  const opens = (params: Record<string, unknown>) =>
    typeof params.url === 'string' ? gate?.opensWatched(client, params.url) : undefined;
  return {
    ahead: holds.ahead,
    before(method, params, tab, target) {
      const setUp = holds.before!(method, params, tab, target);
      const asked = gate?.before(client, tab, method, params);
      if (!setUp) return asked;
      return asked ? Promise.all([setUp, asked]).then(() => {}) : setUp;
    },
    // Its new tab loads once its watch is on it, while the person asks about what requests tell.
    opens,
    closed: () => gate?.forget(client),
    tabGone: (targetId) => gate?.tabGone(targetId),
    refuse(method, params) {
      const never = refusedOutright(method, params);
      if (never) return never;
      // Watched, a new tab opens blank and its page loads: with forTab, what is answered is the
      // tab target, whose page the load and the watch would have to find.
      if (method === 'Target.createTarget' && params.forTab === true && opens(params))
        return new ClawdError(
          'unsupported',
          'Target.createTarget with forTab and a URL while the person asks about what pages do: open it at about:blank, then navigate its page',
        );
      // Sessions only as flat ones: a message carried inside another (the old non-flat mode)
      // would pass every rule here unread, as the relay refuses it on the person's tabs.
      const flat = (what: string) => new ClawdError('unsupported', `${what}: only flatten mode is supported here`);
      if (method === 'Target.sendMessageToTarget') return flat(method);
      if (method === 'Target.attachToTarget' && params.flatten !== true) return flat(method);
      if (method === 'Target.setAutoAttach' && params.autoAttach === true && params.flatten !== true)
        return flat(method);
      if (LOADS.has(method) && typeof params.url === 'string') {
        const scheme = clientLoadRefused(method, params.url);
        if (scheme) return scheme;
        const verdict = policy().check(params.url);
        if (!verdict.allowed)
          return new ClawdError(
            'origin_blocked',
            `${method}: ${verdict.reason} (the origin policy of profile ${profile}); nothing was loaded`,
          );
      }
      for (const cookie of cookiesToSet(method, params) ?? []) {
        const domain = cookieDomain(cookie);
        if (domain === undefined) continue;
        const verdict = policy().cookieVerdict({ ...cookie, domain });
        if (!verdict.allowed)
          return new ClawdError(
            'origin_blocked',
            `${method}: ${verdict.reason} (the origin policy of profile ${profile}); no cookie was set`,
          );
      }
      const touch = touchRefused(policy(), method, params);
      if (touch !== undefined)
        return new ClawdError('origin_blocked', `${touch} (the origin policy of profile ${profile}); nothing was done`);
      return undefined;
    },
    event(method, params) {
      if (!carriesCookies(method)) return params;
      const rules = policy();
      return cookieEventShown(method, params, {
        visible: (cookie) => rules.cookieVerdict(cookie).allowed,
        hidesSome: !rules.ownOnly,
        none: gate?.asksBeforeCookies(client) ?? false,
      });
    },
    shown(method, result) {
      if (!readsCookies(method)) return result;
      const cookies = (result as { cookies?: unknown } | undefined)?.cookies;
      if (!Array.isArray(cookies)) return result;
      const rules = policy();
      return {
        ...(result as object),
        cookies: cookies.filter(
          (c: { domain: string; secure?: boolean; name?: string }) => rules.cookieVerdict(c).allowed,
        ),
      };
    },
  };
}
