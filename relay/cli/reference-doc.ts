// docs/reference.md, generated from the operation table and the command table so it cannot drift
// from what the code does: every operation over HTTP, MCP and the CLI, with its fields; then the
// CLI's other commands. `npm run build` writes it; a unit test checks the committed one is current.

import { zodToJsonSchema } from 'zod-to-json-schema';
import { z } from 'zod';
import type { Operation } from '../operations/operation';
import { isFixedField, OPERATION_LIST, toolGroups } from '../operations/operation-table';
import { PROFILE_HELP } from '../operations/shared-fields';
import { AGENT_COMMANDS } from './agent-commands';
import { INSTALL_COMMANDS } from './install-commands';
import { flagOf, operationCliLine } from './operation-commands';
import { PROFILE_COMMANDS } from './profile-commands';
import { SECRET_COMMANDS } from './secret-commands';
import { SERVER_COMMANDS } from './server-commands';

/** A field's type in a few characters: `agent|ai|role|aria`, `integer 100–10000`, `[{ref, value, type?}]`. */
function typeOf(schema: z.ZodTypeAny): string {
  // As a property of an object, so an optional field reads as its type (its being optional is said apart).
  const json = (
    zodToJsonSchema(z.object({ field: schema }), { $refStrategy: 'none', pipeStrategy: 'input' }) as Record<string, any>
  ).properties.field;
  const one = (s: Record<string, any>): string => {
    if (s.enum) return s.enum.join('\\|');
    if (s.const !== undefined) return JSON.stringify(s.const);
    if (s.anyOf) return s.anyOf.map(one).join(' or ');
    if (s.type === 'integer' || s.type === 'number') {
      const range = s.minimum !== undefined && s.maximum !== undefined ? ` ${s.minimum}–${s.maximum}` : '';
      return `${s.type}${range}`;
    }
    if (s.type === 'array') return `list of ${s.items ? one(s.items) : 'values'}`;
    if (s.type === 'object') return `{${Object.keys(s.properties ?? {}).join(', ')}}`;
    return String(s.type ?? 'value');
  };
  const text = one(json);
  return json.default !== undefined ? `${text} (default ${JSON.stringify(json.default)})` : text;
}

function mcpName(operation: Operation): string {
  if (operation.mcp.tool === null) return `none: ${operation.mcp.why}`;
  const group = toolGroups().find((g) => g.members.includes(operation))!;
  return group.chooser ? `\`${group.tool}\` with ${group.chooser} \`${operation.mcp.as}\`` : `\`${group.tool}\``;
}

export function referenceMarkdown(): string {
  const lines = [
    '# Agent operations',
    '',
    '<!-- Generated from relay/operations/ by `npm run build` (relay/cli/reference-doc.ts): edit the operations, not this file. -->',
    '',
    'Every operation is reachable three ways, with the same fields: the control API (`127.0.0.1:18791`, the token as',
    '`Authorization: Bearer …`, `?profile=NAME`; GET and DELETE take the fields as a query string, POST as a JSON body),',
    'an MCP tool (`clawd mcp`, or `/mcp` on the control API), and a `clawd` command (a field `maxChars` is the flag',
    "`--max-chars`; `targetId` is `--target`, `timeoutMs` is `--timeout`; `--json` prints the API's answer). A field that",
    'does not fit is a 400 `bad_request` naming it. MCP tools and CLI commands answer the short text shown to agents.',
    '',
    'Fields many operations share: `targetId` — the tab, an id or a unique prefix (default: the tab last used); `session` — the',
    "agent session: a tab it changes is held for it (also the `X-Clawd-Session` header); `timeoutMs` — the call's bound;",
    '`snapshot` — `diff` or `full`: an action answers with the page after it. `profile` (not a field: `?profile=`, `--profile`,',
    `or an MCP argument): ${PROFILE_HELP}.`,
    '',
    'Actions (`POST /act`, the MCP tool `act`) answer `{ ok, kind, targetId, url, timeoutMs, … }`. Their `timeoutMs` (default',
    '8 s, clamped to 0.5–60 s) bounds the whole call, the ref check and any wait on the page included: a page whose script is',
    'stuck answers 408 `action_timeout` on time, and a crashed tab answers 410 `target_crashed`. `snapshot: "diff"` adds the',
    'page as the action left it, as what changed since the tab\'s last snapshot (a full one when there is none); `"full"` adds',
    'all of it. A ref that no longer shows the element it showed is refused (409 `ref_stale`) and nothing happens on the page.',
    '',
  ];
  for (const operation of OPERATION_LIST) {
    const route = `${operation.http.method} ${operation.http.path}${operation.http.kind ? ` {kind: "${operation.http.kind}"}` : ''}`;
    lines.push(`## ${operation.name}`, '', `${operation.summary[0]!.toUpperCase()}${operation.summary.slice(1)}.`, '');
    if (operation.details) lines.push(operation.details, '');
    lines.push(`- HTTP: \`${route}\``, `- MCP: ${mcpName(operation)}`, `- CLI: \`${operationCliLine(operation)}\``, '');
    const fields = Object.entries(operation.input.shape as z.ZodRawShape).filter(
      ([name]) => !isFixedField(operation, name),
    );
    if (fields.length > 0) {
      lines.push('| field | CLI | type | |', '|---|---|---|---|');
      for (const [name, schema] of fields) {
        const positional = operation.cli.args?.find((a) => a.field === name);
        // A pipe in a table cell ends the cell, even in code: escaped.
        const cli = positional ? positional.value.replace(/\|/g, '\\|') : `--${flagOf(operation, name)}`;
        const required = schema.isOptional() ? '' : ' **required**';
        lines.push(`| \`${name}\` | \`${cli}\` | ${typeOf(schema)}${required} | ${schema.description ?? ''} |`);
      }
      lines.push('');
    }
    lines.push(`Example: \`${JSON.stringify(operation.example)}\``, '');
  }
  lines.push(
    '# Commands besides the operations',
    '',
    'The server, its set-up and the profiles: commands of the CLI only (`--home DIR` and `--help` on each).',
    '',
  );
  for (const command of [
    ...SERVER_COMMANDS,
    ...INSTALL_COMMANDS,
    ...PROFILE_COMMANDS,
    ...SECRET_COMMANDS,
    ...AGENT_COMMANDS,
  ]) {
    lines.push(`## clawd ${command.name}`, '', `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`, '');
    lines.push(`- CLI: \`clawd ${command.usage}\``, '');
    if (command.details) lines.push(command.details.replace(/\n(?! )/g, ' '), '');
    const flags = Object.entries(command.flags);
    if (flags.length > 0) {
      lines.push('| flag | |', '|---|---|');
      for (const [name, flag] of flags)
        lines.push(`| \`--${name}${flag.value ? ` ${flag.value}` : ''}\` | ${flag.help.replace(/\|/g, '\\|')} |`);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
