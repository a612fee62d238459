// The origin policy Chrome itself enforces on the attached tabs: declarativeNetRequest session
// rules scoped to their tab ids, so every request such a tab makes — a click, a redirect, a
// script's navigation, a popup's load, fetch, XHR, images, frames, WebSockets — is held to it,
// whoever asked. Replaced whenever the policy or the set of attached tabs changes, gone when no
// tab is attached. A blocked page load shows a page that names the rule.

import { blockedPageUrl } from '../../shared/blocked-page';
import { OriginPolicy, patternRegex, type PolicyConfig } from '../../shared/origin-policy';

/** Our session rules' ids: this range is ours alone. */
const FIRST_ID = 1000;
const LAST_ID = 1999;
const ALL_TYPES = ['main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'object', 'xmlhttprequest', 'ping', 'csp_report', 'media', 'websocket', 'webtransport', 'webbundle', 'other'] as chrome.declarativeNetRequest.ResourceType[];

export class PolicyRules {
  constructor(
    /** The relay's origin (http://127.0.0.1:<port>): its /blocked page is always allowed. */
    private readonly relayOrigin: () => string | undefined,
  ) {}

  #config: PolicyConfig = {};
  #policy = new OriginPolicy({});
  #tabIds: number[] = [];
  // One update at a time, in order: the last one wins.
  #applying: Promise<void> = Promise.resolve();

  /** The relay's policy for the person's tabs. */
  set(config: PolicyConfig): Promise<void> {
    this.#config = config;
    this.#policy = new OriginPolicy(config);
    return this.#apply();
  }

  /** The tabs the rules hold (the attached ones). */
  holdTabs(tabIds: number[]): Promise<void> {
    this.#tabIds = [...tabIds];
    return this.#apply();
  }

  /** Where a tab that may not load `url` goes instead, or undefined when it may (or the relay is unknown). */
  blockedPage(url: string): string | undefined {
    const verdict = this.#policy.check(url);
    const relay = this.relayOrigin();
    return verdict.allowed || !relay ? undefined : blockedPageUrl(relay, url, verdict.reason);
  }

  #rules(): chrome.declarativeNetRequest.Rule[] {
    if (this.#policy.empty || this.#tabIds.length === 0) return [];
    const condition = (regexFilter: string) => ({ regexFilter, tabIds: this.#tabIds, resourceTypes: ALL_TYPES });
    const rules: chrome.declarativeNetRequest.Rule[] = [];
    let id = FIRST_ID;
    // With an allow list, everything else is blocked; allow rules outrank that; block rules outrank both.
    if (this.#config.allow) rules.push({ id: id++, priority: 1, action: { type: 'block' as chrome.declarativeNetRequest.RuleActionType }, condition: condition('^(https?|wss?)://') });
    for (const pattern of this.#config.allow ?? []) rules.push({ id: id++, priority: 2, action: { type: 'allow' as chrome.declarativeNetRequest.RuleActionType }, condition: condition(patternRegex(pattern)) });
    for (const pattern of this.#config.block ?? []) rules.push({ id: id++, priority: 3, action: { type: 'block' as chrome.declarativeNetRequest.RuleActionType }, condition: condition(patternRegex(pattern)) });
    // The relay's page that says what was blocked, whatever the rules.
    const relay = this.relayOrigin();
    if (relay) rules.push({ id: id++, priority: 4, action: { type: 'allow' as chrome.declarativeNetRequest.RuleActionType }, condition: condition(`^${relay.replace(/[.]/g, '\\.')}/blocked\\?`) });
    return rules.slice(0, LAST_ID - FIRST_ID);
  }

  #apply(): Promise<void> {
    this.#applying = this.#applying.then(async () => {
      const ours = (await chrome.declarativeNetRequest.getSessionRules()).map((r) => r.id).filter((id) => id >= FIRST_ID && id <= LAST_ID);
      await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: ours, addRules: this.#rules() });
    });
    return this.#applying;
  }
}
