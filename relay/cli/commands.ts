// The CLI's commands that talk to the control API: status, start, stop, profiles,
// create-profile, delete-profile, reset-profile, tabs, open, focus, close. Each prints a short
// human summary, or the API's JSON with --json.

import type { ProfileStatus } from '../profiles/profile-driver';
import type { Tab } from '../profiles/profile-service';
import type { ControlClient } from './control-client';

export interface CommandContext {
  client: ControlClient;
  profile: string | undefined;
  json: boolean;
  /** Lines for the user (stdout). */
  print(line: string): void;
  /** Progress while waiting (stderr, so --json output stays clean). */
  progress(line: string): void;
}

export class UsageError extends Error {}

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

export async function runCommand(command: string, args: string[], options: Record<string, string | boolean | undefined>, ctx: CommandContext): Promise<void> {
  const { client, profile } = ctx;
  const out = (value: unknown, human: () => string[]) => {
    if (ctx.json) ctx.print(JSON.stringify(value, null, 2));
    else for (const line of human()) ctx.print(line);
  };
  const one = (what: string) => {
    if (args.length !== 1 || args[0] === '') throw new UsageError(`${command} needs ${what}`);
    return args[0]!;
  };
  const none = () => {
    if (args.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
  };

  switch (command) {
    case 'status': {
      none();
      const status = await client.call<ProfileStatus>('GET', '/', { profile });
      return out(status, () => describeStatus(status));
    }
    case 'start': {
      none();
      const before = await client.call<ProfileStatus>('GET', '/', { profile });
      if (!before.running || !before.cdpReady) {
        const what = before.browser ? ` (${before.browser})` : '';
        ctx.progress(before.driver === 'managed' ? `starting ${before.profile}${what} …` : `checking ${before.profile}${what} …`);
      }
      const started = performance.now();
      const status = await client.call<ProfileStatus>('POST', '/start', { profile, timeoutMs: 60_000 });
      const took = ((performance.now() - started) / 1000).toFixed(1);
      return out(status, () => [...(before.running ? [`${status.profile} was already running`] : [`${status.profile} started in ${took} s`]), ...describeStatus(status)]);
    }
    case 'stop': {
      none();
      const result = await client.call<{ stopped: boolean; status: ProfileStatus }>('POST', '/stop', { profile, timeoutMs: 15_000 });
      const name = result.status.profile;
      return out(result, () => [
        result.stopped ? `${name} stopped`
        : result.status.driver === 'managed' ? `${name} was not running`
        : `${name} is not clawd's to stop (${result.status.driver} profile)`,
      ]);
    }
    case 'profiles': {
      none();
      const result = await client.call<{ profiles: Array<ProfileStatus & { default: boolean }> }>('GET', '/profiles');
      return out(result, () =>
        result.profiles.map((p) => `${p.default ? '*' : ' '} ${p.profile.padEnd(16)} ${p.driver.padEnd(9)} ${(p.running ? 'running' : 'stopped').padEnd(8)} ${p.cdpPort ?? p.cdpUrl}  ${p.color}`),
      );
    }
    case 'create-profile': {
      none();
      if (typeof options.name !== 'string') throw new UsageError('create-profile needs --name NAME');
      const body = { name: options.name, ...(options.color ? { color: options.color } : {}), ...(options['cdp-url'] ? { cdpUrl: options['cdp-url'] } : {}), ...(options.driver ? { driver: options.driver } : {}) };
      const status = await client.call<ProfileStatus>('POST', '/profiles/create', { body });
      return out(status, () => [`created ${status.profile}`, ...describeStatus(status)]);
    }
    case 'delete-profile': {
      none();
      if (typeof options.name !== 'string') throw new UsageError('delete-profile needs --name NAME');
      const result = await client.call<{ deleted: string; removed: string | null }>('DELETE', `/profiles/${encodeURIComponent(options.name)}`);
      return out(result, () => [`deleted ${result.deleted}${result.removed ? ` and removed ${result.removed}` : ''}`]);
    }
    case 'reset-profile': {
      none();
      const result = await client.call<{ profile: string; stopped: number[]; portFree: boolean; note?: string }>('POST', '/reset-profile', { profile });
      return out(result, () => [
        result.stopped.length ? `${result.profile}: stopped ${result.stopped.length} browser process(es) (${result.stopped.join(', ')})` : `${result.profile}: no browser process of this profile was running`,
        ...(result.note ? [result.note] : []),
      ]);
    }
    case 'tabs': {
      none();
      const result = await client.call<{ profile: string; tabs: Tab[] }>('GET', '/tabs', { profile });
      return out(result, () => tabLines(result.tabs));
    }
    case 'open': {
      const tab = await client.call<Tab>('POST', '/tabs/open', { profile, body: { url: one('a URL') } });
      return out(tab, () => [`opened ${tab.targetId.slice(0, 8)}  ${tab.url}`]);
    }
    case 'focus': {
      const tab = await client.call<Tab>('POST', '/tabs/focus', { profile, body: { targetId: one('a tab id (or a unique prefix)') } });
      return out(tab, () => [`focused ${tab.targetId.slice(0, 8)}  ${tab.title}`]);
    }
    case 'close': {
      const id = one('a tab id (or a unique prefix)');
      const tab = await client.call<Tab>('DELETE', `/tabs/${encodeURIComponent(id)}`, { profile });
      return out(tab, () => [`closed ${tab.targetId.slice(0, 8)}  ${tab.title}`]);
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}
