// The origin policy Chrome itself enforces on the attached tabs: declarativeNetRequest session
// rules, so every request such a tab makes — a click, a redirect, a script's navigation, a
// popup's load, fetch, XHR, images, frames, WebSockets — is held to it, whoever asked. Replaced
// whenever the policy or the set of attached tabs changes, gone when no tab is attached. A
// blocked page load shows a page that names the rule.
//
// Requests of no tab that a site of a held tab's frames started (its service and shared workers)
// are held too, while a tab showing that site is held (also for the person's own tabs of that
// site: the worker is one for the site). Every frame counts, not only the top one: a cross-site
// frame registers workers of its own site, whose requests name that site as their initiator.
// Their WebSockets escape the rules (measured): `held` hands the policy and those sites to
// worker-sockets.ts, which holds the workers themselves.
//
// The rules hold every tab except the ones known to be the person's (excludedTabIds), not only
// the attached ones (tabIds): a popup's first request can leave before any listener has added
// its new tab id (measured: about one window.open in six escaped that way), so a tab is held
// from the moment it exists until it is known not to be the agent's — opened from a tab that is
// not attached, or still unclaimed after FRESH_MS. A person's tab caught in that moment is
// loaded again once it is let go (background.ts).
//
// While the relay holds new tabs (a watch on an attached tab judges what its loads do, and a new
// tab its page opens is one of them), every new tab's page loads are held the same way, whatever
// the policy: a pop-up of an attached tab until the relay says its watch is on (`releaseNew`, its
// held load then made again under the watch), any other until it is known to be the person's. A
// form sent into a new tab cannot be made again: it is not sent (the relay's /blocked page says so).
// Kept whole (under the 400-line cap): the policy's rules and the new-tab hold's are one rule set,
// replaced at once with one id range; apart, one update could take the other's rules off.

import { blockedPageUrl } from '../../shared/blocked-page';
import { hostOfUrl } from '../../shared/host-spelling';
import { OriginPolicy, originOf, patternRegex, type PolicyConfig } from '../../shared/origin-policy';

/** Our session rules' ids: this range is ours alone. */
const FIRST_ID = 1000;
const LAST_ID = 1999;
/** How long a new tab nobody has claimed is held (a popup's opener is known within ~20 ms). */
const FRESH_MS = 400;
const ALL_TYPES = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
] as chrome.declarativeNetRequest.ResourceType[];

/**
 * The site a document of `url` starts workers as, the way initiatorDomains takes it (a bare host,
 * an IPv6 address without its brackets), or undefined for one of no web origin (about:blank,
 * data:, a browser page). A blob: document is its creator's origin.
 */
function siteOf(url: string): string | undefined {
  const origin = originOf(url);
  if (!origin || !/^https?:/.test(origin)) return undefined;
  return hostOfUrl(origin)?.replace(/^\[|\]$/g, '');
}

export class PolicyRules {
  constructor(
    /** The relay's origin (http://127.0.0.1:<port>): its /blocked page is always allowed. */
    private readonly relayOrigin: () => string | undefined,
    /**
     * After each change: the policy and the sites whose workers are held through the debugger —
     * those of the held tabs it is attached to (none when nothing is held).
     */
    private readonly held: (config: PolicyConfig, sites: string[]) => void = () => {},
    /** Whether a held tab rests (its debugger let go of it): its site's workers are let go too. */
    private readonly resting: (tabId: number) => boolean = () => false,
  ) {}

  #config: PolicyConfig = {};
  #policy = new OriginPolicy({});
  #tabIds: number[] = [];
  /** The sites held at the last update (and the ones an update is coming for). */
  #sites = new Set<string>();
  /** New tabs not yet known to be the agent's or the person's: held meanwhile. */
  readonly #fresh = new Map<number, ReturnType<typeof setTimeout>>();
  /** Whether the relay holds new tabs (holdNewTabs). */
  #holdingNew = false;
  /** Pop-ups of attached tabs whose page loads wait for the relay's word (releaseNew). */
  readonly #heldNew = new Set<number>();
  // One update at a time, in order: the last one wins.
  #applying: Promise<void> = Promise.resolve();
  // The update waiting behind the running one, if any: every change meanwhile joins it, since it
  // reads the tabs and the policy only when it starts. Queued one per change, the 300 tabs a
  // person hands over at once made 300 updates in a row, and a call that waited for its own
  // (a rested tab's wake) waited for all of them.
  #queued: Promise<void> | undefined;

  /** The relay's policy for the person's tabs. */
  set(config: PolicyConfig): Promise<void> {
    this.#policy = new OriginPolicy(config); // a bad pattern throws before anything changes
    this.#config = config;
    return this.#apply();
  }

  /**
   * After a worker start: the policy the relay last sent and the attached tabs, at once (told
   * apart, the first would take Chrome's rules off until the second).
   */
  restore(config: PolicyConfig, tabIds: number[]): Promise<void> {
    this.#policy = new OriginPolicy(config);
    this.#config = config;
    return this.holdTabs(tabIds);
  }

  /** The tabs the rules hold (the attached ones). */
  holdTabs(tabIds: number[]): Promise<void> {
    this.#tabIds = [...tabIds];
    for (const tabId of tabIds) {
      clearTimeout(this.#fresh.get(tabId));
      this.#fresh.delete(tabId);
    }
    return this.#apply();
  }

  /** The relay holds new tabs (on), or no longer (off: the held pop-ups go too). */
  holdNewTabs(on: boolean): Promise<void> {
    if (on === this.#holdingNew) return this.#applying;
    this.#holdingNew = on;
    if (!on) this.#heldNew.clear();
    return this.#apply();
  }

  get holdingNew(): boolean {
    return this.#holdingNew;
  }

  /** A pop-up of an attached tab, about to be attached: its loads wait for the relay's word. */
  holdNew(tabId: number): void {
    if (this.#holdingNew) this.#heldNew.add(tabId);
  }

  isHeldNew(tabId: number): boolean {
    return this.#heldNew.has(tabId);
  }

  /** The relay's word: the pop-up's watch is on, its loads go (and are judged there). */
  releaseNew(tabId: number): Promise<void> {
    if (!this.#heldNew.delete(tabId)) return this.#applying;
    return this.#apply();
  }

  /** A tab was created: held until it is claimed, or let go after FRESH_MS. */
  tabCreated(tabId: number): void {
    this.#fresh.set(
      tabId,
      setTimeout(() => this.letGo(tabId), FRESH_MS),
    );
  }

  /** A tab is the person's (opened from a tab that is not attached, or unclaimed): no rules on it. */
  letGo(tabId: number): Promise<void> {
    clearTimeout(this.#fresh.get(tabId));
    this.#fresh.delete(tabId);
    if ((this.#policy.empty || this.#tabIds.length === 0) && !this.#holdingNew) return this.#applying;
    return this.#apply();
  }

  /**
   * Why a tab showing `url` may not be handed to an agent because the page is clawd's own (the
   * live view carries the person's session): its words, or undefined. The relay's /blocked page
   * holds nothing and may stay.
   */
  clawdsOwn(url: string): string | undefined {
    if (this.isBlockedPage(url)) return undefined;
    const own = new OriginPolicy({ own: this.#config.own ?? [] });
    return own.check(url).allowed ? undefined : "clawd's own pages (the live view) are never handed to agents";
  }

  /** Whether `url` is the relay's /blocked page. */
  isBlockedPage(url: string): boolean {
    const relay = this.relayOrigin();
    return relay !== undefined && url.startsWith(`${relay}/blocked?`);
  }

  /** Where a tab that may not load `url` goes instead, or undefined when it may (or the relay is unknown). */
  blockedPage(url: string): string | undefined {
    const verdict = this.#policy.check(url);
    const relay = this.relayOrigin();
    return verdict.allowed || !relay ? undefined : blockedPageUrl(relay, url, verdict.reason);
  }

  /** A held tab is on another page: the sites whose workers are held may have changed. */
  tabMoved(tabId: number): Promise<void> {
    if ((this.#policy.empty && !this.#holdingNew) || !this.#tabIds.includes(tabId)) return this.#applying;
    return this.#apply();
  }

  /**
   * A frame of a tab committed a document (not the top one: tabMoved has those): a held tab's
   * frame of a site not yet held makes it held, before that frame's scripts can start a worker.
   */
  frameCommitted(tabId: number, url: string): Promise<void> {
    const site = siteOf(url);
    if (
      (this.#policy.empty && !this.#holdingNew) ||
      !this.#tabIds.includes(tabId) ||
      site === undefined ||
      this.#sites.has(site)
    )
      return this.#applying;
    this.#sites.add(site); // one update, however many of the site's frames commit meanwhile
    return this.#apply();
  }

  /**
   * `others`: the tabs that are the person's (neither attached nor new). `sites`: the hosts the
   * held tabs' frames show, whose service and shared workers (requests of no tab, started by that
   * site) are held too: a held tab's site, or a site it frames, can reach the network through its
   * worker. However many sites, the rules are as many (the sites are one condition's list).
   */
  #rules(others: number[], sites: string[]): chrome.declarativeNetRequest.Rule[] {
    // The new-tab hold first: a policy too large for the rules' room must not crowd it out.
    const rules = [...this.#newTabRules(others, sites), ...this.#policyRules(others, sites)];
    return rules.slice(0, LAST_ID - FIRST_ID + 1).map((rule, i) => ({ ...rule, id: FIRST_ID + i }));
  }

  /**
   * While the relay holds new tabs: the page loads of the pop-ups waiting for the relay's word, and
   * of every tab not yet known to be the person's that a site of the attached tabs' frames asked
   * for (a pop-up's first request can come before its tab is known: policy-rules' FRESH_MS) — not
   * a tab the person opens themselves (typed, restored, from a site no agent's tab shows), nor
   * the other attached tabs (their loads are the relay's watches' to judge). A load is refused
   * (made again once let go); a form sent is not.
   */
  #newTabRules(others: number[], sites: string[]): chrome.declarativeNetRequest.Rule[] {
    if (!this.#holdingNew) return [];
    const unknown: chrome.declarativeNetRequest.RuleCondition = {
      excludedTabIds: [chrome.tabs.TAB_ID_NONE, ...others, ...this.#tabIds],
      initiatorDomains: sites,
    };
    const held: chrome.declarativeNetRequest.RuleCondition = { tabIds: [...this.#heldNew] };
    const holds = [...(sites.length > 0 ? [unknown] : []), ...(this.#heldNew.size > 0 ? [held] : [])];
    const page = ['main_frame'] as chrome.declarativeNetRequest.ResourceType[];
    const relay = this.relayOrigin();
    const sent = relay
      ? {
          type: 'redirect' as chrome.declarativeNetRequest.RuleActionType,
          redirect: {
            url: blockedPageUrl(
              relay,
              'a form sent into a new tab',
              "a new tab an agent's tab opens is held until clawd can ask you about its loads, and a form sent into one cannot be held and sent again, so it was not sent",
            ),
          },
        }
      : { type: 'block' as chrome.declarativeNetRequest.RuleActionType };
    return [
      ...holds.flatMap((which) => [
        {
          id: 0,
          priority: 5,
          action: { type: 'block' as chrome.declarativeNetRequest.RuleActionType },
          condition: { ...which, resourceTypes: page, requestMethods: ['get'] as never },
        },
        {
          id: 0,
          priority: 5,
          action: sent,
          condition: { ...which, resourceTypes: page, excludedRequestMethods: ['get'] as never },
        },
      ]),
      // The relay's page that says what was held (below).
      ...(relay
        ? [
            {
              id: 0,
              priority: 6,
              action: { type: 'allow' as chrome.declarativeNetRequest.RuleActionType },
              condition: {
                regexFilter: `^${relay.replace(/[.]/g, '\\.')}/blocked\\?`,
                resourceTypes: page,
                excludedTabIds: [chrome.tabs.TAB_ID_NONE, ...others],
              },
            },
          ]
        : []),
    ];
  }

  #policyRules(others: number[], sites: string[]): chrome.declarativeNetRequest.Rule[] {
    if (this.#policy.empty || this.#tabIds.length === 0) return [];
    // Requests of no tab (TAB_ID_NONE: service workers, other extensions) are held only when a
    // held tab's site started them (their initiator); the rest are the person's.
    const excludedTabIds = [chrome.tabs.TAB_ID_NONE, ...others];
    const conditions = (regexFilter: string): chrome.declarativeNetRequest.RuleCondition[] => [
      { regexFilter, excludedTabIds, resourceTypes: ALL_TYPES },
      ...(sites.length > 0
        ? [{ regexFilter, tabIds: [chrome.tabs.TAB_ID_NONE], initiatorDomains: sites, resourceTypes: ALL_TYPES }]
        : []),
    ];
    const rules: chrome.declarativeNetRequest.Rule[] = [];
    const rule = (priority: number, type: 'block' | 'allow', regexFilter: string) => {
      for (const condition of conditions(regexFilter))
        rules.push({
          id: 0, // numbered with the rest (#rules)
          priority,
          action: { type: type as chrome.declarativeNetRequest.RuleActionType },
          condition,
        });
    };
    // With an allow list, everything else is blocked; allow rules outrank that; block rules outrank both.
    if (this.#config.allow) rule(1, 'block', '^(https?|wss?)://');
    for (const pattern of this.#config.allow ?? []) rule(2, 'allow', patternRegex(pattern));
    // clawd's own addresses (its relay, control API and live view, the CDP ports): never a page of
    // an agent's tab, whatever the person's rules — it would carry what the person's browser holds there.
    for (const pattern of [...(this.#config.block ?? []), ...(this.#config.own ?? [])])
      rule(3, 'block', patternRegex(pattern));
    // The relay's page that says what was blocked, whatever the rules (a page of no secrets: it
    // shows only its own escaped query, runs nothing, takes no token and carries no cookie of ours).
    const relay = this.relayOrigin();
    if (relay) rule(4, 'allow', `^${relay.replace(/[.]/g, '\\.')}/blocked\\?`);
    return rules;
  }

  #apply(): Promise<void> {
    const update = async () => {
      const ours = (await chrome.declarativeNetRequest.getSessionRules())
        .map((r) => r.id)
        .filter((id) => id >= FIRST_ID && id <= LAST_ID);
      const held = new Set([...this.#tabIds, ...this.#fresh.keys()]);
      const tabs =
        (this.#policy.empty || this.#tabIds.length === 0) && !this.#holdingNew ? [] : await chrome.tabs.query({});
      const others = tabs.flatMap((tab) => (tab.id !== undefined && !held.has(tab.id) ? [tab.id] : []));
      // Every frame of each held tab (a frame gone since then leaves its site held until the next
      // update), and the page a held tab is on its way to.
      const heldTabs = tabs.flatMap((tab) => (tab.id !== undefined && this.#tabIds.includes(tab.id) ? [tab] : []));
      const frames = await Promise.all(
        heldTabs.map((tab) => chrome.webNavigation.getAllFrames({ tabId: tab.id! }).catch(() => null)),
      );
      const urls = [
        ...heldTabs.map((tab) => tab.pendingUrl || tab.url || ''),
        ...frames.flatMap((all) => (all ?? []).map((frame) => frame.url)),
      ];
      const sites = [...new Set(urls.flatMap((url) => siteOf(url) ?? []))];
      this.#sites = new Set(sites);
      const awake = heldTabs.flatMap((tab, i) =>
        this.resting(tab.id!) ? [] : [tab.pendingUrl || tab.url || '', ...(frames[i] ?? []).map((frame) => frame.url)],
      );
      this.held(this.#config, [...new Set(awake.flatMap((url) => siteOf(url) ?? []))]);
      await chrome.declarativeNetRequest.updateSessionRules({
        removeRuleIds: ours,
        addRules: this.#rules(others, sites),
      });
    };
    if (this.#queued) return this.#queued;
    const started = () => {
      this.#queued = undefined;
      return update();
    };
    // One failed update must not stop the ones after it.
    this.#applying = this.#queued = this.#applying.then(started, started);
    return this.#applying;
  }
}
