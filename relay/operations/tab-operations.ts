// A profile's browser and its tabs: status, start, stop, the profiles, and listing, opening,
// focusing and closing tabs. The same on every driver (managed, extension, remote).

import { z } from 'zod';
import type { ProfileStatus } from '../profiles/profile-driver';
import type { Tab } from '../profiles/tabs';
import { openUrl } from './fields';
import { pageTitle } from './page-fence';
import { operation } from './operation';
import type { HolderView } from './control-operations';
import { tabFields, targetId } from './shared-fields';

/** A profile's status as a person reads it: a line on its state, then the facts. */
export function statusLines(s: ProfileStatus): string[] {
  const lines = [`${s.profile} (${s.driver}): ${s.state}`];
  const facts = [
    s.pid !== null ? `pid ${s.pid}` : undefined,
    s.cdpPort !== null ? `CDP port ${s.cdpPort}` : undefined,
    s.cdpUrl,
  ].filter(Boolean);
  lines.push(`  ${facts.join(' · ')}`);
  const browser = [
    s.browser ?? undefined,
    s.headless ? `headless${s.headlessReason ? ` (${s.headlessReason})` : ''}` : undefined,
    s.noSandbox ? `no sandbox${s.noSandboxReason ? ` (${s.noSandboxReason})` : ''}` : undefined,
    s.extension?.version ? `extension ${s.extension.version}` : undefined,
  ].filter(Boolean);
  if (browser.length) lines.push(`  ${browser.join(' · ')}`);
  if (s.executablePath) lines.push(`  executable ${s.executablePath}`);
  if (s.userDataDir) lines.push(`  user data  ${s.userDataDir}`);
  for (const detail of s.details ?? []) lines.push(`  ${detail}`);
  lines.push(`  color      ${s.color}`);
  if (s.hint) lines.push(`  → ${s.hint}`);
  return lines;
}

/** A tab id as lists show it: its first 8 characters, which every command takes as a unique prefix. */
const short = (id: string) => id.slice(0, 8);

const none = z.object({});

export const status = operation<ProfileStatus>()({
  name: 'status',
  summary: "the profile's browser: running or not, its driver, CDP address, pid, paths",
  input: none,
  http: { method: 'GET', path: '/' },
  cli: { group: 'profiles' },
  mcp: { tool: 'browser', as: 'status' },
  example: {},
  text: (s) => statusLines(s).join('\n'),
});

export type StartResult = ProfileStatus & { alreadyRunning: boolean; tookMs: number };

export const start = operation<StartResult>()({
  name: 'start',
  summary: "start the profile's browser (a managed profile launches its own Chromium; others are checked)",
  input: none,
  http: { method: 'POST', path: '/start' },
  cli: { group: 'profiles' },
  mcp: { tool: 'browser', as: 'start' },
  example: {},
  text: (s) =>
    [
      s.alreadyRunning
        ? `${s.profile} was already running`
        : `${s.profile} started in ${(s.tookMs / 1000).toFixed(1)} s`,
      ...statusLines(s),
    ].join('\n'),
  clientTimeoutMs: () => 60_000,
  progress: 'starting the browser …',
});

export const stop = operation<{ stopped: boolean; status: ProfileStatus }>()({
  name: 'stop',
  summary: "stop a managed profile's browser (never a person's own, nor a remote one)",
  input: none,
  http: { method: 'POST', path: '/stop' },
  cli: { group: 'profiles' },
  mcp: { tool: 'browser', as: 'stop' },
  example: {},
  text: ({ stopped, status: s }) =>
    stopped
      ? `${s.profile} stopped`
      : s.clawdStops
        ? `${s.profile} was not running`
        : `${s.profile} is not clawd's to stop (${s.driver} profile)`,
  clientTimeoutMs: () => 15_000,
});

export const profiles = operation<{ defaultProfile: string; profiles: Array<ProfileStatus & { default: boolean }> }>()({
  name: 'profiles',
  summary: 'all profiles: managed (clawd launches Chromium), extension (your own browser), remote',
  input: none,
  http: { method: 'GET', path: '/profiles' },
  cli: { group: 'profiles' },
  mcp: { tool: 'browser', as: 'profiles' },
  example: {},
  text: (r) =>
    r.profiles
      .map(
        (p) =>
          `${p.default ? '*' : ' '} ${p.profile.padEnd(16)} ${p.driver.padEnd(9)} ${(p.running ? 'running' : 'stopped').padEnd(8)} ${p.cdpPort ?? p.cdpUrl}  ${p.color}`,
      )
      .join('\n'),
});

export type ListedTab = Tab & { holder?: HolderView };

const tabLine = (t: ListedTab) =>
  `${short(t.targetId)}  ${t.title ? pageTitle(t.title) : '(untitled)'}  ${t.url}${t.holder ? `  [${t.holder.kind === 'agent' ? `held by ${t.holder.session}` : 'with the person'}]` : ''}`;

export const tabs = operation<{
  profile: string;
  tabs: ListedTab[];
  /** When no profile was named: tabs the person handed over in their own browser, by the profile that reaches them. */
  elsewhere?: Array<{ profile: string; tabs: Tab[] }>;
}>()({
  name: 'tabs',
  summary: "list the tabs, with who holds each (naming no profile: the person's handed-over tabs too)",
  details:
    "Without a profile named, the answer's `elsewhere` also lists the tabs the person handed over in their own browser (an extension profile, e.g. `chrome`): name that profile to use them.",
  input: none,
  http: { method: 'GET', path: '/tabs' },
  cli: { group: 'profiles' },
  mcp: { tool: 'tabs', as: 'list' },
  example: {},
  text: (r) =>
    [
      r.tabs.length === 0 ? `no tabs in profile ${r.profile}` : r.tabs.map(tabLine).join('\n'),
      ...(r.elsewhere ?? []).map(
        (e) =>
          `handed over by the person in profile ${e.profile} (name that profile to use them):\n${e.tabs.map((t) => `  ${tabLine(t)}`).join('\n')}`,
      ),
    ].join('\n'),
});

export const tabOpen = operation<Tab>()({
  name: 'tabOpen',
  summary: 'open a tab on a URL (http, https or about:blank)',
  details:
    "In a person's browser the tab joins the clawd tab group of its agent session (`clawd · <session>`), or `clawd` when the call names none.",
  input: z.object({ url: openUrl().describe('the address to open'), session: tabFields.session }),
  http: { method: 'POST', path: '/tabs/open' },
  logged: true,
  gate: { changes: false, opens: true, touches: (i) => ({ url: i.url }) },
  cli: { group: 'profiles', name: 'open', args: [{ field: 'url', value: 'URL' }] },
  mcp: { tool: 'tabs', as: 'open' },
  example: { url: 'https://example.com' },
  text: (t) => `opened ${short(t.targetId)}  ${t.url}`,
});

const namedTab = () => targetId().unwrap().describe('the tab: an id or a unique prefix of one');

export const tabFocus = operation<Tab>()({
  name: 'tabFocus',
  summary: 'bring a tab to the front',
  input: z.object({ targetId: namedTab() }),
  http: { method: 'POST', path: '/tabs/focus' },
  cli: { group: 'profiles', name: 'focus', args: [{ field: 'targetId', value: 'ID' }] },
  mcp: { tool: 'tabs', as: 'focus' },
  example: { targetId: '6A1F' },
  text: (t) => `focused ${short(t.targetId)}  ${pageTitle(t.title)}`,
});

export const tabClose = operation<Tab>()({
  name: 'tabClose',
  summary: 'close a tab (refused while another agent session or the person holds it)',
  input: z.object({ targetId: namedTab(), session: tabFields.session }),
  http: { method: 'DELETE', path: '/tabs/:targetId' },
  logged: true,
  gate: { changes: true, tabOnly: true },
  cli: { group: 'profiles', name: 'close', args: [{ field: 'targetId', value: 'ID' }] },
  mcp: { tool: 'tabs', as: 'close' },
  example: { targetId: '6A1F' },
  text: (t) => `closed ${short(t.targetId)}  ${pageTitle(t.title)}`,
});
