// The relay's switchboard. It owns the CDP clients and the registry of attached tabs; it sends
// each client command to the browser target (Browser.*, Target.*) or to the tab forwarder
// (everything on a page or child session), and each extension frame to the registry and the
// clients that should hear of it. Session ids are minted here, once per tab. Whether the
// extension is connected, and how long to wait for it, is ExtensionPresence's business.

import type { WebSocket } from 'ws';
import type { AnnouncedTab, BrowserInfo, HelloFrame, TabSession } from '../../shared/protocol';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { BrowserTarget, matchesFilter, pageTargetInfo, tabTargetInfo, type BrowserHub } from './browser-target';
import { ClientSession, type Binding, type CdpCommand } from './client-session';
import type { Subscription } from './debuggee-state';
import { EventFence } from './event-fence';
import type { ExtensionLink, LinkSocket } from './extension-link';
import { ExtensionPresence, type PresenceOptions } from './extension-presence';
import type { Settle } from './pending-calls';
import { TabForwarder, type TabChannel } from './tab-forwarder';
import { TargetRegistry, mintId, type TabRecord } from './target-registry';

export interface RouterOptions {
  relayVersion: string;
  log: Logger;
  timeouts: PresenceOptions['timeouts'] & { eventFenceMs: number };
  maxClientBufferedBytes: number;
}

export class Router implements BrowserHub, TabChannel {
  readonly registry = new TargetRegistry();
  readonly browserTargetId = mintId();
  readonly clients = new Set<ClientSession>();
  readonly log: Logger;
  readonly #presence: ExtensionPresence;
  readonly #browserTarget = new BrowserTarget(this);
  readonly #forwarder = new TabForwarder(this);

  constructor(private readonly options: RouterOptions) {
    this.log = options.log;
    this.#presence = new ExtensionPresence(
      {
        hello: (link, frame) => this.#onHello(frame),
        event: (_link, frame) => {
          const tab = this.registry.byTabId(frame.tabId);
          tab?.fence.push(() => this.#forwarder.deliver(tab, frame));
        },
        tabAttached: (link, frame) => void this.#registerTab(link, frame.tab),
        tabDetached: (_link, frame) => {
          const tab = this.registry.byTabId(frame.tabId);
          if (tab) this.#removeTab(tab, frame.reason);
        },
        tabUpdated: (_link, frame) => {
          const tab = this.registry.byTabId(frame.tabId);
          if (!tab) return;
          tab.info = { ...tab.info, url: frame.url ?? tab.info.url, title: frame.title ?? tab.info.title };
          this.#tellDiscoverers(tab, 'Target.targetInfoChanged');
        },
        gone: () => {
          for (const tab of this.registry.list()) this.#removeTab(tab, 'extension_gone');
        },
      },
      { relayVersion: options.relayVersion, log: options.log, timeouts: options.timeouts },
    );
  }

  get extensionConnected(): boolean {
    return this.#presence.ready !== undefined;
  }

  get extensionVersion(): string | undefined {
    return this.#presence.ready?.hello?.extensionVersion;
  }

  browserInfo(): BrowserInfo | undefined {
    return this.#presence.browser;
  }

  tabs(): TabRecord[] {
    return this.registry.list();
  }

  findTab(targetId: string): TabRecord | undefined {
    return this.registry.byTargetId(targetId);
  }

  // ---- the extension side ------------------------------------------------------------------

  /** A new `/extension` socket passed the guards. */
  attachExtension(ws: LinkSocket): ExtensionLink {
    return this.#presence.attach(ws);
  }

  #onHello(frame: HelloFrame): TabSession[] {
    const announced = new Set(frame.tabs.map((t) => t.tabId));
    for (const tab of this.registry.list()) if (!announced.has(tab.tabId)) this.#removeTab(tab, 'not_reannounced');
    return frame.tabs.map((t) => {
      const { record, added } = this.#addTab(t);
      // A tab this relay has never seen was attached under an earlier relay process: whatever
      // its old clients left on the debugger session goes, so newcomers start clean.
      if (added) queueMicrotask(() => this.#resetIfUnused(record));
      return { tabId: record.tabId, sessionId: record.sessionId };
    });
  }

  /**
   * When no client is left on a tab, its debugger session is replaced by a fresh one, so nothing
   * an agent set (emulation, init scripts, interception, a paused debugger) stays on the user's
   * page. Commands for the tab wait until the reset is done.
   */
  #resetIfUnused(tab: TabRecord): void {
    const link = this.#presence.ready;
    if (tab.page.subscribers.size > 0 || tab.reset || !link || this.registry.byTabId(tab.tabId) !== tab) return;
    tab.page.resetSession();
    tab.children.clear();
    tab.reset = link
      .request({ op: 'resetTab', tabId: tab.tabId }, `resetting tab ${tab.tabId}`)
      .then(() => undefined)
      .catch((error: Error) => this.log.debug(`reset of tab ${tab.tabId}: ${error.message}`))
      .finally(() => {
        tab.reset = undefined;
      });
  }

  #addTab(announced: AnnouncedTab): { record: TabRecord; added: boolean } {
    const result = this.registry.add(announced, () => new EventFence(this.options.timeouts.eventFenceMs));
    if (result.added) {
      this.log.info(`tab ${announced.tabId} attached: ${announced.targetInfo.url}`);
      this.#tellDiscoverers(result.record, 'Target.targetCreated');
      for (const client of this.clients) this.#browserTarget.autoAttachTab(client, result.record);
    }
    return result;
  }

  #registerTab(link: ExtensionLink, announced: AnnouncedTab): TabRecord {
    const { record } = this.#addTab(announced);
    link.send({ type: 'tabSession', tabId: record.tabId, sessionId: record.sessionId });
    return record;
  }

  /** Target.targetCreated / targetInfoChanged / targetDestroyed for the tab and page targets. */
  #tellDiscoverers(tab: TabRecord, method: 'Target.targetCreated' | 'Target.targetInfoChanged' | 'Target.targetDestroyed'): void {
    for (const client of this.clients) {
      if (!client.discover) continue;
      for (const [type, info] of [['tab', tabTargetInfo(tab)], ['page', pageTargetInfo(tab)]] as const) {
        if (!matchesFilter(type, client.discover)) continue;
        client.sendEvent('', method, method === 'Target.targetDestroyed' ? { targetId: info.targetId } : { targetInfo: info });
      }
    }
  }

  #removeTab(tab: TabRecord, reason: string): void {
    if (this.registry.remove(tab.tabId) !== tab) return; // also delivers events the fence held
    this.log.info(`tab ${tab.tabId} detached (${reason})`);
    for (const client of this.clients) {
      const rank = (b: Binding) => (b.kind === 'child' ? 0 : b.kind === 'page' ? 1 : 2);
      const doomed = [...client.bindings].filter(([, b]) => (b.kind === 'tab' ? b.tab : b.kind === 'browser' ? undefined : b.sub.tab) === tab);
      doomed.sort(([, a], [, b]) => rank(a) - rank(b));
      for (const [sessionId, binding] of doomed) {
        client.bindings.delete(sessionId);
        if (sessionId === '') continue;
        const targetId =
          binding.kind === 'child' ? (tab.children.get(sessionId)?.targetInfo.targetId ?? sessionId)
          : binding.kind === 'tab' ? tab.tabTargetId
          : tab.targetId;
        if (binding.parent === '' || client.bindings.has(binding.parent)) {
          client.sendEvent(binding.parent, 'Target.detachedFromTarget', { sessionId, targetId });
        }
      }
      // A page-scoped socket has lost its page: close it as Chrome does.
      if (!client.bindings.has('')) client.close(1001, 'target closed');
    }
    this.#tellDiscoverers(tab, 'Target.targetDestroyed');
  }

  // ---- TabChannel: commands to a tab ------------------------------------------------------

  forward(tab: TabRecord, childId: string | undefined, method: string, params: Record<string, unknown>, settle: Settle<unknown>): void {
    if (tab.reset) {
      void tab.reset.then(() => this.forward(tab, childId, method, params, settle));
      return;
    }
    const link = this.#presence.ready;
    if (link) return this.#forwardOn(link, tab, childId, method, params, settle);
    this.#presence.awaitLink(method).then(
      (l) => this.#forwardOn(l, tab, childId, method, params, settle),
      (error: Error) => settle(error),
    );
  }

  send(tab: TabRecord, childId: string | undefined, method: string, params: Record<string, unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => this.forward(tab, childId, method, params, (error, result) => (error ? reject(error) : resolve(result))));
  }

  #forwardOn(link: ExtensionLink, tab: TabRecord, childId: string | undefined, method: string, params: Record<string, unknown>, settle: Settle<unknown>): void {
    if (this.registry.byTabId(tab.tabId) !== tab) {
      settle(new ClawdError('target_closed', `${method} was not sent: tab ${tab.tabId} is no longer attached`));
      return;
    }
    const seq = tab.fence.begin();
    const op = childId === undefined ? { op: 'cdp' as const, tabId: tab.tabId, method, params } : { op: 'cdp' as const, tabId: tab.tabId, sessionId: childId, method, params };
    link.requestWith(op, method, (error, result) => {
      try {
        settle(error, result); // the response (and anything it replays) reaches the client first,
      } finally {
        tab.fence.end(seq); // then the events that overtook it.
      }
    });
  }

  // ---- BrowserHub: what Browser.* / Target.* need -----------------------------------------

  async createTab(url: string, active: boolean): Promise<TabRecord> {
    const link = await this.#presence.awaitLink('Target.createTarget');
    const { tab } = await link.request({ op: 'createTab', url, active }, `Target.createTarget (${url})`);
    return this.#registerTab(link, tab);
  }

  async closeTab(tab: TabRecord): Promise<void> {
    const link = await this.#presence.awaitLink('Target.closeTarget');
    await link.request({ op: 'closeTab', tabId: tab.tabId }, 'Target.closeTarget');
  }

  async activateTab(tab: TabRecord): Promise<void> {
    const link = await this.#presence.awaitLink('Target.activateTarget');
    await link.request({ op: 'activateTab', tabId: tab.tabId }, 'Target.activateTarget');
  }

  attachPage(client: ClientSession, tab: TabRecord, parent: string): string {
    // Every client gets the tab's own session id the first time; a second session on the same
    // page for the same client (e.g. newCDPSession) needs an id of its own.
    const sessionId = client.bindings.has(tab.sessionId) ? mintId() : tab.sessionId;
    const sub: Subscription = { client, sessionId, tab };
    tab.page.subscribers.add(sub);
    client.bindings.set(sessionId, { kind: 'page', sub, parent });
    client.sendEvent(parent, 'Target.attachedToTarget', { sessionId, targetInfo: pageTargetInfo(tab), waitingForDebugger: false });
    return sessionId;
  }

  attachTabTarget(client: ClientSession, tab: TabRecord, parent: string): string {
    const sessionId = mintId();
    client.bindings.set(sessionId, { kind: 'tab', tab, parent, autoAttach: false });
    client.sendEvent(parent, 'Target.attachedToTarget', { sessionId, targetInfo: tabTargetInfo(tab), waitingForDebugger: false });
    return sessionId;
  }

  attachBrowser(client: ClientSession): string {
    const sessionId = mintId();
    client.bindings.set(sessionId, { kind: 'browser', parent: '' });
    return sessionId;
  }

  detachSession(client: ClientSession, sessionId: string): void {
    const binding = client.bindings.get(sessionId);
    if (!binding || sessionId === '') return;
    let targetId = this.browserTargetId;
    if (binding.kind === 'page') {
      targetId = binding.sub.tab.targetId;
      this.#forwarder.dropPageSubscription(client, sessionId);
      this.#resetIfUnused(binding.sub.tab);
    } else if (binding.kind === 'child') {
      targetId = binding.sub.tab.children.get(sessionId)?.targetInfo.targetId ?? sessionId;
      this.#forwarder.dropChildSubscription(client, sessionId);
    } else if (binding.kind === 'tab') {
      targetId = binding.tab.tabTargetId;
      for (const [id, b] of [...client.bindings]) if (b.parent === sessionId) this.detachSession(client, id);
    }
    client.bindings.delete(sessionId);
    if (binding.parent === '' || client.bindings.has(binding.parent)) {
      client.sendEvent(binding.parent, 'Target.detachedFromTarget', { sessionId, targetId });
    }
  }

  closeClientSoon(client: ClientSession): void {
    setImmediate(() => client.close(1000, 'Browser.close'));
  }

  // ---- CDP clients --------------------------------------------------------------------------

  /** A new client passed the guards. `page` scopes it to one tab (`/devtools/page/<id>`). */
  addClient(ws: WebSocket, page?: TabRecord): ClientSession {
    const client = new ClientSession(ws, this.#clientHandlers, { maxBufferedBytes: this.options.maxClientBufferedBytes, log: this.log });
    if (page) {
      const sub: Subscription = { client, sessionId: '', tab: page };
      page.page.subscribers.add(sub);
      client.bindings.set('', { kind: 'page', sub, parent: '' });
    } else {
      client.bindings.set('', { kind: 'browser', parent: '' });
    }
    this.clients.add(client);
    this.log.debug(`client ${client.id} connected${page ? ` to tab ${page.tabId}` : ''}`);
    return client;
  }

  readonly #clientHandlers = {
    command: (client: ClientSession, cmd: CdpCommand) => this.#onCommand(client, cmd),
    closed: (client: ClientSession) => {
      this.clients.delete(client);
      for (const [sessionId, binding] of [...client.bindings]) {
        if (binding.kind !== 'page') continue;
        this.#forwarder.dropPageSubscription(client, sessionId);
        this.#resetIfUnused(binding.sub.tab);
      }
      client.bindings.clear();
      this.log.debug(`client ${client.id} disconnected`);
    },
  };

  #onCommand(client: ClientSession, cmd: CdpCommand): void {
    const binding = client.bindings.get(cmd.sessionId);
    const respond = (error: unknown, result?: unknown) =>
      error ? client.sendError(cmd.id, cmd.sessionId, error) : client.sendResult(cmd.id, cmd.sessionId, result);
    if (!binding) return respond(new ClawdError('session_not_found', `Session with given id not found: ${cmd.sessionId}`));
    if (binding.kind === 'page' || binding.kind === 'child') return this.#forwarder.command(client, binding, cmd, respond);
    const work = binding.kind === 'browser' ? this.#browserTarget.browserCommand(client, cmd) : this.#browserTarget.tabCommand(client, binding, cmd);
    work.then((result) => respond(undefined, result), respond);
  }

  /** Closes every socket and timer; pending waits fail with a clear error. */
  close(): void {
    this.#presence.close();
    for (const client of [...this.clients]) client.close(1001, 'relay shutting down');
    for (const tab of this.registry.list()) this.registry.remove(tab.tabId);
  }
}
