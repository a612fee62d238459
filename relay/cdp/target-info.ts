// How the relay describes its targets to CDP clients: the browser, each tab's `tab` target (the
// Chrome 112+ shape Puppeteer attaches to) and its page, and Chrome's TargetFilter rules for
// which of them a discover or auto-attach request covers. Pure functions over the registry's
// records, shared by the browser target and the session table.

import type { Protocol } from 'devtools-protocol';
import { ClawdError } from '../errors';
import type { TabRecord } from './target-registry';

type TargetInfo = Protocol.Target.TargetInfo;

export interface TargetFilterEntry {
  type?: string;
  exclude?: boolean;
}

/** Chrome's default when a Target method gets no filter: everything but browser and tab targets. */
export const DEFAULT_FILTER: TargetFilterEntry[] = [
  { type: 'browser', exclude: true },
  { type: 'tab', exclude: true },
  {},
];

/** Chrome's TargetFilter: the first entry whose type matches decides; no match excludes. */
export function matchesFilter(type: string, filter: TargetFilterEntry[] = DEFAULT_FILTER): boolean {
  for (const entry of filter) {
    if (entry.type === undefined || entry.type === type) return !entry.exclude;
  }
  return false;
}

/** A `filter` parameter as a client sent it, checked. */
export function filterParam(value: unknown): TargetFilterEntry[] | undefined {
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
  return {
    targetId: tab.tabTargetId,
    type: 'tab',
    title,
    url,
    attached: true,
    canAccessOpener: false,
    browserContextId,
  };
}

export function browserTargetInfo(id: string): TargetInfo {
  return { targetId: id, type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };
}

/** Every target the relay exposes, in the order a real browser lists them. */
export function allTargetInfos(browserTargetId: string, tabs: Iterable<TabRecord>): TargetInfo[] {
  const infos = [browserTargetInfo(browserTargetId)];
  for (const tab of tabs) infos.push(tabTargetInfo(tab), pageTargetInfo(tab));
  return infos;
}
