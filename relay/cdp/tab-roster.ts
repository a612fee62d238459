// The person's attached tabs as the relay keeps them: added and removed as the extension says
// (its hello, an attach, a detach), each change told to the session table, to the clients that
// discover or auto-attach targets, and to the server. A tab left by its last client gets a fresh
// debugger session here, so nothing an agent set stays on the person's page.

import type { AnnouncedTab, HelloFrame, TabSession } from '../../shared/protocol';
import type { Logger } from '../log';
import type { BrowserTarget } from './browser-target';
import { say } from './client-events';
import { EventFence } from './event-fence';
import type { ExtensionLink } from './extension-link';
import type { SessionTable } from './session-table';
import type { SessionReplay } from './session-replay';
import type { TabLink } from './tab-link';
import type { TabRest } from './tab-rest';
import { matchesFilter, pageTargetInfo, tabTargetInfo } from './target-info';
import type { TabRecord, TargetRegistry } from './target-registry';

/** A tab of the person's browser was handed to the relay (attached) or left it (detached). */
export interface TabChange {
  targetId: string;
  url: string;
  state: 'attached' | 'detached';
  reason?: string;
}

type TargetEvent = 'Target.targetCreated' | 'Target.targetInfoChanged' | 'Target.targetDestroyed';

export interface RosterParts {
  registry: TargetRegistry;
  table: SessionTable;
  link: TabLink;
  replay: SessionReplay;
  rest: TabRest;
  browserTarget: BrowserTarget;
  log: Logger;
  eventFenceMs: number;
  /** Told of every attached and detached tab (the server's event stream). */
  onTabChange?: (change: TabChange) => void;
  /** A tab went: questions about it are withdrawn. */
  tabGone?: (targetId: string) => void;
}

export class TabRoster {
  constructor(private readonly parts: RosterParts) {}

  /** The extension's hello: its tabs are the relay's now (the ones it no longer has go); their session ids. */
  hello(frame: HelloFrame): TabSession[] {
    const announced = new Set(frame.tabs.map((t) => t.tabId));
    for (const tab of this.parts.registry.list()) if (!announced.has(tab.tabId)) this.remove(tab, 'not_reannounced');
    return frame.tabs.map((t) => {
      const { record, added } = this.#add(t);
      // A tab this relay has never seen was attached under an earlier relay process: whatever
      // its old clients left on the debugger session goes, so newcomers start clean.
      if (added) queueMicrotask(() => this.resetIfUnused(record));
      return { tabId: record.tabId, sessionId: record.sessionId };
    });
  }

  /**
   * When no client is left on a tab, its debugger session is replaced by a fresh one, so nothing
   * an agent set (emulation, init scripts, interception, a paused debugger) stays on the user's
   * page. Commands for the tab wait until the reset is done.
   */
  resetIfUnused(tab: TabRecord): void {
    if (!this.parts.table.isUsed(tab) && this.parts.link.reset(tab)) this.parts.table.resetTab(tab);
  }

  /** A tab the extension attached (or opened for a client): its session id sent back to it. */
  register(link: ExtensionLink, announced: AnnouncedTab): TabRecord {
    const { record } = this.#add(announced);
    link.send({ type: 'tabSession', tabId: record.tabId, sessionId: record.sessionId });
    return record;
  }

  /** The tab's address or title changed, or it paused on a page: discoverers are told. */
  changed(tab: TabRecord): void {
    this.#tellDiscoverers(tab, 'Target.targetInfoChanged');
  }

  remove(tab: TabRecord, reason: string): void {
    const { registry, table, link, log } = this.parts;
    // A replaced record (same tab id, new page target) was removed by the registry already.
    if (registry.remove(tab.tabId) !== tab) return; // also delivers events the fence held
    this.parts.rest.forget(tab);
    log.info(`tab ${tab.tabId} detached (${reason})`);
    this.parts.onTabChange?.({ targetId: tab.targetId, url: tab.info.url, state: 'detached', reason });
    table.dropTab(tab);
    this.parts.tabGone?.(tab.targetId);
    this.#tellDiscoverers(tab, 'Target.targetDestroyed');
    link.gone(tab);
  }

  #add(announced: AnnouncedTab): { record: TabRecord; added: boolean } {
    const { registry, table, log } = this.parts;
    const known = registry.byTabId(announced.tabId);
    if (known && known.targetId !== announced.targetInfo.targetId) this.remove(known, 'replaced by another page');
    const result = registry.add(
      announced,
      () =>
        new EventFence(this.parts.eventFenceMs, undefined, undefined, (error) =>
          log.warn(`tab ${announced.tabId}: delivering an event failed: ${String(error)}`),
        ),
    );
    if (!result.added && announced.reattached) {
      // The same tab on a fresh debugger session: its clients carry on under the same session id.
      result.record.parked = undefined;
      result.record.info = announced.targetInfo;
      log.info(`tab ${announced.tabId} attached again: ${announced.targetInfo.url}`);
      this.#tellDiscoverers(result.record, 'Target.targetInfoChanged');
      // After the current frame's handling: a hello's welcome goes out before the replay's commands.
      const record = result.record;
      this.parts.rest.forget(record);
      queueMicrotask(() => void this.parts.replay.resync(record));
    }
    if (result.added) {
      table.addTab(result.record);
      log.info(`tab ${announced.tabId} attached: ${announced.targetInfo.url}`);
      this.parts.onTabChange?.({ targetId: result.record.targetId, url: result.record.info.url, state: 'attached' });
      this.#tellDiscoverers(result.record, 'Target.targetCreated');
      for (const client of table.clients()) this.parts.browserTarget.autoAttachTab(client, result.record);
    }
    this.parts.rest.schedule(result.record);
    return result;
  }

  /** Target.targetCreated / targetInfoChanged / targetDestroyed for the tab and page targets. */
  #tellDiscoverers(tab: TabRecord, method: TargetEvent): void {
    for (const client of this.parts.table.clients()) {
      const filter = this.parts.table.root(client).discover;
      if (!filter) continue;
      for (const [type, info] of [
        ['tab', tabTargetInfo(tab)],
        ['page', pageTargetInfo(tab)],
      ] as const) {
        if (!matchesFilter(type, filter)) continue;
        if (method === 'Target.targetDestroyed') say(client, '', method, { targetId: info.targetId });
        else say(client, '', method, { targetInfo: info });
      }
    }
  }
}
