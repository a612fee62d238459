// What one `clawd` command is: its name, the line of usage and the summary the help shows, the
// flags it takes (each with its help), and what it runs. Every command is one entry of this
// shape in command-table.ts; the help, the per-command flag check and the dispatch all come from
// there, so a command cannot be listed in one place and forgotten in another.

import type { ControlClient } from '../operations/control-client';

export type FlagSpec = {
  type: 'string' | 'boolean';
  short?: string;
  /** What to write after a string flag in the help, e.g. "N" or "CSS". */
  value?: string;
  help: string;
};

export type Flags = Record<string, FlagSpec>;
export type FlagValues = Record<string, string | boolean | undefined>;

export type CommandGroup = 'server' | 'profiles' | 'agent';

export interface CommandContext {
  home: string;
  /** --profile, when the command takes it. */
  profile: string | undefined;
  /** --json: print the API's JSON instead of a summary. */
  json: boolean;
  /** The running server's control API (found through the home's serve.json), with the token. */
  client(): Promise<ControlClient>;
  /** The same, for the person's own commands: it also presents the person's key (keys.json). */
  personClient(): Promise<ControlClient>;
  /** Lines for the user (stdout). */
  print(line: string): void;
  /** Progress while waiting (stderr, so --json output stays clean). */
  progress(line: string): void;
}

export interface CliCommand {
  name: string;
  group: CommandGroup;
  /** The usage line without "clawd ", e.g. "snapshot [--format ai|role|aria] …". */
  usage: string;
  /** One line for the overview. */
  summary: string;
  /** More words for `clawd <command> --help`, when the summary is not enough. */
  details?: string;
  /** Given a positional argument, the command line is this other command's (`network ID` is `request ID`). */
  withArgument?: string;
  /** The command's own flags (the group's common flags are added by the table). */
  flags: Flags;
  /** Resolves with the exit code, or -1 when the command keeps running (serve). */
  run(args: string[], flags: FlagValues, ctx: CommandContext): Promise<number | void>;
}

/** Bad usage: exit code 2, with a pointer to the command's help. */
export class UsageError extends Error {}

/** Prints the API's JSON with --json, else the human summary. */
export function output(ctx: CommandContext, value: unknown, human: () => string[]): void {
  if (ctx.json) ctx.print(JSON.stringify(value, null, 2));
  else for (const line of human()) ctx.print(line);
}

/** The string value of a flag, if given. */
export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** Refuses positional arguments for a command that takes none. */
export function noArguments(args: string[]): void {
  if (args.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
}

/** A port flag's value: 0 to 65535 (0: a free one), else a usage error naming the flag. */
export function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`${flag} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}
