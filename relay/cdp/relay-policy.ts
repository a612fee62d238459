// The origin policy the relay enforces for the person's tabs (the extension profile's): it
// refuses what raw CDP clients ask to load (Page.navigate on a page or frame, Target.createTarget,
// /json/new) with the rule that says no, and hands the rules to the extension, which has Chrome
// itself enforce them on the attached tabs (declarativeNetRequest: clicks, redirects, scripts,
// popups, sub-resources).

import { OriginPolicy, type PolicyConfig } from '../../shared/origin-policy';
import { ClawdError } from '../errors';

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
    throw new ClawdError('origin_blocked', `${what}: ${verdict.reason} (the origin policy of the person's tabs); nothing was loaded`);
  }
}
