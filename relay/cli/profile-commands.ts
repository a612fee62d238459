// The CLI's commands for profiles and their browsers, clients of the running server's control
// API: status, start, stop, profiles, create-profile, delete-profile, reset-profile, tabs,
// open, focus, close. Each prints a short human summary, or the API's JSON with --json.

import type { ProfileStatus } from '../profiles/profile-driver';
import type { Tab } from '../profiles/tabs';
import { noArguments, output, stringFlag, UsageError, type CliCommand, type CommandContext } from './cli-command';

function describeStatus(s: ProfileStatus): string[] {
  const state =
    s.driver === 'extension' ? (s.running ? `connected, ${s.attachedTabs} tab(s) attached` : 'extension not connected')
    : s.running ? `running${s.cdpReady ? ', CDP ready' : ', CDP not answering'}`
    : 'not running';
  const lines = [`${s.profile} (${s.driver}): ${state}`];
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
  lines.push(`  color      ${s.color}`);
  if (s.hint) lines.push(`  → ${s.hint}`);
  return lines;
}

function tabLines(tabs: Tab[]): string[] {
  if (tabs.length === 0) return ['no tabs'];
  return tabs.map((t) => `${t.targetId.slice(0, 8)}  ${t.title || '(untitled)'}  ${t.url}`);
}

/** The one positional argument a command needs. */
function one(command: string, args: string[], what: string): string {
  if (args.length !== 1 || args[0] === '') throw new UsageError(`${command} needs ${what}`);
  return args[0]!;
}

const profileCommand = (name: string, usage: string, summary: string, run: (args: string[], ctx: CommandContext) => Promise<void>, flags: CliCommand['flags'] = {}): CliCommand => ({
  name,
  group: 'profiles',
  usage,
  summary,
  flags,
  run: (args, _flags, ctx) => run(args, ctx),
});

const NAME_FLAG = { name: { type: 'string', value: 'NAME', help: 'the profile: lowercase letters, digits and dashes' } } as const;

export const PROFILE_COMMANDS: CliCommand[] = [
  profileCommand('status', 'status', "the profile's browser: running, CDP, pid, paths", async (args, ctx) => {
    noArguments(args);
    const status = await (await ctx.client()).call<ProfileStatus>('GET', '/', { profile: ctx.profile });
    output(ctx, status, () => describeStatus(status));
  }),
  profileCommand('start', 'start', "launch a managed profile's browser (or check a remote or extension one)", async (args, ctx) => {
    noArguments(args);
    const client = await ctx.client();
    const before = await client.call<ProfileStatus>('GET', '/', { profile: ctx.profile });
    if (!before.running || !before.cdpReady) {
      const what = before.browser ? ` (${before.browser})` : '';
      ctx.progress(before.driver === 'managed' ? `starting ${before.profile}${what} …` : `checking ${before.profile}${what} …`);
    }
    const started = performance.now();
    const status = await client.call<ProfileStatus>('POST', '/start', { profile: ctx.profile, timeoutMs: 60_000 });
    const took = ((performance.now() - started) / 1000).toFixed(1);
    output(ctx, status, () => [...(before.running ? [`${status.profile} was already running`] : [`${status.profile} started in ${took} s`]), ...describeStatus(status)]);
  }),
  profileCommand('stop', 'stop', "stop a managed profile's browser", async (args, ctx) => {
    noArguments(args);
    const result = await (await ctx.client()).call<{ stopped: boolean; status: ProfileStatus }>('POST', '/stop', { profile: ctx.profile, timeoutMs: 15_000 });
    const name = result.status.profile;
    output(ctx, result, () => [
      result.stopped ? `${name} stopped`
      : result.status.driver === 'managed' ? `${name} was not running`
      : `${name} is not clawd's to stop (${result.status.driver} profile)`,
    ]);
  }),
  profileCommand('profiles', 'profiles', 'all profiles', async (args, ctx) => {
    noArguments(args);
    const result = await (await ctx.client()).call<{ profiles: Array<ProfileStatus & { default: boolean }> }>('GET', '/profiles');
    output(ctx, result, () =>
      result.profiles.map((p) => `${p.default ? '*' : ' '} ${p.profile.padEnd(16)} ${p.driver.padEnd(9)} ${(p.running ? 'running' : 'stopped').padEnd(8)} ${p.cdpPort ?? p.cdpUrl}  ${p.color}`),
    );
  }),
  {
    name: 'create-profile',
    group: 'profiles',
    usage: 'create-profile --name NAME [--color #RRGGBB] [--cdp-url URL] [--driver managed|remote|extension]',
    summary: 'a new profile: managed (its own Chromium), remote (a CDP URL) or extension',
    flags: {
      ...NAME_FLAG,
      color: { type: 'string', value: '#RRGGBB', help: "the browser's colour (default: the next free one)" },
      'cdp-url': { type: 'string', value: 'URL', help: 'a remote profile: the CDP endpoint to attach to' },
      driver: { type: 'string', value: 'D', help: 'managed, remote or extension (default: remote with --cdp-url, else managed)' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const name = stringFlag(flags, 'name');
      if (name === undefined) throw new UsageError('create-profile needs --name NAME');
      const color = stringFlag(flags, 'color');
      const cdpUrl = stringFlag(flags, 'cdp-url');
      const driver = stringFlag(flags, 'driver');
      const body = { name, ...(color ? { color } : {}), ...(cdpUrl ? { cdpUrl } : {}), ...(driver ? { driver } : {}) };
      const status = await (await ctx.client()).call<ProfileStatus>('POST', '/profiles/create', { body });
      output(ctx, status, () => [`created ${status.profile}`, ...describeStatus(status)]);
    },
  },
  {
    name: 'delete-profile',
    group: 'profiles',
    usage: 'delete-profile --name NAME',
    summary: 'delete a profile and its browser data',
    flags: NAME_FLAG,
    async run(args, flags, ctx) {
      noArguments(args);
      const name = stringFlag(flags, 'name');
      if (name === undefined) throw new UsageError('delete-profile needs --name NAME');
      const result = await (await ctx.client()).call<{ deleted: string; removed: string | null }>('DELETE', `/profiles/${encodeURIComponent(name)}`);
      output(ctx, result, () => [`deleted ${result.deleted}${result.removed ? ` and removed ${result.removed}` : ''}`]);
    },
  },
  profileCommand('reset-profile', 'reset-profile', "stop this profile's stray browser processes (never other programs)", async (args, ctx) => {
    noArguments(args);
    const result = await (await ctx.client()).call<{ profile: string; stopped: number[]; portFree: boolean; note?: string }>('POST', '/reset-profile', { profile: ctx.profile });
    output(ctx, result, () => [
      result.stopped.length ? `${result.profile}: stopped ${result.stopped.length} browser process(es) (${result.stopped.join(', ')})` : `${result.profile}: no browser process of this profile was running`,
      ...(result.note ? [result.note] : []),
    ]);
  }),
  profileCommand('tabs', 'tabs', 'list tabs', async (args, ctx) => {
    noArguments(args);
    const result = await (await ctx.client()).call<{ profile: string; tabs: Tab[] }>('GET', '/tabs', { profile: ctx.profile });
    output(ctx, result, () => tabLines(result.tabs));
  }),
  profileCommand('open', 'open URL', 'open a tab', async (args, ctx) => {
    const url = one('open', args, 'a URL');
    const tab = await (await ctx.client()).call<Tab>('POST', '/tabs/open', { profile: ctx.profile, body: { url } });
    output(ctx, tab, () => [`opened ${tab.targetId.slice(0, 8)}  ${tab.url}`]);
  }),
  profileCommand('focus', 'focus ID', 'bring a tab to the front, by id or unique id prefix', async (args, ctx) => {
    const targetId = one('focus', args, 'a tab id (or a unique prefix)');
    const tab = await (await ctx.client()).call<Tab>('POST', '/tabs/focus', { profile: ctx.profile, body: { targetId } });
    output(ctx, tab, () => [`focused ${tab.targetId.slice(0, 8)}  ${tab.title}`]);
  }),
  profileCommand('close', 'close ID', 'close a tab, by id or unique id prefix', async (args, ctx) => {
    const id = one('close', args, 'a tab id (or a unique prefix)');
    const tab = await (await ctx.client()).call<Tab>('DELETE', `/tabs/${encodeURIComponent(id)}`, { profile: ctx.profile });
    output(ctx, tab, () => [`closed ${tab.targetId.slice(0, 8)}  ${tab.title}`]);
  }),
];
