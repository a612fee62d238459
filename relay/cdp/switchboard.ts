// The relay's switchboard: wires the parts and keeps the flow one-way.
//   command: ClientSession → Switchboard (looks up the session in the SessionTable) → BrowserTarget
//            for Browser.*/Target.* on browser and tab-target sessions, or TabCommands → TabLink →
//            ExtensionLink for page and child sessions; the answer settles straight back.
//   event:   ExtensionLink → ExtensionPresence → extension-frames.ts → the tab's EventFence →
//            TabCommands.deliver → the client sessions that want it.
// The extension's frames are routed by extension-frames.ts (tab frames to the roster, the person's
// to their say); each client command goes from here through the raw clients' gate to its part:
// the one place each command is routed; the work itself is in those parts.
// Kept whole (under the 400-line cap): it is the one place the relay's parts are made and wired
// to each other; each method is a line of routing to the part that does the work.

import type { WebSocket } from 'ws';
import { CLOSE, type BrowserInfo, type HelloFrame, type TabSession } from '../../shared/protocol';
import type { AskNotice, ConsentState } from '../../shared/consent-state';
import { HeldCommands } from '../browser/held-commands';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { BrowserTarget, type BrowserHub } from './browser-target';
import { ClientSession, TOKEN_ROTATED_CLOSE, type CdpCommand } from './client-session';
import { DownloadRelay } from './download-relay';
import type { ExtensionLink, LinkSocket } from './extension-link';
import { ExtensionPresence, type PresenceOptions } from './extension-presence';
import { extensionFrames, type RelayConsent } from './extension-frames';
import { SessionTable, type Binding } from './session-table';
import { TabCommands } from './tab-commands';
import { TabLink } from './tab-link';
import { TabRoster, type TabChange } from './tab-roster';
import { SessionReplay } from './session-replay';
import { TabRest } from './tab-rest';
import { TargetRegistry, mintId, type TabRecord } from './target-registry';
import type { PolicyConfig } from '../../shared/origin-policy';
import { RelayPolicy } from './relay-policy';
import { HeldTabs } from './held-tabs';
import type { ClientGate } from './client-gate';

export type { TabChange } from './tab-roster';
export type { RelayConsent } from './extension-frames';

export interface SwitchboardOptions {
  relayVersion: string;
  log: Logger;
  /** Told of every attached and detached tab (the server's event stream). */
  onTabChange?: (change: TabChange) => void;
  /** The person gave a handed-over tab back with the toolbar button. */
  onHandBack?: (targetId: string) => void;
  /** A raw client's load was refused by the origin policy (the action log). */
  onPolicyRefusal?: (url: string, reason: string) => void;
  /** A client navigated a tab's page (Page.navigate): the action log records it. */
  onClientNavigate?: (targetId: string, url: string) => void;
  /** The person's say over their browser: their input, the side panel, the gate for raw clients. */
  consent?: RelayConsent;
  timeouts: PresenceOptions['timeouts'] & { eventFenceMs: number; notReadingCutMs: number };
  /** A handed-over tab unused this long is let go of by the debugger until the next command (0: never). */
  idleDetachMs: number;
  maxClientBufferedBytes: number;
}

export class Switchboard implements BrowserHub {
  readonly browserTargetId = mintId();
  readonly #log: Logger;
  readonly #registry = new TargetRegistry();
  readonly #presence: ExtensionPresence;
  readonly #table: SessionTable;
  readonly #link: TabLink;
  readonly #commands: TabCommands;
  readonly #browserTarget: BrowserTarget;
  readonly #roster: TabRoster;
  readonly #replay: SessionReplay;
  /** Pop-ups held before they load, for clawd's pop-up hold. */
  readonly #heldTabs: HeldTabs;
  /** Tabs at rest: unused, let go of by the debugger until the next command (tab-rest.ts). */
  readonly rest: TabRest;
  // A raw client's commands behind one that waits for the person, so they keep their order; removed once they went.
  readonly #held = new HeldCommands<ClientSession>();
  /** Clients' downloads from the person's tabs (download-relay.ts). */
  readonly downloads: DownloadRelay;
  /** The origin policy of the person's tabs: refused here for raw clients, enforced by Chrome through the extension. */
  readonly policy: RelayPolicy;

  constructor(private readonly options: SwitchboardOptions) {
    this.#log = options.log;
    const [presence, registry] = [() => this.#presence.ready, () => this.#registry.list()];
    this.#heldTabs = new HeldTabs(presence, registry, options.log);
    this.#presence = new ExtensionPresence(
      extensionFrames({
        registry: this.#registry,
        log: this.#log,
        options,
        hello: (frame) => this.#onHello(frame),
        commands: () => this.#commands,
        replay: () => this.#replay,
        link: () => this.#link,
        roster: () => this.#roster,
        downloads: () => this.downloads,
        heldTabs: this.#heldTabs,
      }),
      { relayVersion: options.relayVersion, log: options.log, timeouts: options.timeouts },
    );
    this.#link = new TabLink(this.#presence, this.#registry, this.#log);
    this.#table = new SessionTable(this.browserTargetId, {
      released: (sub, released) => this.#commands.cleanUp(sub, released),
      unused: (tab) => this.#roster.resetIfUnused(tab),
      rebound: (tab, child) => this.#replay.child(tab, child),
      unclaimed: (tab, childId) =>
        void this.#link.request(tab, childId, 'Runtime.runIfWaitingForDebugger').catch(() => {}),
      waits: (client, tab) => this.#heldTabs.waits(client, tab),
    });
    this.policy = new RelayPolicy((config) => this.#sendPolicy(config), options.onPolicyRefusal);
    this.#commands = new TabCommands(
      this.#table,
      this.#link,
      this.#log,
      this.policy,
      (sub, url) => {
        if (!sub.client.internal) options.onClientNavigate?.(sub.tab.targetId, url);
      },
      (client) => options.consent?.gate.asksBeforeCookies(client) ?? false,
      (client, tab) => this.#heldTabs.run(client, tab),
    );
    this.downloads = new DownloadRelay(
      () => this.#presence.ready,
      this.#log,
      (client, url) => options.consent?.gate.download(client, url),
    );
    this.#browserTarget = new BrowserTarget(this, this.#table);
    this.#replay = new SessionReplay(this.#table, this.#link, this.#log);
    this.rest = new TabRest(
      {
        presence: this.#presence,
        registry: this.#registry,
        table: this.#table,
        link: this.#link,
        replay: this.#replay,
        log: this.#log,
      },
      options.idleDetachMs,
    );
    this.#link.rest = this.rest;
    this.#roster = new TabRoster({
      registry: this.#registry,
      table: this.#table,
      link: this.#link,
      replay: this.#replay,
      rest: this.rest,
      browserTarget: this.#browserTarget,
      log: this.#log,
      eventFenceMs: options.timeouts.eventFenceMs,
      ...(options.onTabChange ? { onTabChange: options.onTabChange } : {}),
      tabGone: (targetId) => options.consent?.gate.tabGone(targetId),
    });
  }

  /** Tells the extension the rules Chrome must enforce on the attached tabs (at every hello, and when they change). */
  async #sendPolicy(config: PolicyConfig): Promise<void> {
    const link = this.#presence.ready;
    if (link)
      await link
        .request({ op: 'setPolicy', ...config }, 'setPolicy')
        .catch((error: Error) => this.#log.warn(`the extension did not take the origin policy: ${error.message}`));
    // The person's own rules hold the sites' workers through the tabs' sessions: none rests under them.
    void this.rest.policy(config);
  }

  get extensionConnected(): boolean {
    return this.#presence.ready !== undefined;
  }

  get extensionVersion(): string | undefined {
    return this.#presence.ready?.hello?.extensionVersion;
  }

  /** When the connected extension said hello: a worker's new connection is a new time. */
  get extensionConnectedAt(): number | undefined {
    return this.#presence.ready?.helloAt;
  }

  get clientCount(): number {
    return this.#table.clientCount;
  }

  browserInfo(): BrowserInfo | undefined {
    return this.#presence.browser;
  }

  tabs(): TabRecord[] {
    return this.#registry.list();
  }

  findTab(targetId: string): TabRecord | undefined {
    return this.#registry.byTargetId(targetId);
  }

  holdNewTabs(client: ClientSession): Promise<void> {
    return this.#heldTabs.hold(client);
  }

  // ---- the extension side ------------------------------------------------------------------

  /** A new `/extension` socket passed the guards; it must prove the extension key before it is the extension. */
  attachExtension(ws: LinkSocket, proof: { key: () => string; port: number; clientNonce: string }): ExtensionLink {
    return this.#presence.attach(ws, proof);
  }

  #onHello(frame: HelloFrame): TabSession[] {
    // After the welcome this answer makes: the extension (a fresh worker too) gets the rules to enforce.
    setImmediate(() => {
      void this.#sendPolicy(this.policy.config);
      this.#heldTabs.connected();
      this.options.consent?.connected?.();
    });
    return this.#roster.hello(frame);
  }

  // ---- BrowserHub: what the extension does for Target.* ------------------------------------

  /** The gate raw clients' commands pass (the person's asks), once the person's say is wired. */
  get gate(): ClientGate | undefined {
    return this.options.consent?.gate;
  }

  /** Opens a tab in the person's browser; it joins the clawd tab group of agent session `session` ('' for the plain `clawd` group). */
  async createTab(url: string, active: boolean, session: string): Promise<TabRecord> {
    this.policy.check(url, 'opening a tab');
    const link = await this.#presence.awaitLink('Target.createTarget');
    const { tab } = await link.request(
      { op: 'createTab', url, active, ...(session ? { session } : {}) },
      `Target.createTarget (${url})`,
    );
    return this.#roster.register(link, tab);
  }

  async closeTab(tab: TabRecord): Promise<void> {
    const link = await this.#presence.awaitLink('Target.closeTarget');
    await link.request({ op: 'closeTab', tabId: tab.tabId }, 'Target.closeTarget');
  }

  /** Shows the person, on the tab's toolbar badge, that the agent handed them the tab (or that it is back). */
  showHandoff(targetId: string, reason: string | undefined): void {
    const tab = this.#registry.byTargetId(targetId);
    const link = this.#presence.ready;
    if (!tab || !link) return;
    link
      .request({ op: 'showHandoff', tabId: tab.tabId, ...(reason !== undefined ? { reason } : {}) }, 'showHandoff')
      .catch((error: Error) => {
        this.#log.debug(`showHandoff on tab ${tab.tabId}: ${error.message}`);
      });
  }

  /** A command of the relay's own on an attached tab's page (a raw client's new tab loaded, client-opens.ts). */
  tabCommand(tab: TabRecord, method: string, params: Record<string, unknown>): Promise<unknown> {
    return this.#link.request(tab, undefined, method, params);
  }

  onAnyTab(method: string, params: Record<string, unknown>): Promise<unknown> {
    const tab = this.#registry.list().find((t) => t.parked === undefined);
    if (!tab)
      return Promise.reject(
        new ClawdError(
          'target_not_found',
          `${method}: no tab is attached to answer it; click the clawd toolbar button on a tab first`,
        ),
      );
    return this.tabCommand(tab, method, params);
  }

  async grantPermissions(origins: string[], permissions: string[]): Promise<void> {
    const link = await this.#presence.awaitLink('Browser.grantPermissions');
    await link.request({ op: 'grantPermissions', origins, permissions }, 'Browser.grantPermissions');
  }

  async resetPermissions(): Promise<void> {
    const link = await this.#presence.awaitLink('Browser.resetPermissions');
    await link.request({ op: 'resetPermissions' }, 'Browser.resetPermissions');
  }

  async activateTab(tab: TabRecord): Promise<void> {
    const link = await this.#presence.awaitLink('Target.activateTarget');
    await link.request({ op: 'activateTab', tabId: tab.tabId }, 'Target.activateTarget');
  }

  // ---- CDP clients --------------------------------------------------------------------------

  /** A new client passed the guards. `page` scopes it to one tab (`/devtools/page/<id>`). */
  addClient(ws: WebSocket, page?: TabRecord, internal = false, name?: string, holdsPopups = false): ClientSession {
    const client = new ClientSession(
      ws,
      {
        command: (c, cmd) => this.#onCommand(c, cmd),
        closed: (c) => {
          this.#table.dropClient(c);
          this.#heldTabs.dropped(c);
          this.downloads.forget(c);
          this.options.consent?.gate.forget(c);
          this.#log.debug(`client ${c.id} disconnected`);
        },
      },
      {
        maxBufferedBytes: this.options.maxClientBufferedBytes,
        notReadingCutMs: this.options.timeouts.notReadingCutMs,
        log: this.#log,
        internal,
        holdsPopups,
        ...(name ? { name } : {}),
      },
    );
    this.#table.addClient(client, page);
    this.#log.debug(`client ${client.id} connected${page ? ` to tab ${page.tabId}` : ''}`);
    return client;
  }

  /**
   * The server's token changed: raw CDP clients, which came in with the old one, are cut (clawd's
   * own agent layer is not: its per-process key let it in, and it presents the token afresh at
   * each connection). The extension does not use the token.
   */
  tokenRotated(): void {
    for (const client of [...this.#table.clients()])
      if (!client.internal) client.close(TOKEN_ROTATED_CLOSE.code, TOKEN_ROTATED_CLOSE.reason);
  }

  /** The extension key was replaced: the connected extension goes (it comes back with the new key). */
  extensionKeyRotated(): void {
    this.#presence.drop(
      CLOSE.keyRotated,
      "clawd's extension key was replaced: the native host or a new pairing (`clawd pair`) brings the new one",
    );
  }

  /** Opens the person's own live view (a link the person's side panel asked for) in a tab of theirs. */
  async openView(url: string): Promise<void> {
    await this.#presence.ready?.request({ op: 'openView', url }, 'opening the live view');
  }

  /** The questions waiting for the person, for their browser's notifications (always, when connected). */
  sendAsks(asks: AskNotice[]): void {
    this.#presence.ready?.send({ type: 'asks', asks });
  }

  /** The consent state for the side panel, sent to the extension (while a panel is open). */
  sendConsent(state: ConsentState): void {
    this.#presence.ready?.send({ type: 'consent', state });
  }

  #onCommand(client: ClientSession, cmd: CdpCommand): void {
    const binding = this.#table.binding(client, cmd.sessionId);
    const respond = (error: unknown, result?: unknown) =>
      error ? client.sendError(cmd.id, cmd.sessionId, error) : client.sendResult(cmd.id, cmd.sessionId, result);
    if (!binding)
      return respond(new ClawdError('session_not_found', `Session with given id not found: ${cmd.sessionId}`));
    // A raw client waits while the person's hands are on the tab, or for their answer when they
    // asked to be asked. Its later commands on the session wait behind it, in order; each is
    // looked up again once it may go (its session may have gone meanwhile).
    const gate = this.options.consent?.gate;
    this.#held.run(
      client,
      cmd.sessionId,
      () => gate?.before(client, binding.kind === 'browser' ? undefined : binding.tab, cmd.method, cmd.params),
      () => {
        const now = this.#table.binding(client, cmd.sessionId);
        if (!now)
          return respond(new ClawdError('session_not_found', `Session with given id not found: ${cmd.sessionId}`));
        this.#dispatch(client, now, cmd, respond);
      },
      respond,
    );
  }

  #dispatch(
    client: ClientSession,
    binding: Binding,
    cmd: CdpCommand,
    respond: (error: unknown, result?: unknown) => void,
  ): void {
    // A new tab asked for on a page's session is the browser's to open (client-opens.ts): sent to
    // chrome.debugger it would open one nobody attaches, watches or holds to the policy.
    if ((binding.kind === 'page' || binding.kind === 'child') && cmd.method !== 'Target.createTarget')
      return this.#commands.command(binding, cmd, respond);
    const work =
      binding.kind !== 'tab'
        ? this.#browserTarget.browserCommand(client, cmd)
        : this.#browserTarget.tabCommand(client, binding, cmd);
    work.then((result) => respond(undefined, result), respond);
  }

  /** Closes every socket and timer; pending waits fail with a clear error. */
  close(): void {
    this.#presence.close();
    for (const client of [...this.#table.clients()]) client.close(1001, 'relay shutting down');
    for (const tab of this.#registry.list()) this.#registry.remove(tab.tabId);
    this.#link.close();
    this.rest.close();
  }
}
