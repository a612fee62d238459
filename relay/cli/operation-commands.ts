// The CLI's commands for the operations of the table, derived from it: a command per operation,
// its positional arguments and flags read off the operation's input (a field's flag is its
// kebab-case name, targetId is --target and timeoutMs --timeout, unless the operation names
// another), its help from the fields' descriptions, and its output the operation's own text
// (or the API's JSON with --json). The input is checked here, before anything is sent.

import { z } from 'zod';
import { isClawdError } from '../errors';
import type { Operation } from '../operations/operation';
import { fieldKind, type FieldKind } from '../operations/fields';
import { isFixedField, OPERATION_LIST, operationNamed, parseOperationInput } from '../operations/operation-table';
import { SHARED_FIELDS } from '../operations/shared-fields';
import { output, UsageError, type CliCommand, type CommandContext, type FlagValues, type Flags } from './cli-command';
import type { Invoker } from '../operations/control-client';
import { fenced, fenceNonce } from '../operations/page-fence';

const CONVENTIONAL: Record<string, string> = {
  targetId: 'target',
  timeoutMs: 'timeout',
  clickTimeoutMs: 'click-timeout',
};
const CONVENTIONAL_VALUE: Record<string, string> = {
  targetId: 'ID',
  session: 'NAME',
  timeoutMs: 'MS',
  clickTimeoutMs: 'MS',
};
const VALUE_OF_KIND: Record<FieldKind, string> = { string: 'T', number: 'N', boolean: '', list: 'A,B', json: 'JSON' };
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** What the help writes after a flag: the operation's word for it, a short enum's values, or the kind's placeholder. */
function placeholder(operation: Operation, field: string, schema: z.ZodTypeAny): string {
  const named = operation.cli.flags?.[field]?.value ?? CONVENTIONAL_VALUE[field];
  if (named) return named;
  let base = schema;
  while (base instanceof z.ZodOptional || base instanceof z.ZodDefault)
    base = base instanceof z.ZodOptional ? base.unwrap() : base.removeDefault();
  if (base instanceof z.ZodEnum && (base.options as string[]).join('|').length <= 24)
    return (base.options as string[]).join('|');
  return VALUE_OF_KIND[fieldKind(schema)];
}

/** A paragraph broken into lines of at most 100 characters, for the terminal. */
function wrap(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

/** The command an operation is on the command line. */
export function commandName(operation: Operation): string {
  return operation.cli.name ?? kebab(operation.name);
}

/** The flag that carries a field of the operation. */
export function flagOf(operation: Operation, field: string): string {
  return operation.cli.flags?.[field]?.flag ?? CONVENTIONAL[field] ?? kebab(field);
}

/** The fields a command takes as flags (not its positional arguments, not the fixed kind), by flag. */
export function flagFields(operation: Operation): Map<string, string> {
  const positional = new Set((operation.cli.args ?? []).map((a) => a.field));
  const shared = (field: string) => (SHARED_FIELDS as readonly string[]).includes(field);
  // The operation's own fields first, then those every agent command shares.
  const fields = Object.keys(operation.input.shape).filter((f) => !isFixedField(operation, f) && !positional.has(f));
  return new Map(
    [...fields.filter((f) => !shared(f)), ...fields.filter(shared)].map((field) => [flagOf(operation, field), field]),
  );
}

function usageOf(operation: Operation, flags: Flags): string {
  const args = (operation.cli.args ?? []).map((a) =>
    a.rest ? `${a.value} [${a.value} …]` : a.optional ? `[${a.value}]` : a.value,
  );
  if (operation.cli.withArgument) args.push(`[${operation.cli.withArgument.value}]`);
  const options = Object.entries(flags).map(([name, spec]) => `[--${name}${spec.value ? ` ${spec.value}` : ''}]`);
  return [commandName(operation), ...args, ...options].join(' ');
}

/** `clawd click REF [--double] …`: the command with its arguments and flags, as its help shows it. */
export function operationCliLine(operation: Operation): string {
  return `clawd ${operationCommand(operation).usage}`;
}

export function operationCommand(operation: Operation): CliCommand {
  const fieldsByFlag = flagFields(operation);
  const flags = flagsOf(operation, fieldsByFlag);
  const name = commandName(operation);
  return {
    name,
    group: operation.cli.group,
    ...(operation.cli.withArgument
      ? { withArgument: commandName(operationNamed(operation.cli.withArgument.operation)) }
      : {}),
    usage: usageOf(operation, flags),
    summary: operation.summary,
    ...(operation.details ? { details: wrap(operation.details) } : {}),
    flags,
    async run(args, values, ctx) {
      const input = checkedInput(operation, rawInput(operation, name, fieldsByFlag, args, values));
      const client = operation.person ? await ctx.personClient() : await ctx.client();
      if (operation.progress && !ctx.json) ctx.progress(operation.progress);
      // What happened on the way (a profile started on first use) goes to stderr, beside the answer.
      const result = await client.invoke(operation, ctx.profile, input, (note) => ctx.progress(agentText(note)));
      const repeat = operation.cli.repeat;
      if (repeat && values[repeat.flag] === true) return follow(operation, repeat, { client, ctx, result, input });
      const followUp = operation.followUp;
      if (!followUp || input[followUp.field] !== true) {
        output(ctx, result, () => [agentText(operation.text(result, input as never))]);
        return operation.cli.exitCode?.(result) ?? 0;
      }
      // Asked to go on (`handoff --wait`): what the first step said is progress, the second is the answer.
      if (!ctx.json) ctx.progress(agentText(operation.text(result, input as never)));
      const next = operationNamed(followUp.operation);
      const nextInput = parseOperationInput(next, followUp.input(result, input), 'json');
      const nextResult = await client.invoke(next, ctx.profile, nextInput);
      output(ctx, nextResult, () => [agentText(next.text(nextResult, nextInput as never))]);
      return next.cli.exitCode?.(nextResult) ?? 0;
    },
  };
}

/** A flag per field (its kind's placeholder, its description for help), then the operation's extras. */
function flagsOf(operation: Operation, fieldsByFlag: Map<string, string>): Flags {
  const shape = operation.input.shape;
  const flags: Flags = {};
  for (const [flag, field] of fieldsByFlag) {
    const kind = fieldKind(shape[field]!);
    const help = shape[field]!.description ?? field;
    flags[flag] =
      kind === 'boolean'
        ? { type: 'boolean', help }
        : { type: 'string', value: placeholder(operation, field, shape[field]!), help };
  }
  for (const [flag, extra] of Object.entries(operation.cli.extra ?? {}))
    flags[flag] = { type: 'boolean', help: extra.help };
  if (operation.cli.repeat) flags[operation.cli.repeat.flag] = { type: 'boolean', help: operation.cli.repeat.help };
  return flags;
}

/** The operation's input as the command line gave it: positional arguments, then flags, then extras. */
function rawInput(
  operation: Operation,
  name: string,
  fieldsByFlag: Map<string, string>,
  args: string[],
  values: FlagValues,
): Record<string, unknown> {
  const shape = operation.input.shape;
  const raw: Record<string, unknown> = {};
  const specs = operation.cli.args ?? [];
  specs.forEach((spec, i) => {
    if (spec.rest) {
      const words = args.slice(i);
      if (words.length > 0) raw[spec.field] = fieldKind(shape[spec.field]!) === 'list' ? words : words.join(' ');
    } else if (args[i] !== undefined) raw[spec.field] = args[i];
    if (raw[spec.field] === undefined && !spec.optional)
      throw new UsageError(
        `${name} needs ${specs
          .filter((s) => !s.optional)
          .map((s) => s.value)
          .join(' ')}`,
      );
  });
  if (!specs.some((s) => s.rest) && args.length > specs.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(args[specs.length])}`);
  for (const [flag, field] of fieldsByFlag) {
    if (values[flag] === undefined) continue;
    // A list flag given empty (`--ask ''`) is the empty list, said on purpose; elsewhere '' is "not given".
    raw[field] = values[flag] === '' && fieldKind(shape[field]!) === 'list' ? [] : values[flag];
  }
  for (const [flag, extra] of Object.entries(operation.cli.extra ?? {})) if (values[flag] === true) extra.apply(raw);
  return raw;
}

/** The input checked by the operation's schema; a field that does not fit is bad usage. */
function checkedInput(operation: Operation, raw: Record<string, unknown>): Record<string, unknown> {
  try {
    return parseOperationInput(operation, raw, 'text');
  } catch (error) {
    // A field that does not fit is bad usage: said before anything is sent, with the help as the pointer.
    if (isClawdError(error) && error.code === 'bad_request') throw new UsageError(error.message);
    throw error;
  }
}

/** Until interrupted: each answer printed, then the next asked for (`log --follow`). */
async function follow(
  operation: Operation,
  repeat: NonNullable<Operation['cli']['repeat']>,
  first: { client: Invoker; ctx: CommandContext; result: unknown; input: Record<string, unknown> },
): Promise<never> {
  const { client, ctx } = first;
  for (let answer = first.result, asked = first.input; ;) {
    if (((answer as { entries?: unknown[] }).entries ?? [answer]).length > 0)
      output(ctx, answer, () => [agentText(operation.text(answer, asked as never))]);
    asked = repeat.next(answer, asked);
    answer = await client.invoke(operation, ctx.profile, asked);
  }
}

/** This command's fence nonce (one per CLI run): the page's words in its text go between its lines. */
let nonce: string | undefined;
/** A text of this run for the agent, the page's words in it fenced (its answers, notes and errors). */
export const agentText = (text: string) => fenced(text, (nonce ??= fenceNonce()));

export const OPERATION_COMMANDS: CliCommand[] = OPERATION_LIST.map(operationCommand);
