// The `clawd` command: reads the command line against the command table (command-table.ts) and
// runs the command. Every failure ends with a one-line reason on stderr (details indented below
// it) and a non-zero exit: 2 for bad usage, 1 for everything else.

import { PAGE_MARKS } from '../../shared/page-marks';
import { isClawdError } from '../errors';
import { resolveHome } from '../home/config-store';
import { VERSION } from '../version';
import { stringFlag, UsageError, type CommandContext } from './cli-command';
import { CommandUsageError, commandHelp, overviewHelp, parseCommandLine } from './command-table';
import { ControlClient } from '../operations/control-client';
import { agentText } from './operation-commands';

/** Runs the CLI; resolves with the exit code, or -1 while `serve` keeps running. */
export async function main(argv: string[]): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  let commandName: string | undefined;
  try {
    const line = parseCommandLine(argv);
    switch (line.kind) {
      case 'version':
        print(VERSION);
        return 0;
      case 'overview':
        process.stdout.write(overviewHelp());
        return line.exitCode;
      case 'help':
        process.stdout.write(commandHelp(line.command));
        return 0;
    }
    const { command, args, flags } = line;
    commandName = command.name;
    const home = resolveHome(stringFlag(flags, 'home'));
    const ctx: CommandContext = {
      home,
      profile: stringFlag(flags, 'profile'),
      json: flags.json === true,
      client: () => ControlClient.locate(home),
      personClient: () => ControlClient.locate(home, process.env, { person: true }),
      print,
      progress: (text) => process.stderr.write(`${text}\n`),
    };
    return (await command.run(args, flags, ctx)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const about = error instanceof CommandUsageError ? error.command?.name : commandName;
      process.stderr.write(`clawd: ${error.message}. See clawd ${about ? `${about} ` : ''}--help\n`);
      return 2;
    }
    const message = isClawdError(error) ? error.message : String((error as Error)?.message ?? error);
    // An error that quotes the page (the element a declined question was about) fences its words,
    // as an answer's are: the fence's lines as they are, not indented.
    if (new RegExp(PAGE_MARKS.source).test(message)) {
      process.stderr.write(`clawd: ${agentText(message)}\n`);
      return 1;
    }
    const [first, ...rest] = message.split('\n');
    process.stderr.write(`clawd: ${first}\n${rest.map((l) => `  ${l}\n`).join('')}`);
    return 1;
  }
}
