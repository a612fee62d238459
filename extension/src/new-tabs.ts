// New tabs while the relay holds them (policy-rules.ts `holdNewTabs`): a page load the hold
// refused is kept and made again once its tab is let go — a pop-up of an attached tab on the
// relay's word (`release`: its watch is on by then, and judges that load), a person's tab once it
// is known to be theirs. The tabs an agent opens are opened blank, attached, then sent on, so
// their first load is never the hold's. With no relay, nothing held is made again.

import type { AnnouncedTab } from '../../shared/protocol';
import type { PolicyRules } from './policy-rules';
import { PersonRefusal } from './relay-connection';
import { agentsMayOpenTabs } from './settings';
import type { TabAttachments } from './tab-attachments';
import type { TabGroups } from './tab-groups';

/**
 * How long after its tab is let go a refusal still on its way is made again (the hold refuses a
 * load as it starts: its word comes within milliseconds). A watch's refusal is another error
 * (fetch-hold.ts `REFUSED`); another extension's rule's is made again once at most (`#madeAgain`).
 */
const LATE_MS = 1_000;
/** When a tab not yet known to be an agent's or the person's is looked at again (policy-rules.ts FRESH_MS, and a little). */
const CLAIMED_MS = 450;

export class NewTabs {
  /** The page load the hold refused, by tab. */
  readonly #refused = new Map<number, string>();
  /** Tabs let go a moment ago (their rules' update): a refusal still on its way is made again once that is in force. */
  readonly #letGo = new Map<number, { released: Promise<void>; timer: ReturnType<typeof setTimeout> }>();
  /** Loads made again (`tab url`), once each: a refusal that comes again is another rule's (another extension's). */
  readonly #madeAgain = new Set<string>();

  constructor(
    private readonly rules: PolicyRules,
    private readonly attachments: TabAttachments,
    private readonly groups: TabGroups,
  ) {}

  /**
   * Our rules refused a page load the policy would let go: the hold's. Kept for when the tab is
   * let go; false when it was none of the hold's (an attached tab's own load is never held).
   */
  refused(tabId: number, url: string): boolean {
    const late = this.#letGo.get(tabId);
    if (late !== undefined) {
      clearTimeout(late.timer);
      this.#letGo.delete(tabId);
      void late.released.then(() => this.#go(tabId, url));
      return true;
    }
    if (!this.rules.holdingNew) return false;
    if (this.attachments.has(tabId) && !this.rules.isHeldNew(tabId)) return false;
    this.#refused.set(tabId, url);
    // Not an attached tab's pop-up by now: the person's (let go by the rules), loaded again.
    if (!this.rules.isHeldNew(tabId))
      setTimeout(() => {
        if (!this.attachments.has(tabId) && !this.rules.isHeldNew(tabId))
          void this.rules.letGo(tabId).then(() => this.#go(tabId));
      }, CLAIMED_MS);
    return true;
  }

  /** The relay's word: the pop-up's watch is on. Its loads go, and the one the hold refused is made again. */
  async release(tabId: number): Promise<void> {
    const released = this.rules.releaseNew(tabId);
    if (!this.#refused.has(tabId)) {
      // Its refusal may be on its way still (the hold refused it a moment ago).
      clearTimeout(this.#letGo.get(tabId)?.timer);
      this.#letGo.set(tabId, { released, timer: setTimeout(() => this.#letGo.delete(tabId), LATE_MS) });
    }
    await released;
    this.#go(tabId);
  }

  /** The relay holds new tabs, or no longer (then, or with the relay gone, nothing held goes unjudged: a held pop-up stays on its error page). */
  hold(on: boolean): Promise<void> {
    if (!on) this.#refused.clear();
    return this.rules.holdNewTabs(on);
  }

  /** A tab closed. */
  forget(tabId: number): void {
    this.#refused.delete(tabId);
    clearTimeout(this.#letGo.get(tabId)?.timer);
    this.#letGo.delete(tabId);
  }

  /** A tab for an agent (the relay's createTab), attached before it loads anything while new tabs are held. */
  async open(url: string, active: boolean, session: string | undefined): Promise<{ tab: AnnouncedTab }> {
    if (!(await agentsMayOpenTabs())) {
      throw new PersonRefusal(
        'tab_open_refused',
        'the person does not let agents open tabs in their browser (the clawd extension\'s option "Agents may open tabs in my browser" is off: they turned it off, or pressed Stop): use a tab they hand over',
      );
    }
    const later = this.rules.holdingNew && url !== 'about:blank';
    const tab = await chrome.tabs.create({ url: later ? 'about:blank' : url, active });
    if (tab.id === undefined) throw new Error('Chrome created a tab without an id');
    const announced = await this.attachments.attach(tab.id);
    // The rules know it is attached before it loads anything, sent on here or by the relay (an
    // attached tab's loads are its watches' to judge, not the hold's).
    if (this.rules.holdingNew) await this.rules.holdTabs(this.attachments.tabIds);
    if (later) await chrome.tabs.update(tab.id, { url });
    // In the opening session's own group, where the person sees whose it is (a tab of a pop-up
    // window cannot be grouped: it is the agent's all the same).
    await this.groups.join(tab.id, session).catch(() => {});
    return { tab: announced };
  }

  #go(tabId: number, url = this.#refused.get(tabId)): void {
    this.#refused.delete(tabId);
    const once = `${tabId} ${url}`;
    if (!url || this.#madeAgain.has(once)) return;
    if (this.#madeAgain.size > 100) this.#madeAgain.clear();
    this.#madeAgain.add(once);
    void (async () => {
      // A tab its opener sent on to the relay's /blocked page since (a page can load that page)
      // keeps that later load: the refused one made after it would come when the call that
      // opened the tab has answered (it was told the tab loaded), judged by no call.
      const tab = await chrome.tabs.get(tabId);
      // What the tab shows, as the relay reads it (a load still on its way may never come).
      if (this.rules.isBlockedPage(tab.url ?? '')) return;
      await chrome.tabs.update(tabId, { url });
    })().catch(() => {});
  }
}
