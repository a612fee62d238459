// The CLI's commands that manage profiles, clients of the running server's control API:
// create-profile, delete-profile, reset-profile. (A profile's status, start, stop and tabs are
// operations: operation-commands.ts.) Each prints a short summary, or the API's JSON with --json.

import { statusLines } from '../operations/tab-operations';
import type { ProfileStatus } from '../profiles/profile-driver';
import { noArguments, output, stringFlag, UsageError, type CliCommand, type CommandContext } from './cli-command';

const profileCommand = (
  name: string,
  usage: string,
  summary: string,
  run: (args: string[], ctx: CommandContext) => Promise<void>,
  flags: CliCommand['flags'] = {},
): CliCommand => ({
  name,
  group: 'profiles',
  usage,
  summary,
  flags,
  run: (args, _flags, ctx) => run(args, ctx),
});

const NAME_FLAG = {
  name: { type: 'string', value: 'NAME', help: 'the profile: lowercase letters, digits and dashes' },
} as const;

export const PROFILE_COMMANDS: CliCommand[] = [
  {
    name: 'create-profile',
    group: 'profiles',
    usage:
      'create-profile --name NAME [--color #RRGGBB] [--cdp-url URL | --grid-url URL [--capabilities JSON]] [--driver managed|remote|extension|grid]',
    summary: 'a new profile: managed (its own Chromium), remote (a CDP URL), grid (a Selenium Grid) or extension',
    flags: {
      ...NAME_FLAG,
      color: { type: 'string', value: '#RRGGBB', help: "the browser's colour (default: the next free one)" },
      'cdp-url': { type: 'string', value: 'URL', help: 'a remote profile: the CDP endpoint to attach to' },
      'grid-url': {
        type: 'string',
        value: 'URL',
        help: 'a grid profile: the Selenium Grid 4 that gives a browser per agent session (http://user:pass@grid:4444)',
      },
      capabilities: {
        type: 'string',
        value: 'JSON',
        help: 'a grid profile: the W3C capabilities of its browsers (default headless Chrome)',
      },
      driver: {
        type: 'string',
        value: 'D',
        help: 'managed, remote, grid or extension (default: remote with --cdp-url, grid with --grid-url, else managed)',
      },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const name = stringFlag(flags, 'name');
      if (name === undefined) throw new UsageError('create-profile needs --name NAME');
      const color = stringFlag(flags, 'color');
      const cdpUrl = stringFlag(flags, 'cdp-url');
      const gridUrl = stringFlag(flags, 'grid-url');
      const capabilities = stringFlag(flags, 'capabilities');
      const driver = stringFlag(flags, 'driver') ?? (gridUrl ? 'grid' : undefined);
      const body = {
        name,
        ...(color ? { color } : {}),
        ...(cdpUrl ? { cdpUrl } : {}),
        ...(gridUrl ? { gridUrl } : {}),
        ...(capabilities ? { capabilities } : {}),
        ...(driver ? { driver } : {}),
      };
      const status = await (await ctx.personClient()).call<ProfileStatus>('POST', '/profiles/create', { body });
      output(ctx, status, () => [`created ${status.profile}`, ...statusLines(status)]);
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
      const result = await (
        await ctx.personClient()
      ).call<{ deleted: string; removed: string | null }>('DELETE', `/profiles/${encodeURIComponent(name)}`);
      output(ctx, result, () => [`deleted ${result.deleted}${result.removed ? ` and removed ${result.removed}` : ''}`]);
    },
  },
  profileCommand(
    'reset-profile',
    'reset-profile',
    "stop this profile's stray browser processes (never other programs)",
    async (args, ctx) => {
      noArguments(args);
      const result = await (
        await ctx.personClient()
      ).call<{ profile: string; stopped: number[]; portFree: boolean; note?: string }>('POST', '/reset-profile', {
        profile: ctx.profile,
      });
      output(ctx, result, () => [
        result.stopped.length
          ? `${result.profile}: stopped ${result.stopped.length} browser process(es) (${result.stopped.join(', ')})`
          : `${result.profile}: no browser process of this profile was running`,
        ...(result.note ? [result.note] : []),
      ]);
    },
  ),
];
