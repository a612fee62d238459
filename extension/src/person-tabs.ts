// What the person does with their tabs, as Chrome tells it, and what becomes of the agents' hold
// on them: the toolbar click (attach, release, or give a handed-over tab back), a tab dragged into
// or out of a clawd group, a tab an attached tab's page opens (the agent's too), a tab closed,
// moved to another page or detached by Chrome, and a page load our rules refused. background.ts
// registers the listeners (MV3 wants them at the top level) and hands each event here.

import { badge } from './badge';
import type { HandOvers } from './hand-overs';
import type { NewTabs } from './new-tabs';
import type { PolicyRules } from './policy-rules';
import type { RelayConnection } from './relay-connection';
import type { TabGroups } from './tab-groups';
import { attachRefusal, backOnTheWeb, type TabAttachments } from './tab-attachments';

export interface PersonTabsParts {
  /** The worker has read its state (an event may be what woke it). */
  started(): Promise<unknown>;
  attachments: TabAttachments;
  handOvers: HandOvers;
  connection: RelayConnection;
  groups: TabGroups;
  policyRules: PolicyRules;
  newTabs: NewTabs;
  paintTab(tabId: number): void;
}

/** How long a closed attached tab's new tabs are known as its (a pop-up's creation is told within ~20 ms). */
const CLOSED_KEPT_MS = 3_000;

export class PersonTabs {
  /** Tabs a page just opened, until the popup listener has decided on them (Chrome may group them with their opener meanwhile). */
  readonly #opening = new Set<number>();
  /** Person's tabs let go and loaded again after our rules refused their load: once each. */
  readonly #reloaded = new Set<string>();
  /** Attached tabs closed a moment ago, and when (a page may open a tab and close itself at once). */
  readonly #closed = new Map<number, number>();

  constructor(private readonly d: PersonTabsParts) {}

  /**
   * A tab an attached tab's page opens is the agent's too (Playwright's `popup`): attached at
   * once, before its page loads, and announced with its opener (Chrome's targetInfo.openerId).
   * Measured: onCreatedNavigationTarget fires for window.open (noopener too), target=_blank links
   * and forms, 10–20 ms in, well before the new page commits — and, unlike tabs.onCreated's
   * openerTabId, never for a tab opened some other way (a new tab, Target.createTarget) while an
   * attached tab is active.
   */
  popupOpened(details: { tabId: number; sourceTabId: number; url: string }): void {
    this.#opening.add(details.tabId);
    void this.#adoptPopup(details.tabId, details.sourceTabId, details.url).finally(() =>
      this.#opening.delete(details.tabId),
    );
  }

  /** Every new tab is held by the origin policy until it is known whose it is (policy-rules.ts). */
  created(tab: chrome.tabs.Tab): void {
    if (tab.id === undefined) return;
    // An extension's own page (the pair page, the options) is never an agent's tab (it cannot be
    // attached): not held, so its own calls to clawd (a pairing) are never caught by the rules.
    if ((tab.pendingUrl || tab.url || '').startsWith('chrome-extension:')) return void this.d.policyRules.letGo(tab.id);
    this.d.policyRules.tabCreated(tab.id);
  }

  async toggle(tab: chrome.tabs.Tab): Promise<void> {
    const tabId = tab.id;
    if (tabId === undefined) return;
    await this.d.started(); // a click may be what woke the worker: settings and tabs first
    // A tab the agent handed to the person: the click gives it back, the tab stays attached.
    if (this.d.attachments.has(tabId) && (await this.d.handOvers.end(tabId))) {
      this.d.connection.send({ type: 'handBack', tabId });
      return;
    }
    if (this.d.attachments.has(tabId)) {
      await this.d.attachments.release(tabId, 'toggle');
      return;
    }
    void badge.connecting(tabId);
    try {
      await this.d.connection.ensureConnected(5_000);
    } catch (error) {
      void badge.error(tabId, (error as Error).message);
      if (this.d.connection.status === 'unconfigured') void chrome.runtime.openOptionsPage();
      return;
    }
    try {
      this.d.connection.send({ type: 'tabAttached', tab: await this.d.attachments.attach(tabId) });
      // Into the plain clawd group, unless the person already put it in a clawd group.
      if ((await this.d.groups.sessionOf(tab.groupId)) === null)
        await this.d.groups.join(tabId, undefined).catch(() => {});
    } catch (error) {
      void badge.error(tabId, (error as Error).message);
    }
  }

  /**
   * The person moved a tab into or out of a group. Into a clawd group: attached (and that group's
   * agent session); out of every clawd group: released. Moves the worker makes itself (joining a
   * tab it just attached, taking out one it let go of) change nothing here. A tab an attached tab
   * opened is the popup listener's, however Chrome groups it.
   */
  async regrouped(tabId: number): Promise<void> {
    await this.d.started();
    // A group the worker is making has no title for a moment: read the tab's group once its own changes are done.
    await this.d.groups.settled();
    const current = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!current) return;
    const session = await this.d.groups.sessionOf(current.groupId);
    if (this.d.attachments.attaching(tabId)) return; // the attach under way decides
    if (this.d.attachments.has(tabId)) {
      if (session === null) return void (await this.d.attachments.release(tabId, 'dragged out of the clawd group'));
      // Moved by the person from one clawd group into another's: the new group's session holds it.
      if (session && !this.d.groups.placedHere(tabId, current.groupId)) {
        const announced = await this.d.attachments.announcement(tabId);
        if (announced) this.d.connection.send({ type: 'tabAttached', tab: { ...announced, session } });
      }
      return;
    }
    if (session === null || this.#opening.has(tabId)) return;
    // A tab on a browser page stays in the group and is attached once it is on the web.
    const url = current.url || current.pendingUrl;
    if (!url || attachRefusal(url)) return;
    await this.#attachFromGroup(tabId, session);
  }

  async #attachFromGroup(tabId: number, session: string): Promise<void> {
    void badge.connecting(tabId);
    try {
      await this.d.connection.ensureConnected(5_000);
      const announced = await this.d.attachments.attach(tabId);
      this.d.connection.send({ type: 'tabAttached', tab: { ...announced, ...(session ? { session } : {}) } });
    } catch (error) {
      void badge.error(tabId, (error as Error).message);
      await this.d.groups.leave(tabId); // not attached: it is not shown as if it were
    }
  }

  /**
   * Chrome detached a tab. Closed, or the person cancelled the infobar: it is gone. Still open on a
   * page we cannot attach to (chrome://settings): parked until it is back on the web.
   */
  async detached(tabId: number, reason: string): Promise<void> {
    await this.d.started();
    const tab = reason === 'target_closed' ? await chrome.tabs.get(tabId).catch(() => undefined) : undefined;
    const url = tab?.pendingUrl || tab?.url;
    if (tab && url && attachRefusal(url)) return this.d.attachments.park(tabId, url);
    void this.d.handOvers.end(tabId);
    await this.d.attachments.forget(tabId, reason);
  }

  async #adoptPopup(tabId: number, openerTabId: number, url: string): Promise<void> {
    await this.d.started();
    if (this.d.attachments.has(tabId)) return;
    const opener = this.d.attachments.targetIdOf(openerTabId);
    if (!this.d.attachments.followsOpener(openerTabId)) {
      // Opened by an attached tab's page as it closed itself while new tabs are held: no watch is
      // left to judge it, so it is closed rather than let load.
      const closedAt = this.#closed.get(openerTabId);
      if (this.d.policyRules.holdingNew && closedAt !== undefined && Date.now() - closedAt < CLOSED_KEPT_MS)
        return void chrome.tabs.remove(tabId).catch(() => {});
      return void this.d.policyRules.letGo(tabId);
    }
    // While the relay holds new tabs, its loads wait for the relay's word (its opener's watch on it).
    this.d.policyRules.holdNew(tabId);
    await this.d.policyRules.holdTabs([...this.d.attachments.tabIds, tabId]);
    const blocked = this.d.policyRules.blockedPage(url);
    if (blocked) void chrome.tabs.update(tabId, { url: blocked });
    try {
      const announced = await this.d.attachments.attach(tabId, openerTabId);
      const held = this.d.policyRules.isHeldNew(tabId);
      // Held, it is named after its opener even when Chrome names none (a Ctrl-click): the relay's
      // watches know it by it, even once the opener is gone.
      const targetInfo = held
        ? { ...announced.targetInfo, openerId: announced.targetInfo.openerId ?? opener }
        : announced.targetInfo;
      this.d.connection.send({ type: 'tabAttached', tab: { ...announced, targetInfo, ...(held ? { held } : {}) } });
      // Its address may have changed while it was being attached (its update went unheard then).
      const now = await chrome.tabs.get(tabId).catch(() => undefined);
      if (now?.url)
        this.d.connection.send({ type: 'tabUpdated', tabId, url: now.url, ...(now.title ? { title: now.title } : {}) });
      await this.d.groups.joinWith(tabId, openerTabId).catch(() => {}); // in its opener's group
    } catch (error) {
      void badge.error(tabId, (error as Error).message);
      // Held for a watch that cannot watch it (a page no debugger may attach to, the Web Store):
      // closed, never let load unjudged.
      if (this.d.policyRules.isHeldNew(tabId)) await chrome.tabs.remove(tabId).catch(() => {});
      void this.d.policyRules.releaseNew(tabId);
    }
  }

  async loadRefused(details: { tabId: number; frameId: number; url: string; error: string }): Promise<void> {
    if (details.frameId !== 0 || !details.error.includes('ERR_BLOCKED_BY_CLIENT')) return;
    await this.d.started(); // the attached tabs are read from storage first
    const blocked = this.d.policyRules.blockedPage(details.url);
    // The new-tab hold's, made again once the tab is let go; else another extension's rule, or none of ours.
    if (!blocked) return void this.d.newTabs.refused(details.tabId, details.url);
    if (this.d.attachments.has(details.tabId)) return void chrome.tabs.update(details.tabId, { url: blocked });
    const once = `${details.tabId} ${details.url}`;
    if (this.#reloaded.has(once)) return;
    if (this.#reloaded.size > 100) this.#reloaded.clear();
    this.#reloaded.add(once);
    void this.d.policyRules.letGo(details.tabId).then(() => chrome.tabs.update(details.tabId, { url: details.url }));
  }

  async removed(tabId: number): Promise<void> {
    await this.d.started(); // a worker woken by the close reads the attached tabs first
    this.d.newTabs.forget(tabId);
    if (this.d.attachments.has(tabId)) this.#closed.set(tabId, Date.now());
    for (const [closed, at] of this.#closed) if (Date.now() - at >= CLOSED_KEPT_MS) this.#closed.delete(closed);
    void this.d.handOvers.end(tabId);
    if (this.d.attachments.has(tabId)) void this.d.attachments.forget(tabId, 'target_closed');
  }

  async updated(tabId: number, change: chrome.tabs.OnUpdatedInfo, tab: chrome.tabs.Tab): Promise<void> {
    await this.d.started(); // a worker woken by the update reads the attached tabs first
    if (change.groupId !== undefined) void this.regrouped(tabId);
    if (!this.d.attachments.has(tabId)) {
      // A tab in a clawd group on a browser page (a new tab made in the group) is attached once it is on the web.
      const url = change.url;
      if (url && tab.groupId !== undefined && tab.groupId !== -1 && !attachRefusal(url) && /^(https?|file):/.test(url))
        void this.regrouped(tabId);
      return;
    }
    // A parked tab back on the web is attached again; one still on a browser page stays parked.
    const url = change.url ?? tab.pendingUrl ?? tab.url;
    if (this.d.attachments.isParked(tabId)) {
      if (backOnTheWeb(url)) void this.d.attachments.resume(tabId);
      else if (change.status === 'complete') this.d.paintTab(tabId); // a navigation resets the tab's badge
      return;
    }
    if (change.status === 'complete') this.d.paintTab(tabId);
    if (change.url === undefined && change.title === undefined) return;
    if (change.url !== undefined) void this.d.policyRules.tabMoved(tabId); // its site's workers are held now
    this.d.connection.send({
      type: 'tabUpdated',
      tabId,
      ...(change.url !== undefined ? { url: change.url } : {}),
      ...(change.title !== undefined ? { title: change.title } : {}),
    });
  }
}
