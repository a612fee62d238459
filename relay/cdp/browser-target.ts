// The browser-level CDP the relay answers itself. chrome.debugger refuses Browser.* and most of
// Target.* (measured), so the relay plays the browser: versions, target discovery, auto-attach,
// attach/detach, creating, closing and activating tabs. Also the synthetic `tab` target session
// that Puppeteer attaches to before it reaches the page (Chrome 112+ target shape).

import type { Protocol } from 'devtools-protocol';
import type { BrowserInfo } from '../../shared/protocol';
import { ClawdError } from '../errors';
import type { Binding, CdpCommand, ClientSession, TargetFilterEntry } from './client-session';
import type { TabRecord } from './target-registry';

type TargetInfo = Protocol.Target.TargetInfo;

export interface BrowserHub {
  readonly browserTargetId: string;
  browserInfo(): BrowserInfo | undefined;
  tabs(): TabRecord[];
  /** By page target id or tab target id. */
  findTab(targetId: string): TabRecord | undefined;
  createTab(url: string, active: boolean): Promise<TabRecord>;
  closeTab(tab: TabRecord): Promise<void>;
  activateTab(tab: TabRecord): Promise<void>;
  /** Attaches the client to the tab's page, announcing it on `parent`; returns the session id. */
  attachPage(client: ClientSession, tab: TabRecord, parent: string): string;
  attachTabTarget(client: ClientSession, tab: TabRecord, parent: string): string;
  attachBrowser(client: ClientSession): string;
  /** Detaches one of the client's sessions and announces it on the session's parent. */
  detachSession(client: ClientSession, sessionId: string): void;
  /** Closes the client's socket once the current response has gone out. */
  closeClientSoon(client: ClientSession): void;
}

/** Chrome's default when a Target method gets no filter: everything but browser and tab targets. */
export const DEFAULT_FILTER: TargetFilterEntry[] = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];

/** Chrome's TargetFilter: the first entry whose type matches decides; no match excludes. */
export function matchesFilter(type: string, filter: TargetFilterEntry[] = DEFAULT_FILTER): boolean {
  for (const entry of filter) {
    if (entry.type === undefined || entry.type === type) return !entry.exclude;
  }
  return false;
}

function filterParam(value: unknown): TargetFilterEntry[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((e) => typeof e === 'object' && e !== null)) {
    throw new ClawdError('invalid_params', 'filter must be a list of {type?, exclude?}');
  }
  return value as TargetFilterEntry[];
}

export function pageTargetInfo(tab: TabRecord): TargetInfo {
  return { ...tab.info, attached: true, canAccessOpener: tab.info.canAccessOpener ?? false };
}

export function tabTargetInfo(tab: TabRecord): TargetInfo {
  const { title, url, browserContextId } = tab.info;
  return { targetId: tab.tabTargetId, type: 'tab', title, url, attached: true, canAccessOpener: false, browserContextId };
}

export function browserTargetInfo(id: string): TargetInfo {
  return { targetId: id, type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };
}

/** Every target the relay exposes, in the order a real browser lists them. */
export function allTargetInfos(hub: Pick<BrowserHub, 'browserTargetId' | 'tabs'>): TargetInfo[] {
  const infos = [browserTargetInfo(hub.browserTargetId)];
  for (const tab of hub.tabs()) infos.push(tabTargetInfo(tab), pageTargetInfo(tab));
  return infos;
}

const notConnected = () =>
  new ClawdError(
    'extension_not_connected',
    'No browser has connected to the clawd relay yet: load the clawd extension, set its relay port and token in its options, and click its toolbar button on a tab',
  );

export class BrowserTarget {
  constructor(private readonly hub: BrowserHub) {}

  /** A command on the client's root or on a session from Target.attachToBrowserTarget. */
  async browserCommand(client: ClientSession, cmd: CdpCommand): Promise<unknown> {
    const { hub } = this;
    const p = cmd.params;
    switch (cmd.method) {
      case 'Browser.getVersion': {
        const info = hub.browserInfo();
        if (!info) throw notConnected();
        return { protocolVersion: info.protocolVersion, product: info.product, revision: '', userAgent: info.userAgent, jsVersion: '' };
      }
      case 'Browser.setDownloadBehavior':
        // Downloads stay the user's: their own browser keeps its own download settings.
        return {};
      case 'Browser.close':
        // Closes this client's connection, never the user's browser.
        hub.closeClientSoon(client);
        return {};
      case 'Target.setDiscoverTargets': {
        client.discover = p.discover ? (filterParam(p.filter) ?? DEFAULT_FILTER) : undefined;
        if (client.discover) {
          for (const info of allTargetInfos(hub)) {
            if (matchesFilter(info.type, client.discover)) client.sendEvent(cmd.sessionId, 'Target.targetCreated', { targetInfo: info });
          }
        }
        return {};
      }
      case 'Target.setAutoAttach':
        return this.#setAutoAttach(client, cmd);
      case 'Target.getTargets': {
        const filter = filterParam(p.filter) ?? client.discover ?? DEFAULT_FILTER;
        return { targetInfos: allTargetInfos(hub).filter((t) => matchesFilter(t.type, filter)) };
      }
      case 'Target.getTargetInfo': {
        const targetId = p.targetId;
        if (targetId === undefined || targetId === hub.browserTargetId) return { targetInfo: browserTargetInfo(hub.browserTargetId) };
        const tab = this.#tab(targetId);
        return { targetInfo: targetId === tab.tabTargetId ? tabTargetInfo(tab) : pageTargetInfo(tab) };
      }
      case 'Target.attachToTarget': {
        if (p.flatten !== true) throw new ClawdError('unsupported', 'Target.attachToTarget: only flatten mode is supported through the clawd relay');
        const tab = this.#tab(p.targetId);
        const sessionId = p.targetId === tab.tabTargetId ? hub.attachTabTarget(client, tab, cmd.sessionId) : hub.attachPage(client, tab, cmd.sessionId);
        return { sessionId };
      }
      case 'Target.attachToBrowserTarget':
        return { sessionId: hub.attachBrowser(client) };
      case 'Target.detachFromTarget':
        return this.#detach(client, cmd);
      case 'Target.createTarget': {
        const url = typeof p.url === 'string' && p.url !== '' ? p.url : 'about:blank';
        const tab = await hub.createTab(url, p.background !== true);
        return { targetId: tab.targetId };
      }
      case 'Target.closeTarget':
        await hub.closeTab(this.#tab(p.targetId));
        return { success: true };
      case 'Target.activateTarget':
        await hub.activateTab(this.#tab(p.targetId));
        return {};
      case 'Target.getBrowserContexts':
        return { browserContextIds: [] };
      case 'Target.createBrowserContext':
      case 'Target.disposeBrowserContext':
        throw new ClawdError(
          'unsupported',
          `${cmd.method} is not available through the clawd relay: it drives tabs of the user's own browser. Use a managed clawd profile for isolated contexts`,
        );
      default:
        throw new ClawdError(
          'method_not_found',
          `'${cmd.method}' wasn't found: the browser session of the clawd relay answers Browser.* and Target.* only; send page commands on a page session`,
        );
    }
  }

  /** A command on a synthetic tab target session. */
  async tabCommand(client: ClientSession, binding: Extract<Binding, { kind: 'tab' }>, cmd: CdpCommand): Promise<unknown> {
    switch (cmd.method) {
      case 'Target.setAutoAttach': {
        binding.autoAttach = cmd.params.autoAttach === true;
        const hasPage = [...client.bindings.values()].some((b) => b.kind === 'page' && b.parent === cmd.sessionId);
        if (binding.autoAttach && !hasPage) this.hub.attachPage(client, binding.tab, cmd.sessionId);
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

  #setAutoAttach(client: ClientSession, cmd: CdpCommand): unknown {
    const p = cmd.params;
    if (!p.autoAttach) {
      client.autoAttach = undefined;
      return {};
    }
    if (p.flatten !== true) throw new ClawdError('unsupported', 'Target.setAutoAttach: only flatten mode is supported through the clawd relay');
    client.autoAttach = filterParam(p.filter) ?? DEFAULT_FILTER;
    for (const tab of this.hub.tabs()) this.autoAttachTab(client, tab);
    return {};
  }

  /** Announces a tab to a client that asked for root auto-attach, unless it already has it. */
  autoAttachTab(client: ClientSession, tab: TabRecord): void {
    if (!client.autoAttach) return;
    const already = [...client.bindings.values()].some((b) => b.parent === '' && ((b.kind === 'tab' && b.tab === tab) || (b.kind === 'page' && b.sub.tab === tab)));
    if (already) return;
    if (matchesFilter('page', client.autoAttach)) this.hub.attachPage(client, tab, '');
    else if (matchesFilter('tab', client.autoAttach)) this.hub.attachTabTarget(client, tab, '');
  }

  #detach(client: ClientSession, cmd: CdpCommand): unknown {
    const { sessionId, targetId } = cmd.params;
    let target = typeof sessionId === 'string' ? sessionId : undefined;
    if (target === undefined && typeof targetId === 'string') {
      for (const [id, b] of client.bindings) {
        if ((b.kind === 'page' && b.sub.tab.targetId === targetId) || (b.kind === 'tab' && b.tab.tabTargetId === targetId)) target = id;
      }
    }
    if (!target || target === '' || !client.bindings.has(target)) throw new ClawdError('session_not_found', `No session with given id: ${String(sessionId ?? targetId)}`);
    this.hub.detachSession(client, target);
    return {};
  }

  #tab(targetId: unknown): TabRecord {
    const tab = typeof targetId === 'string' ? this.hub.findTab(targetId) : undefined;
    if (!tab) throw new ClawdError('target_not_found', `No target with given id found: ${String(targetId)}`);
    return tab;
  }
}
