// The one table of `clawd` commands, and what is derived from it: the overview help, each
// command's help, and the parse of a command line — every command accepts its own flags and
// its group's common ones, and an unknown flag is an error naming the flags it does take. The
// commands of agent operations come from the operation table (operation-commands.ts).

import { parseArgs } from 'node:util';
import { PRODUCT_NAME } from '../../shared/defaults';
import { VERSION } from '../version';
import { AGENT_COMMANDS } from './agent-commands';
import { INSTALL_COMMANDS } from './install-commands';
import { OPERATION_COMMANDS } from './operation-commands';
import { UsageError, type CliCommand, type CommandGroup, type FlagValues, type Flags } from './cli-command';
import { PROFILE_COMMANDS } from './profile-commands';
import { SECRET_COMMANDS } from './secret-commands';
import { SERVER_COMMANDS } from './server-commands';

export const COMMANDS: readonly CliCommand[] = [
  ...SERVER_COMMANDS,
  ...INSTALL_COMMANDS,
  ...OPERATION_COMMANDS.filter((c) => c.group === 'profiles'),
  ...PROFILE_COMMANDS,
  ...SECRET_COMMANDS,
  ...OPERATION_COMMANDS.filter((c) => c.group === 'agent'),
  ...AGENT_COMMANDS,
];

const EVERY: Flags = {
  home: { type: 'string', value: 'DIR', help: 'home folder (default: $CLAWD_HOME, else ~/.clawd)' },
  help: { type: 'boolean', short: 'h', help: 'this help' },
};
const OF_A_PROFILE: Flags = {
  profile: { type: 'string', value: 'NAME', help: "the profile to act on (default: the config's defaultProfile)" },
  json: { type: 'boolean', help: "print the API's JSON instead of a summary" },
};
const GROUP_FLAGS: Record<CommandGroup, Flags> = {
  server: EVERY,
  profiles: { ...OF_A_PROFILE, ...EVERY },
  // An operation's own flags (--target, --timeout, --session among them) come from its fields.
  agent: { ...OF_A_PROFILE, ...EVERY },
};
const VERSION_FLAG: Flags = { version: { type: 'boolean', short: 'v', help: 'the version' } };

const GROUP_TITLES: Record<CommandGroup, string> = {
  server: 'Server:',
  profiles: 'Profiles and their browsers (clients of the running server):',
  agent: 'Driving a tab (refs come from snapshot; --target ID picks the tab, --timeout MS bounds a call):',
};

function findCommand(name: string): CliCommand | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** Every flag a command accepts: its own, then its group's. */
function flagsOf(command: CliCommand): Flags {
  return { ...command.flags, ...GROUP_FLAGS[command.group] };
}

function flagName(name: string, spec: Flags[string]): string {
  return `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
}

function flagLines(flags: Flags): string[] {
  const names = Object.entries(flags).map(([name, spec]) => [flagName(name, spec), spec.help] as const);
  const width = Math.max(...names.map(([n]) => n.length)) + 2;
  return names.map(([name, help]) => `  ${name.padEnd(width)}${help}`);
}

/** The name and the arguments it needs, e.g. "type REF TEXT": the usage up to its first option. */
function usageHead(command: CliCommand): string {
  const words = command.usage.split(' ');
  const end = words.findIndex((w, i) => i > 0 && /^[[\-'|]/.test(w));
  return words.slice(0, end < 0 ? words.length : end).join(' ');
}

/** `clawd --help`: every command, by group. */
export function overviewHelp(): string {
  const lines = [
    `${PRODUCT_NAME} ${VERSION}: let AI agents drive a browser safely.`,
    '',
    'Usage: clawd <command> [options]      (clawd <command> --help for more)',
  ];
  const heads = new Map(COMMANDS.map((c) => [c, usageHead(c)]));
  const width = Math.max(...[...heads.values()].map((h) => h.length)) + 2;
  for (const group of Object.keys(GROUP_TITLES) as CommandGroup[]) {
    lines.push('', GROUP_TITLES[group]);
    for (const command of COMMANDS.filter((c) => c.group === group))
      lines.push(`  ${heads.get(command)!.padEnd(width)}${command.summary}`);
  }
  lines.push('', 'Options:', ...flagLines({ ...EVERY, ...VERSION_FLAG }), '');
  return lines.join('\n');
}

/** `clawd <command> --help`. */
export function commandHelp(command: CliCommand): string {
  return [
    `Usage: clawd ${command.usage}`,
    '',
    command.details ?? sentence(command.summary),
    '',
    'Options:',
    ...flagLines(flagsOf(command)),
    '',
  ].join('\n');
}

/** A summary as a sentence: capitalised, with a full stop unless it has one. */
function sentence(summary: string): string {
  const text = `${summary[0]!.toUpperCase()}${summary.slice(1)}`;
  return /[.…]$/.test(text) ? text : `${text}.`;
}

export type CommandLine =
  | { kind: 'version' }
  | { kind: 'overview'; exitCode: number }
  | { kind: 'help'; command: CliCommand }
  | { kind: 'run'; command: CliCommand; args: string[]; flags: FlagValues };

/** A usage error about one command: its help is the pointer. */
export class CommandUsageError extends UsageError {
  constructor(
    message: string,
    readonly command: CliCommand | undefined,
  ) {
    super(message);
  }
}

const toParseOptions = (flags: Flags) =>
  Object.fromEntries(
    Object.entries(flags).map(([name, { type, short }]) => [name, short ? { type, short } : { type }]),
  );

/** Reads a command line: which command, its arguments and its flags, checked against that command's flags. */
export function parseCommandLine(argv: string[]): CommandLine {
  // A first, lenient pass over every flag any command knows, only to find the command.
  const every: Flags = { ...VERSION_FLAG };
  for (const command of COMMANDS) Object.assign(every, flagsOf(command));
  const loose = parseArgs({ args: argv, options: toParseOptions(every), allowPositionals: true, strict: false });
  const name = loose.positionals[0];
  if (loose.values.version === true) return { kind: 'version' };
  if (name === undefined || name === 'help') {
    const about = name === 'help' && loose.positionals[1] !== undefined ? findCommand(loose.positionals[1]) : undefined;
    if (about) return { kind: 'help', command: about };
    return { kind: 'overview', exitCode: name === undefined && loose.values.help !== true ? 2 : 0 };
  }
  const named = findCommand(name);
  if (!named) throw new CommandUsageError(`unknown command ${JSON.stringify(name)}`, undefined);
  // `network n12` is `request n12`: with an argument the line is the other command's, flags and all.
  const command = named.withArgument && loose.positionals.length > 1 ? findCommand(named.withArgument)! : named;
  const own = flagsOf(command);
  let strict;
  try {
    strict = parseArgs({ args: argv, options: toParseOptions(own), allowPositionals: true, strict: true });
  } catch (error) {
    const unknown = (error as Error).message.match(/Unknown option '([^']+)'/)?.[1];
    const message = unknown
      ? `${command.name} does not take ${unknown}; it takes ${Object.keys(own)
          .map((flag) => `--${flag}`)
          .join(', ')}`
      : (error as Error).message.replace(/\.$/, '');
    throw new CommandUsageError(message, command);
  }
  if (strict.values.help === true) return { kind: 'help', command };
  return { kind: 'run', command, args: strict.positionals.slice(1), flags: strict.values as FlagValues };
}
