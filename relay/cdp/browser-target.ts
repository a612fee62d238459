// The browser-level CDP the relay answers itself. chrome.debugger refuses Browser.* and most of
// Target.* (measured), so the relay plays the browser: versions, target discovery, auto-attach,
// attach/detach (through the session table), creating, closing and activating tabs. Also the
// synthetic `tab` target session that Puppeteer attaches to before it reaches the page.

import type { BrowserInfo } from '../../shared/protocol';
import { ClawdError } from '../errors';
import { paramsOf } from './cdp-types';
import { say } from './client-events';
import type { CdpCommand, ClientSession } from './client-session';
import type { ClientRoot, SessionTable, TabTargetBinding } from './session-table';
import {
  DEFAULT_FILTER,
  allTargetInfos,
  browserTargetInfo,
  filterParam,
  matchesFilter,
  pageTargetInfo,
  tabTargetInfo,
} from './target-info';
import type { TabRecord } from './target-registry';
import type { DownloadRelay } from './download-relay';
import { cookiesToSet, visibleCookieResult } from './cookie-rules';
import type { RelayPolicy } from './relay-policy';
import type { ClientGate } from './client-gate';
import { openPersonsTab } from './client-opens';

/** The tabs, and what the extension does for them: what Browser.* and Target.* need besides the session table. */
export interface BrowserHub {
  readonly browserTargetId: string;
  browserInfo(): BrowserInfo | undefined;
  tabs(): TabRecord[];
  /** By page target id or tab target id. */
  findTab(targetId: string): TabRecord | undefined;
  /** `session`: the agent session whose clawd tab group it joins ('' for the plain `clawd` group). */
  createTab(url: string, active: boolean, session: string): Promise<TabRecord>;
  closeTab(tab: TabRecord): Promise<void>;
  /** A command of the relay's own on an attached tab's page. */
  tabCommand(tab: TabRecord, method: string, params: Record<string, unknown>): Promise<unknown>;
  /** The gate raw clients pass (the person's asks), once the person's say is wired. */
  readonly gate: ClientGate | undefined;
  activateTab(tab: TabRecord): Promise<void>;
  /** A command for the person's whole browser that any attached tab's session answers (cookies). */
  onAnyTab(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** Grants permissions to origins in the person's browser until the last tab is released (the extension's content settings). */
  grantPermissions(origins: string[], permissions: string[]): Promise<void>;
  resetPermissions(): Promise<void>;
  readonly downloads: DownloadRelay;
  /** The person's origin policy: the cookies it hides are never shown, nor set. */
  readonly policy: RelayPolicy;
  /** clawd's pop-up hold asks for new targets paused: the person's new tabs are held (held-tabs.ts). */
  holdNewTabs?(client: ClientSession): Promise<void>;
}

const notConnected = () =>
  new ClawdError(
    'extension_not_connected',
    'No browser has connected to the clawd relay yet: load the clawd extension, set its relay port and token in its options, and click its toolbar button on a tab',
  );

/** What the browser session answers, by domain: named in the refusal of anything else. */
const BROWSER_SESSION_METHODS: Record<string, string[]> = {
  Browser: [
    'getVersion',
    'setDownloadBehavior',
    'cancelDownload',
    'grantPermissions',
    'setPermission',
    'resetPermissions',
    'close',
  ],
  Storage: ['getCookies', 'setCookies', 'clearCookies'],
  Target: [
    'setDiscoverTargets',
    'setAutoAttach',
    'getTargets',
    'getTargetInfo',
    'attachToTarget',
    'attachToBrowserTarget',
    'detachFromTarget',
    'createTarget',
    'closeTarget',
    'activateTarget',
    'getBrowserContexts',
  ],
};

/** Says which domain the method is in and what the browser session does answer there. */
function browserSessionRefusal(method: string): string {
  const domain = method.split('.')[0] ?? method;
  const known = BROWSER_SESSION_METHODS[domain];
  if (known)
    return `'${method}' wasn't found: of the ${domain} domain the clawd relay's browser session answers ${known.join(', ')} (it plays the browser for the person's attached tabs)`;
  return `'${method}' wasn't found on the browser session: the clawd relay answers Browser and Target methods there; send ${domain} commands on a page session`;
}

export class BrowserTarget {
  constructor(
    private readonly hub: BrowserHub,
    private readonly table: SessionTable,
  ) {}

  /**
   * A command on the client's root or on a session from Target.attachToBrowserTarget. The parts
   * below are synchronous, returning the hub's own promise where there is one, so the awaits stay
   * here, as many as ever: an answer keeps its place among events only while no hop is added
   * (DEVELOPERS.md, "Answers must then settle synchronously").
   */
  async browserCommand(client: ClientSession, cmd: CdpCommand): Promise<unknown> {
    const { hub, table } = this;
    // First, for every command: a client the table no longer holds is refused (session_not_found).
    const root = table.root(client);
    switch (cmd.method) {
      case 'Browser.getVersion':
        return this.#version();
      case 'Browser.setDownloadBehavior':
        // The person's browser keeps its download settings; the client gets its downloads copied (download-relay.ts).
        hub.downloads.setBehavior(client, paramsOf(cmd, 'Browser.setDownloadBehavior'));
        return {};
      case 'Browser.cancelDownload':
        // The person's Chrome cancels it (or removes its file): a download the person refused leaves none.
        return hub.downloads.cancel(client, paramsOf(cmd, 'Browser.cancelDownload').guid);
      case 'Browser.grantPermissions':
        await this.#grantPermissions(cmd);
        return {};
      case 'Browser.setPermission':
        await this.#setPermission(cmd);
        return {};
      case 'Browser.resetPermissions':
        await hub.resetPermissions();
        return {};
      case 'Browser.close':
        // Closes this client's connection (once this answer has gone out), never the user's browser.
        setImmediate(() => client.close(1000, 'Browser.close'));
        return {};
      case 'Target.setDiscoverTargets':
        return this.#setDiscoverTargets(client, root, cmd);
      case 'Target.setAutoAttach': {
        const result = this.#setAutoAttach(client, cmd);
        // Answered once the person's new tabs are held: a pop-up opened right after is held too.
        if (client.holdsPopups && this.table.root(client).pauses) await this.hub.holdNewTabs?.(client);
        return result;
      }
      case 'Target.getTargets': {
        const p = paramsOf(cmd, 'Target.getTargets');
        const filter = filterParam(p.filter) ?? root.discover ?? DEFAULT_FILTER;
        const infos = [...allTargetInfos(hub.browserTargetId, hub.tabs()), ...table.rootChildren()];
        return { targetInfos: infos.filter((t) => matchesFilter(t.type, filter)) };
      }
      case 'Target.getTargetInfo':
        return this.#targetInfo(cmd);
      case 'Target.attachToTarget':
        return this.#attachToTarget(client, cmd);
      case 'Target.attachToBrowserTarget':
        return { sessionId: table.attachBrowser(client) };
      case 'Target.detachFromTarget':
        return this.#detach(client, cmd);
      case 'Target.createTarget':
        return { targetId: (await this.#createTab(client, cmd)).targetId };
      case 'Target.closeTarget':
        await hub.closeTab(this.#tab(paramsOf(cmd, 'Target.closeTarget').targetId));
        return { success: true };
      case 'Target.activateTarget':
        await hub.activateTab(this.#tab(paramsOf(cmd, 'Target.activateTarget').targetId));
        return {};
      case 'Target.getBrowserContexts':
        return { browserContextIds: [] };
      case 'Storage.getCookies':
      case 'Storage.setCookies':
      case 'Storage.clearCookies': {
        const params = this.#cookieParams(cmd);
        const result = await hub.onAnyTab(cmd.method, params);
        return cmd.method === 'Storage.getCookies' ? visibleCookieResult(hub.policy, result) : result;
      }
      case 'Target.createBrowserContext':
      case 'Target.disposeBrowserContext':
        throw new ClawdError(
          'unsupported',
          `${cmd.method} is not available through the clawd relay: it drives tabs of the user's own browser. Use a managed clawd profile for isolated contexts`,
        );
      default:
        throw new ClawdError('method_not_found', browserSessionRefusal(cmd.method));
    }
  }

  /** A command on a synthetic tab target session. */
  async tabCommand(client: ClientSession, binding: TabTargetBinding, cmd: CdpCommand): Promise<unknown> {
    switch (cmd.method) {
      case 'Target.setAutoAttach': {
        binding.autoAttach = paramsOf(cmd, 'Target.setAutoAttach').autoAttach === true;
        if (binding.autoAttach && !this.table.hasPageUnder(client, cmd.sessionId))
          this.table.attachPage(client, binding.tab, cmd.sessionId);
        return {};
      }
      case 'Runtime.runIfWaitingForDebugger':
        return {};
      case 'Target.detachFromTarget':
        return this.#detach(client, cmd);
      case 'Target.getTargetInfo':
        return { targetInfo: tabTargetInfo(binding.tab) };
      default:
        throw new ClawdError('method_not_found', `'${cmd.method}' wasn't found on a tab target session`);
    }
  }

  #version(): unknown {
    const info = this.hub.browserInfo();
    if (!info) throw notConnected();
    return {
      protocolVersion: info.protocolVersion,
      product: info.product,
      revision: '',
      userAgent: info.userAgent,
      jsVersion: '',
    };
  }

  #grantPermissions(cmd: CdpCommand): Promise<void> {
    const p = paramsOf(cmd, 'Browser.grantPermissions');
    // Without an origin: the attached tabs' own (pages they could load), never every site.
    if (p.origin) this.hub.policy.checkTouch(cmd.method, cmd.params);
    return this.hub.grantPermissions(p.origin ? [p.origin] : this.#attachedOrigins(), p.permissions ?? []);
  }

  #setPermission(cmd: CdpCommand): Promise<void> {
    const p = paramsOf(cmd, 'Browser.setPermission');
    if (p.setting !== 'granted')
      throw new ClawdError(
        'unsupported',
        `Browser.setPermission ${String(p.setting)}: through the clawd relay a permission can be granted, and taken back with Browser.resetPermissions; the person's own choices are theirs`,
      );
    if (p.origin) this.hub.policy.checkTouch(cmd.method, cmd.params);
    return this.hub.grantPermissions(p.origin ? [p.origin] : this.#attachedOrigins(), [
      String(p.permission?.name ?? ''),
    ]);
  }

  #setDiscoverTargets(client: ClientSession, root: ClientRoot, cmd: CdpCommand): unknown {
    const p = paramsOf(cmd, 'Target.setDiscoverTargets');
    root.discover = p.discover ? (filterParam(p.filter) ?? DEFAULT_FILTER) : undefined;
    if (root.discover) {
      for (const info of [...allTargetInfos(this.hub.browserTargetId, this.hub.tabs()), ...this.table.rootChildren()]) {
        if (matchesFilter(info.type, root.discover))
          say(client, cmd.sessionId, 'Target.targetCreated', { targetInfo: info });
      }
    }
    return {};
  }

  #targetInfo(cmd: CdpCommand): unknown {
    const { targetId } = paramsOf(cmd, 'Target.getTargetInfo');
    if (targetId === undefined || targetId === this.hub.browserTargetId)
      return { targetInfo: browserTargetInfo(this.hub.browserTargetId) };
    const tab = this.#tab(targetId);
    return { targetInfo: targetId === tab.tabTargetId ? tabTargetInfo(tab) : pageTargetInfo(tab) };
  }

  #attachToTarget(client: ClientSession, cmd: CdpCommand): unknown {
    const p = paramsOf(cmd, 'Target.attachToTarget');
    if (p.flatten !== true)
      throw new ClawdError(
        'unsupported',
        'Target.attachToTarget: only flatten mode is supported through the clawd relay',
      );
    const tab = this.#tab(p.targetId);
    const sessionId =
      p.targetId === tab.tabTargetId
        ? this.table.attachTabTarget(client, tab, cmd.sessionId)
        : this.table.attachPage(client, tab, cmd.sessionId);
    return { sessionId };
  }

  #createTab(client: ClientSession, cmd: CdpCommand): Promise<TabRecord> {
    const p = paramsOf(cmd, 'Target.createTarget');
    const url = typeof p.url === 'string' && p.url !== '' ? p.url : 'about:blank';
    // A raw client is an agent session of its own: its tabs join a group named after it, in the
    // background whatever it asks (client-opens.ts).
    return openPersonsTab(this.hub, client, url, client.name);
  }

  /** Storage.*Cookies' params for a tab's session, once the policy let them through. */
  #cookieParams(cmd: CdpCommand): Record<string, unknown> {
    // Measured: chrome.debugger has no browser session, but a tab's session answers these for
    // the browser's whole cookie store (every site). The person's browser has one context.
    const { browserContextId: _context, ...params } = cmd.params;
    const setting = cookiesToSet(cmd.method, params);
    if (setting) this.hub.policy.checkCookies(setting, cmd.method);
    this.hub.policy.checkTouch(cmd.method, params);
    return params;
  }

  #setAutoAttach(client: ClientSession, cmd: CdpCommand): unknown {
    const p = paramsOf(cmd, 'Target.setAutoAttach');
    const root = this.table.root(client);
    if (!p.autoAttach) {
      root.autoAttach = undefined;
      return {};
    }
    if (p.flatten !== true)
      throw new ClawdError(
        'unsupported',
        'Target.setAutoAttach: only flatten mode is supported through the clawd relay',
      );
    root.autoAttach = filterParam(p.filter) ?? DEFAULT_FILTER;
    root.pauses = p.waitForDebuggerOnStart === true;
    for (const tab of this.hub.tabs()) this.autoAttachTab(client, tab);
    this.table.announceRootChildren(client);
    return {};
  }

  /** Announces a tab to a client that asked for root auto-attach, unless it already has it. */
  autoAttachTab(client: ClientSession, tab: TabRecord): void {
    const filter = this.table.root(client).autoAttach;
    if (!filter || this.table.holdsAtRoot(client, tab)) return;
    if (matchesFilter('page', filter)) this.table.attachPage(client, tab, '');
    else if (matchesFilter('tab', filter)) this.table.attachTabTarget(client, tab, '');
  }

  #detach(client: ClientSession, cmd: CdpCommand): unknown {
    const { sessionId, targetId } = paramsOf(cmd, 'Target.detachFromTarget');
    let target = typeof sessionId === 'string' ? sessionId : undefined;
    if (target === undefined && typeof targetId === 'string') target = this.table.sessionFor(client, targetId);
    if (!target || target === '' || !this.table.binding(client, target))
      throw new ClawdError('session_not_found', `No session with given id: ${String(sessionId ?? targetId)}`);
    this.table.detach(client, target);
    return {};
  }

  /** A grant without an origin is for the sites of the attached tabs (the person's browser has no other context). */
  #attachedOrigins(): string[] {
    const origins = this.hub.tabs().map((tab) => {
      try {
        return new URL(tab.info.url).origin;
      } catch {
        return 'null';
      }
    });
    return [...new Set(origins.filter((o) => o.startsWith('http')))];
  }

  #tab(targetId: unknown): TabRecord {
    const tab = typeof targetId === 'string' ? this.hub.findTab(targetId) : undefined;
    if (!tab) throw new ClawdError('target_not_found', `No target with given id found: ${String(targetId)}`);
    return tab;
  }
}
