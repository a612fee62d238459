// The tabs the person handed to the agent, and their debugger sessions, kept in the worker's
// state (worker-state.ts, storage.local) so a restarted worker — or a reloaded, updated extension — knows them.
// Measured: a debugger session outlives its service worker (after a worker restart the tabs are
// simply re-announced), but not an extension reload, after which each tab is attached again and
// announced as `reattached`. Stored tabs are checked against Chrome's own target ids, so after
// a browser restart (new ids) nothing is attached that the person did not choose in this run.
// A tab on a page the debugger cannot attach to (chrome://…) is parked, not forgotten: attached
// again when back on the web. A tab an attached tab opens (a popup, a target=_blank link) is
// attached and released with it. A tab nobody used for a while rests (detached, still handed
// over) until the relay has a command for it; Chrome's "started debugging" bar goes with the last.
// Kept whole (under the 400-line cap): attach, park, rest and release all change one table of
// stored tabs and its persisted copy, and each must see the others' changes at once.

import type { AnnouncedTab, ExtensionFrame, TargetInfo } from '../../shared/protocol';
import type { StoredTab, WorkerState } from './worker-state';

/** Pages chrome.debugger may not attach to, with words a user understands. */
export function attachRefusal(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const scheme = url.slice(0, url.indexOf(':') + 1);
  if (
    ['chrome:', 'chrome-extension:', 'chrome-untrusted:', 'devtools:', 'edge:', 'brave:', 'view-source:'].includes(
      scheme,
    )
  ) {
    return `browser pages (${scheme}//) cannot be handed to the agent: open a regular web page`;
  }
  if (url.startsWith('https://chromewebstore.google.com/') || url.startsWith('https://chrome.google.com/webstore')) {
    return 'the Chrome Web Store cannot be handed to the agent';
  }
  return undefined;
}

/** Whether a parked tab showing `url` is back where the debugger may attach again. */
export function backOnTheWeb(url: string | undefined): boolean {
  return url !== undefined && !attachRefusal(url) && /^(https?|file|about|data):/.test(url);
}

/** How often, and how many times, a parked tab back on the web is tried again when Chrome still refuses it. */
const RESUME_RETRY_MS = 200;
const RESUME_TRIES = 25;

export class TabAttachments {
  readonly #tabs = new Map<number, StoredTab>();
  // Attaches under way, by tab: a second one for the same tab (a drag and a popup at once) joins the first.
  readonly #attaching = new Map<number, Promise<AnnouncedTab>>();
  // Tabs Chrome said were gone while their attach was under way. Found by the target fuzz: a popup
  // closed while being attached was forgotten before it was remembered, then remembered and
  // announced, a tab the relay kept for good whose every command failed.
  readonly #goneWhileAttaching = new Set<number>();
  // Retries of parked tabs back on the web that Chrome still refused to attach, by tab.
  readonly #resumeRetries = new Map<number, { timer: ReturnType<typeof setTimeout>; tries: number }>();
  readonly ready: Promise<void>;

  constructor(
    private readonly state: WorkerState,
    private readonly out: { send(frame: ExtensionFrame): void },
    /** The set of attached tabs changed (one attached, or let go of): the policy rules follow, grants go after the last. */
    private readonly changed: () => void = () => {},
    /** A tab was attached (or attached again) or let go of: the watch for the person's hands follows. */
    private readonly each: { attached(tabId: number): void; forgotten(tabId: number): void } = {
      attached: () => {},
      forgotten: () => {},
    },
    /** What the tab's badge is drawn from changed (attached, parked, let go of). */
    private readonly repaint: (tabId: number) => void = () => {},
    /** Why a tab on this page may not be handed over because it is clawd's own (the live view), if it is. */
    private readonly clawdsOwn: (url: string) => string | undefined = () => undefined,
  ) {
    this.ready = this.#load();
  }

  has(tabId: number): boolean {
    return this.#tabs.has(tabId);
  }

  get tabIds(): number[] {
    return [...this.#tabs.keys()];
  }

  /** The handed-over tabs the debugger is attached to now (not parked, not resting). */
  get attachedTabIds(): number[] {
    return [...this.#tabs.values()].filter((t) => t.parked === undefined && !t.resting).map((t) => t.tabId);
  }

  isResting(tabId: number): boolean {
    return this.#tabs.get(tabId)?.resting === true;
  }

  /**
   * The relay says nobody used the tab for a while: the debugger lets go of it (the tab stays
   * handed over: its group, badge and rules). A detach the extension makes fires no onDetach.
   */
  async rest(tabId: number): Promise<number> {
    await this.ready;
    const tab = this.#tabs.get(tabId);
    if (!tab || tab.parked !== undefined || this.#attaching.has(tabId))
      throw new Error(`tab ${tabId} is not attached, so it cannot rest`);
    if (tab.resting) return Date.now();
    await chrome.debugger.detach({ tabId });
    const at = Date.now();
    tab.resting = true;
    await this.#persist();
    return at;
  }

  /**
   * A command is coming for a resting tab: the debugger attaches again (a fresh session). A tab
   * that went to a browser page meanwhile is parked instead (the relay hears tabParked).
   */
  async wake(tabId: number): Promise<TargetInfo> {
    await this.ready;
    const tab = this.#tabs.get(tabId);
    if (!tab) throw new Error(`No tab with id: ${tabId} among the tabs handed to clawd`);
    if (!tab.resting) return this.#targetInfo(tabId);
    try {
      await chrome.debugger.attach({ tabId }, '1.3');
    } catch (error) {
      const now = await chrome.tabs.get(tabId).catch(() => undefined);
      if (!now) {
        await this.forget(tabId, 'target_closed');
        throw new Error('the tab closed while it rested');
      }
      const url = now.pendingUrl || now.url || '';
      tab.resting = undefined;
      if (attachRefusal(url)) {
        await this.park(tabId, url);
        throw new Error(`the tab is showing ${url}, which cannot be automated`);
      }
      // Another debugger (DevTools, another extension) took it meanwhile: it is no longer the agents'.
      await this.forget(tabId, `could not attach again: ${(error as Error).message}`);
      throw error;
    }
    if (this.#tabs.get(tabId) !== tab) {
      // Released (Stop, the toolbar, a drag out) while it was being attached: let go again.
      await chrome.debugger.detach({ tabId }).catch(() => {});
      throw new Error('the tab was taken back while it was being attached');
    }
    tab.resting = undefined;
    const targetInfo = await this.#targetInfo(tabId);
    tab.targetId = targetInfo.targetId;
    await this.#persist();
    return targetInfo;
  }

  async #load(): Promise<void> {
    const stored = (await this.state.loaded).attachedTabs;
    if (stored.length === 0) return;
    const targets = await chrome.debugger.getTargets();
    for (const tab of stored) {
      const target = targets.find((t) => t.tabId === tab.tabId && (t.id === tab.targetId || tab.parked !== undefined));
      if (!target) continue; // closed, or another browser run: not the tab the person chose
      this.#tabs.set(tab.tabId, tab);
    }
    await this.#persist();
  }

  #persist(): Promise<void> {
    return this.state.save('attachedTabs', [...this.#tabs.values()]);
  }

  /** The page a parked tab shows (undefined when it is not parked, or not attached). */
  parkedOn(tabId: number): string | undefined {
    return this.#tabs.get(tabId)?.parked;
  }

  isParked(tabId: number): boolean {
    return this.#tabs.get(tabId)?.parked !== undefined;
  }

  /** Chrome detached the tab for a page we cannot attach to: keep it, pause it, tell the relay. */
  async park(tabId: number, url: string): Promise<void> {
    await this.ready;
    const tab = this.#tabs.get(tabId);
    if (!tab) return;
    tab.parked = url;
    await this.#persist();
    this.repaint(tabId);
    this.out.send({ type: 'tabParked', tabId, url });
    // Chrome's onDetach can trail the tab's way back to the web (found by the target fuzz, a
    // chrome:// detour of a moment): no update of the tab would then come to attach it again.
    const now = await chrome.tabs.get(tabId).catch(() => undefined);
    if (backOnTheWeb(now?.pendingUrl || now?.url)) await this.resume(tabId);
  }

  /** A parked tab is back on the web: attach again, under the same relay session. */
  async resume(tabId: number): Promise<void> {
    await this.ready;
    const tab = this.#tabs.get(tabId);
    if (!tab || tab.parked === undefined) return;
    const parkedOn = tab.parked;
    tab.parked = undefined;
    try {
      this.out.send({ type: 'tabAttached', tab: await this.#reattach(tab) });
      this.#stopRetrying(tabId);
    } catch (error) {
      const message = (error as Error).message;
      // Measured: the web URL is announced before the chrome:// page has gone; attaching then
      // fails. The tab stays parked and the next update (the page complete) tries again.
      const now = await chrome.tabs.get(tabId).catch(() => undefined);
      if (/Cannot access|Cannot attach|chrome:\/\//i.test(message) && now) {
        tab.parked = parkedOn;
        // Tried again shortly too, bounded: the update that would try it may have come already.
        this.#retryResume(tabId);
        return;
      }
      await this.forget(tabId, `could not attach again: ${message}`);
    }
  }

  #stopRetrying(tabId: number): void {
    clearTimeout(this.#resumeRetries.get(tabId)?.timer);
    this.#resumeRetries.delete(tabId);
  }

  #retryResume(tabId: number): void {
    const previous = this.#resumeRetries.get(tabId);
    clearTimeout(previous?.timer);
    const tries = (previous?.tries ?? 0) + 1;
    if (tries > RESUME_TRIES) return void this.#resumeRetries.delete(tabId);
    const timer = setTimeout(() => {
      void chrome.tabs.get(tabId).then(
        (tab) => (backOnTheWeb(tab.pendingUrl || tab.url) ? this.resume(tabId) : undefined),
        () => undefined,
      );
    }, RESUME_RETRY_MS);
    this.#resumeRetries.set(tabId, { timer, tries });
  }

  async #reattach(tab: StoredTab): Promise<AnnouncedTab> {
    try {
      await chrome.debugger.attach({ tabId: tab.tabId }, '1.3');
    } catch (error) {
      if (!/already attached/i.test((error as Error).message)) throw error;
    }
    const targetInfo = await this.#targetInfo(tab.tabId);
    tab.targetId = targetInfo.targetId;
    tab.resting = undefined;
    await this.#persist();
    this.changed();
    this.each.attached(tab.tabId);
    this.repaint(tab.tabId);
    return { tabId: tab.tabId, ...(tab.sessionId ? { sessionId: tab.sessionId } : {}), targetInfo, reattached: true };
  }

  async #targetInfo(tabId: number): Promise<TargetInfo> {
    const { targetInfo } = (await chrome.debugger.sendCommand({ tabId }, 'Target.getTargetInfo')) as {
      targetInfo: TargetInfo;
    };
    return targetInfo;
  }

  /** Whether a tab that `openerTabId`'s page just opened follows it: its opener is attached and on the web. */
  followsOpener(openerTabId: number): boolean {
    return this.#tabs.has(openerTabId) && !this.isParked(openerTabId);
  }

  targetIdOf(tabId: number): string | undefined {
    return this.#tabs.get(tabId)?.targetId;
  }

  /** Whether an attach of the tab is under way. */
  attaching(tabId: number): boolean {
    return this.#attaching.has(tabId);
  }

  /** Attaches the debugger and returns the announcement for the relay. */
  attach(tabId: number, openerTabId?: number): Promise<AnnouncedTab> {
    const running = this.#attaching.get(tabId);
    if (running) return running;
    const attaching = this.#attach(tabId, openerTabId).finally(() => {
      this.#attaching.delete(tabId);
      this.#goneWhileAttaching.delete(tabId);
    });
    this.#attaching.set(tabId, attaching);
    return attaching;
  }

  /** What the relay is told of an attached tab (its page as it is now). */
  async announcement(tabId: number): Promise<AnnouncedTab | undefined> {
    const tab = this.#tabs.get(tabId);
    if (!tab || tab.parked !== undefined) return undefined;
    const targetInfo = await this.#targetInfo(tabId).catch(() => undefined);
    return targetInfo ? { tabId, ...(tab.sessionId ? { sessionId: tab.sessionId } : {}), targetInfo } : undefined;
  }

  async #attach(tabId: number, openerTabId?: number): Promise<AnnouncedTab> {
    await this.ready;
    const tab = await chrome.tabs.get(tabId);
    const url = tab.url || tab.pendingUrl;
    const refused = attachRefusal(url) ?? (url ? this.clawdsOwn(url) : undefined);
    if (refused) throw new Error(refused);
    try {
      await chrome.debugger.attach({ tabId }, '1.3');
    } catch (error) {
      const message = (error as Error).message;
      if (/already attached/i.test(message))
        throw new Error('another debugger (DevTools or an extension) is attached to this tab: close it and try again');
      // The tab may have moved to a browser page since we looked: say so in the same words.
      const scheme = message.match(/Cannot access a ([a-z-]+):\/\/ URL/)?.[1];
      throw new Error((scheme && attachRefusal(`${scheme}://`)) || `cannot attach to this tab: ${message}`);
    }
    const targetInfo = await this.#targetInfo(tabId);
    const known = this.#tabs.get(tabId);
    this.#tabs.set(tabId, {
      tabId,
      targetId: targetInfo.targetId,
      sessionId: known?.sessionId,
      ...(openerTabId !== undefined ? { openerTabId } : {}),
    });
    await this.#persist();
    if (this.#goneWhileAttaching.delete(tabId)) {
      this.#tabs.delete(tabId);
      await this.#persist();
      throw new Error('the tab closed while it was being attached');
    }
    this.changed();
    this.each.attached(tabId);
    this.repaint(tabId);
    return { tabId, targetInfo };
  }

  /** The relay named the tab's session: remember it for the next hello. */
  async setSession(tabId: number, sessionId: string): Promise<void> {
    const tab = this.#tabs.get(tabId);
    if (!tab || tab.sessionId === sessionId) return;
    tab.sessionId = sessionId;
    await this.#persist();
  }

  /** The tabs to announce in hello, checked against Chrome: a tab we no longer drive is dropped. */
  async announce(): Promise<AnnouncedTab[]> {
    await this.ready;
    const announced: AnnouncedTab[] = [];
    for (const tab of [...this.#tabs.values()]) {
      if (tab.parked !== undefined) continue; // announced when it is back on the web
      try {
        // Still attached after a worker restart; attached afresh after a reload, an update, or a rest.
        const targetInfo = tab.resting ? undefined : await this.#targetInfo(tab.tabId).catch(() => undefined);
        announced.push(
          targetInfo ? { tabId: tab.tabId, sessionId: tab.sessionId, targetInfo } : await this.#reattach(tab),
        );
      } catch {
        this.#tabs.delete(tab.tabId);
      }
    }
    await this.#persist();
    return announced;
  }

  /**
   * A fresh debugger session on the same tab, so nothing the last agent set (emulation, init
   * scripts, interception, a paused debugger) stays on the user's page. Measured: ~2 ms, and a
   * detach the extension makes itself fires no onDetach, so the tab is never reported gone.
   */
  async reset(tabId: number): Promise<void> {
    if (!this.#tabs.has(tabId)) throw new Error(`Debugger is not attached to the tab with id: ${tabId}.`);
    if (this.isResting(tabId)) return; // its next session is a fresh one anyway
    await chrome.debugger.detach({ tabId });
    await chrome.debugger.attach({ tabId }, '1.3');
  }

  /** Detaches (a second click, or the tab is closing on request) and tells the relay; the tabs it opened go with it. */
  async release(tabId: number, reason: string): Promise<void> {
    await this.ready;
    for (const popup of [...this.#tabs.values()])
      if (popup.openerTabId === tabId) await this.release(popup.tabId, reason);
    try {
      await chrome.debugger.detach({ tabId });
    } catch {
      // Already detached (closed tab, cancelled infobar): forgetting it is all that is left.
    }
    await this.forget(tabId, reason);
  }

  /** Chrome ended the session or the tab closed: forget it, tell the relay, clear the badge. */
  async forget(tabId: number, reason: string): Promise<void> {
    await this.ready;
    if (this.#attaching.has(tabId)) this.#goneWhileAttaching.add(tabId);
    this.#stopRetrying(tabId);
    const known = this.#tabs.delete(tabId);
    this.out.send({ type: 'tabDetached', tabId, reason });
    if (!known) return;
    await this.#persist();
    this.repaint(tabId);
    this.changed();
    this.each.forgotten(tabId);
  }

  sendCommand(
    tabId: number,
    sessionId: string | undefined,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    if (!this.#tabs.has(tabId))
      return Promise.reject(new Error(`Debugger is not attached to the tab with id: ${tabId}.`));
    return chrome.debugger.sendCommand(sessionId === undefined ? { tabId } : { tabId, sessionId }, method, params);
  }
}
