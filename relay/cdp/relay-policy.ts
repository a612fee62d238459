// The origin policy the relay enforces for the person's tabs (the extension profile's): it
// refuses what raw CDP clients ask to load (Page.navigate on a page or frame, Target.createTarget,
// /json/new) with the rule that says no, and hands the rules to the extension, which has Chrome
// itself enforce them on the attached tabs (declarativeNetRequest: clicks, redirects, scripts,
// popups, sub-resources). Cookies follow the same rules: no client is shown a cookie of a host
// the policy blocks (whatever asks: Storage.*, Network.*, on any session), nor may it set one.
// clawd's own addresses are always among the rules (`own`): no client loads them, and the live
// view's session cookie is never shown or set.

import { OriginPolicy, type PolicyConfig } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import { cookieDomain, type CookieJudge, type CookieToSet } from './cookie-rules';
import { touchRefused } from './site-touches';

export class RelayPolicy {
  #config: PolicyConfig = {};
  #policy = new OriginPolicy({});

  constructor(
    /** The rules changed: the extension must hear them (resolves once it has them in force). */
    private readonly changed: (config: PolicyConfig) => Promise<void>,
    /** A client's load was refused (for the action log). */
    private readonly refused: (url: string, reason: string) => void = () => {},
  ) {}

  get config(): PolicyConfig {
    return this.#config;
  }

  /** New rules: refused here at once, in force in the person's browser when this resolves. */
  set(config: PolicyConfig): Promise<void> {
    this.#config = config;
    this.#policy = new OriginPolicy(config);
    return this.changed(config);
  }

  /** Refuses a URL the policy does not let clients load: origin_blocked naming the rule, nothing loaded. */
  check(url: string, what: string): void {
    const verdict = this.#policy.check(url);
    if (verdict.allowed) return;
    this.refused(url, verdict.reason);
    throw new ClawdError(
      'origin_blocked',
      `${what}: ${verdict.reason} (the origin policy of the person's tabs); nothing was loaded`,
    );
  }

  /** The cookies a client may see: those of hosts the policy blocks are left out. */
  visibleCookies<C extends CookieLike>(cookies: readonly C[]): C[] {
    return this.#policy.empty ? [...cookies] : cookies.filter((cookie) => this.#policy.cookieVerdict(cookie).allowed);
  }

  /** How events' cookies are judged (cookie-rules.ts cookieEventShown); `none`: every cookie hidden. */
  cookieJudge(none: boolean): CookieJudge {
    const policy = this.#policy;
    return { visible: (cookie) => policy.cookieVerdict(cookie).allowed, hidesSome: !policy.ownOnly, none };
  }

  /** Refuses setting a cookie of a host the policy blocks: origin_blocked naming the rule, nothing set. */
  checkCookies(cookies: readonly CookieToSet[], what: string): void {
    for (const cookie of cookies) {
      const domain = cookieDomain(cookie);
      if (domain === undefined) continue; // Chrome refuses a cookie with neither itself
      const verdict = this.#policy.cookieVerdict({
        domain,
        ...(cookie.secure !== undefined ? { secure: cookie.secure } : {}),
        ...(cookie.name !== undefined ? { name: cookie.name } : {}),
      });
      if (verdict.allowed) continue;
      this.refused(cookie.url ?? `https://${domain.replace(/^\./, '')}/`, verdict.reason);
      throw new ClawdError(
        'origin_blocked',
        `${what}: ${verdict.reason} (the origin policy of the person's tabs); no cookie was set`,
      );
    }
  }

  /**
   * Refuses a command that would do something to a site the policy blocks without loading it (a
   * permission granted, its cookies or storage cleared; site-touches.ts): origin_blocked, nothing done.
   */
  checkTouch(method: string, params: Record<string, unknown>): void {
    const refused = touchRefused(this.#policy, method, params);
    if (refused === undefined) return;
    this.refused(method, refused);
    throw new ClawdError('origin_blocked', `${refused} (the origin policy of the person's tabs); nothing was done`);
  }
}

export interface CookieLike {
  domain: string;
  secure?: boolean;
  name?: string;
}
