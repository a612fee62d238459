// Pop-ups of the person's attached tabs held before they load, for clawd's pop-up hold
// (agent/actions/popup-holds.ts). chrome.debugger cannot pause a new tab, so the extension holds
// every new tab's page loads while the relay says so (holdNewTabs: declarativeNetRequest) and
// announces an attached tab's pop-up as held. The hold's own connection (clawd's key and
// `?clawd=popups`) is shown a held pop-up waiting for the debugger, as Chrome shows a paused new
// target; its word to run it (Runtime.runIfWaitingForDebugger, once its opener's watch is on the
// pop-up) has the extension let the pop-up's loads go and make the held one again. Every other
// client sees the pop-up running, as before, and its word to run it changes nothing.

import type { ClientSession } from './client-session';
import type { ExtensionLink } from './extension-link';
import type { Logger } from '../log';
import type { TabRecord } from './target-registry';

export class HeldTabs {
  /** The hold's connections that asked to be shown new targets paused. */
  readonly #holders = new Set<ClientSession>();

  constructor(
    private readonly link: () => ExtensionLink | undefined,
    /** The attached tabs (a held one is no longer held once no hold is there). */
    private readonly tabs: () => TabRecord[],
    private readonly log: Logger,
  ) {}

  /** Whether `client` is shown a held tab as waiting for the debugger. */
  waits(client: ClientSession, tab: TabRecord): boolean {
    return tab.held === true && this.#holders.has(client);
  }

  /**
   * The hold's connection auto-attaches with new targets paused: new tabs are held from now on,
   * once the extension says so (an extension that cannot leaves them unheld, as before).
   */
  async hold(client: ClientSession): Promise<void> {
    if (!client.holdsPopups) return;
    this.#holders.add(client);
    await this.#say(true);
  }

  /** A client went: with the last hold's connection, new tabs are held no longer. */
  dropped(client: ClientSession): void {
    if (!this.#holders.delete(client) || this.#holders.size > 0) return;
    // The extension lets go of what it held, without making a refused load again.
    for (const tab of this.tabs()) tab.held = false;
    void this.#say(false);
  }

  /** The extension (a new worker too) said hello: it holds new tabs again while a hold's connection is there. */
  connected(): void {
    if (this.#holders.size > 0) void this.#say(true);
  }

  /** A held tab was announced: with no hold's connection to run it, it is let go at once. */
  registered(tab: TabRecord): void {
    if (tab.held && this.#holders.size === 0) this.#release(tab);
  }

  /** A client's word to run a tab: the hold's lets a held one go. Says whether it was that. */
  run(client: ClientSession, tab: TabRecord): boolean {
    if (!this.waits(client, tab)) return false;
    this.#release(tab);
    return true;
  }

  #release(tab: TabRecord): void {
    tab.held = false;
    void this.link()
      ?.request({ op: 'releaseTab', tabId: tab.tabId }, 'releaseTab')
      .catch((error: Error) => this.log.debug(`releasing held tab ${tab.tabId}: ${error.message}`));
  }

  async #say(on: boolean): Promise<void> {
    await this.link()
      ?.request({ op: 'holdNewTabs', on }, 'holdNewTabs')
      .catch((error: Error) =>
        this.log.warn(`the extension did not ${on ? 'hold' : 'stop holding'} new tabs: ${error.message}`),
      );
  }
}
