// The CLI's commands that manage profiles, clients of the running server's control API:
// create-profile, delete-profile, reset-profile. (A profile's status, start, stop and tabs are
// operations: operation-commands.ts.) Each prints a short summary, or the API's JSON with --json.

import { statusLines } from '../operations/tab-operations';
import type { KindFlag } from '../profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../profiles/kinds';
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

/** The kinds clawd itself knows: their names, and their own create-profile flags (by flag name). */
const KIND_NAMES = BUILT_IN_KINDS.map((kind) => kind.kind);
const KIND_FLAGS: Record<string, KindFlag> = Object.assign({}, ...BUILT_IN_KINDS.map((kind) => kind.flags ?? {}));

/** `[--cdp-url URL | --grid-url URL [--capabilities JSON]]`: each kind's flags, one kind's or another's. */
function kindFlagsUsage(): string {
  const perKind = BUILT_IN_KINDS.filter((kind) => kind.flags).map((kind) =>
    Object.entries(kind.flags!)
      .map(([flag, { value }], i) => (i === 0 ? `--${flag} ${value}` : `[--${flag} ${value}]`))
      .join(' '),
  );
  return `[${perKind.join(' | ')}]`;
}

/** `remote with --cdp-url, grid with --grid-url`: which flag makes which kind when --driver is not given. */
function chosenByHelp(): string {
  return BUILT_IN_KINDS.flatMap((kind) => {
    const flag = Object.entries(kind.flags ?? {}).find(([, { input }]) => input === kind.chosenBy)?.[0];
    return flag ? [`${kind.kind} with --${flag}`] : [];
  }).join(', ');
}

const NAME_FLAG = {
  name: { type: 'string', value: 'NAME', help: 'the profile: lowercase letters, digits and dashes' },
} as const;

export const PROFILE_COMMANDS: CliCommand[] = [
  {
    name: 'create-profile',
    group: 'profiles',
    usage: `create-profile --name NAME [--color #RRGGBB] ${kindFlagsUsage()} [--driver ${KIND_NAMES.join('|')}]`,
    summary:
      'a new profile: managed (its own Chromium), remote (a CDP URL), grid (a Selenium Grid), pool (a fresh browser per agent session) or extension',
    flags: {
      ...NAME_FLAG,
      color: { type: 'string', value: '#RRGGBB', help: "the browser's colour (default: the next free one)" },
      // Each kind's own fields (kinds.ts): a kind's module says which flags it takes.
      ...Object.fromEntries(
        Object.entries(KIND_FLAGS).map(([flag, { value, help }]) => [flag, { type: 'string' as const, value, help }]),
      ),
      driver: {
        type: 'string',
        value: 'D',
        help: `${KIND_NAMES.join(', ')} (default: ${chosenByHelp()}, else ${KIND_NAMES[0]})`,
      },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const name = stringFlag(flags, 'name');
      if (name === undefined) throw new UsageError('create-profile needs --name NAME');
      const color = stringFlag(flags, 'color');
      const driver = stringFlag(flags, 'driver');
      const own = Object.entries(KIND_FLAGS).flatMap(([flag, { input }]) => {
        const value = stringFlag(flags, flag);
        return value === undefined ? [] : [[input, value] as const];
      });
      const body = {
        name,
        ...(color ? { color } : {}),
        ...Object.fromEntries(own),
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
