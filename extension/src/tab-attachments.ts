// The tabs this extension has attached with chrome.debugger, mirrored in chrome.storage.session
// so a restarted worker knows them. Measured: a debugger session outlives its service worker
// (the tab stays attached, and a fresh worker can send commands at once), so after a restart
// the tabs are simply re-announced under the session ids the relay gave them.

import type { AnnouncedTab, ExtensionFrame, TargetInfo } from '../../shared/protocol';
import { badge } from './badge';

interface StoredTab {
  tabId: number;
  targetId: string;
  sessionId?: string;
}

const STORAGE_KEY = 'attachedTabs';

/** Pages chrome.debugger may not attach to, with words a user understands. */
export function attachRefusal(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const scheme = url.slice(0, url.indexOf(':') + 1);
  if (['chrome:', 'chrome-extension:', 'chrome-untrusted:', 'devtools:', 'edge:', 'brave:', 'view-source:'].includes(scheme)) {
    return `browser pages (${scheme}//) cannot be handed to the agent: open a regular web page`;
  }
  if (url.startsWith('https://chromewebstore.google.com/') || url.startsWith('https://chrome.google.com/webstore')) {
    return 'the Chrome Web Store cannot be handed to the agent';
  }
  return undefined;
}

export class TabAttachments {
  readonly #tabs = new Map<number, StoredTab>();
  readonly ready: Promise<void>;

  constructor(private readonly out: { send(frame: ExtensionFrame): void }) {
    this.ready = this.#load();
  }

  has(tabId: number): boolean {
    return this.#tabs.has(tabId);
  }

  get tabIds(): number[] {
    return [...this.#tabs.keys()];
  }

  async #load(): Promise<void> {
    const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY];
    if (Array.isArray(stored)) for (const tab of stored as StoredTab[]) this.#tabs.set(tab.tabId, tab);
  }

  #persist(): Promise<void> {
    return chrome.storage.session.set({ [STORAGE_KEY]: [...this.#tabs.values()] });
  }

  async #targetInfo(tabId: number): Promise<TargetInfo> {
    const { targetInfo } = (await chrome.debugger.sendCommand({ tabId }, 'Target.getTargetInfo')) as { targetInfo: TargetInfo };
    return targetInfo;
  }

  /** Attaches the debugger and returns the announcement for the relay. */
  async attach(tabId: number): Promise<AnnouncedTab> {
    await this.ready;
    const tab = await chrome.tabs.get(tabId);
    const refused = attachRefusal(tab.url || tab.pendingUrl);
    if (refused) throw new Error(refused);
    try {
      await chrome.debugger.attach({ tabId }, '1.3');
    } catch (error) {
      const message = (error as Error).message;
      if (/already attached/i.test(message)) throw new Error('another debugger (DevTools or an extension) is attached to this tab: close it and try again');
      // The tab may have moved to a browser page since we looked: say so in the same words.
      const scheme = message.match(/Cannot access a ([a-z-]+):\/\/ URL/)?.[1];
      throw new Error((scheme && attachRefusal(`${scheme}://`)) || `cannot attach to this tab: ${message}`);
    }
    const targetInfo = await this.#targetInfo(tabId);
    const known = this.#tabs.get(tabId);
    this.#tabs.set(tabId, { tabId, targetId: targetInfo.targetId, sessionId: known?.sessionId });
    await this.#persist();
    void badge.attached(tabId);
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
      try {
        announced.push({ tabId: tab.tabId, sessionId: tab.sessionId, targetInfo: await this.#targetInfo(tab.tabId) });
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
    await chrome.debugger.detach({ tabId });
    await chrome.debugger.attach({ tabId }, '1.3');
  }

  /** Detaches (a second click, or the tab is closing on request) and tells the relay. */
  async release(tabId: number, reason: string): Promise<void> {
    await this.ready;
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
    const known = this.#tabs.delete(tabId);
    this.out.send({ type: 'tabDetached', tabId, reason });
    if (!known) return;
    await this.#persist();
    void badge.clear(tabId);
  }

  sendCommand(tabId: number, sessionId: string | undefined, method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    if (!this.#tabs.has(tabId)) return Promise.reject(new Error(`Debugger is not attached to the tab with id: ${tabId}.`));
    return chrome.debugger.sendCommand(sessionId === undefined ? { tabId } : { tabId, sessionId }, method, params);
  }
}
