// Documents generated from the operation table, so they cannot drift from what the code does:
// the agent skill (SKILL.md: how a coding agent drives the browser with the CLI, printed by
// `clawd skill` and shipped in the package) and docs/reference.md (every operation over HTTP,
// MCP and the CLI, with its fields; then the CLI's other commands, from the command table). `npm run build` writes both; a unit test checks the
// committed reference is current.

import { zodToJsonSchema } from 'zod-to-json-schema';
import { z } from 'zod';
import type { Operation } from '../operations/operation';
import { isFixedField, OPERATION_LIST, toolGroups } from '../operations/operation-table';
import { PROFILE_HELP } from '../operations/shared-fields';
import { INSTRUCTIONS } from '../mcp/mcp-tools';
import { AGENT_COMMANDS } from './agent-commands';
import { INSTALL_COMMANDS } from './install-commands';
import { flagOf, operationCommand } from './operation-commands';
import { PROFILE_COMMANDS } from './profile-commands';
import { SECRET_COMMANDS } from './secret-commands';
import { SERVER_COMMANDS } from './server-commands';
import { fenceMeaning } from '../operations/page-fence';

/** `clawd click REF [--double] …`: the command with its arguments and flags, as its help shows it. */
function cliLine(operation: Operation): string {
  return `clawd ${operationCommand(operation).usage}`;
}

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
    '<!-- Generated from relay/operations/ by `npm run build` (relay/cli/operation-docs.ts): edit the operations, not this file. -->',
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
    lines.push(`- HTTP: \`${route}\``, `- MCP: ${mcpName(operation)}`, `- CLI: \`${cliLine(operation)}\``, '');
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

export function skillMarkdown(): string {
  // Each command with its own flags; the ones every command shares are said once above.
  const own = (o: Operation) => cliLine(o).replace(/ \[--(target|session|timeout|snapshot)\b[^\]]*\]/g, '');
  const listed = new Set<Operation>();
  const byGroup = (test: (o: Operation) => boolean) =>
    OPERATION_LIST.filter((o) => !listed.has(o) && test(o)).map((o) => {
      listed.add(o);
      return `- \`${own(o)}\` — ${o.summary}.`;
    });
  const lines = [
    '---',
    'name: clawd-browser',
    'description: Drive a real browser from the shell with the clawd CLI — a page read as a list of elements with refs (e1, e2, …), actions by ref, the page as Markdown, screenshots, downloads, and handing the tab to the person for a log-in or CAPTCHA. Use when a task needs a web page: open, read, fill in, click through, check what a site shows.',
    '---',
    '',
    '# Driving a browser with clawd',
    '',
    'A clawd server must be running. If a command says it cannot reach one, ask the person to start it (`npm start` in',
    'the clawd folder, or `clawd install` once and Chrome starts it); over MCP, `clawd mcp` starts what it needs.',
    '',
    "Two kinds of browser: the default profile (`clawd`) is clawd's own Chromium, isolated — no log-ins, good for",
    "public pages. `--profile chrome` is the person's own browser, and only the tabs they handed you with the clawd",
    'toolbar button (`clawd tabs --profile chrome` lists them): use it when the task needs their log-ins or a tab they',
    'gave you.',
    '',
    '## The loop',
    '',
    "1. `clawd navigate https://…`: starts the profile's browser if needed, waits for the load, and answers the page's",
    '   brief view (headings and what can be acted on, with refs).',
    '2. Look: `clawd find TEXT` answers the lines that match, with their refs — the cheapest look at a big page;',
    '   `clawd snapshot` gives every element you can act on (ref, role, name, value, state) with headings and text.',
    '   Long pages are cut: go on with `--after REF` (the ref the cut names).',
    '3. Act by ref: `clawd click e12`, `clawd type e3 hello --submit`, `clawd fill --fields \'[{"ref":"e4","value":"Ada"}]\'`,',
    "   `clawd select e7 green`. `--snapshot diff` answers what the action changed (`brief`: the page's brief view,",
    '   `full`: the whole page, `none`: just how it ended), so you rarely need a second look.',
    '4. A ref whose element changed or went is refused as stale: look again. Refs are never reused.',
    '',
    `The page's words come fenced: ${fenceMeaning()} The nonce is new with every command.`,
    '',
    "To read rather than act, `clawd content` gives the page's article as Markdown, far smaller than a snapshot.",
    'When you cannot go on (a log-in, a CAPTCHA, a payment): `clawd handoff "Log in, then press Done"` gives the tab',
    'to the person and prints a link: show it to them at once. Then `clawd handoff-wait` returns when they give the',
    'tab back; look again before acting.',
    'A secret the person kept (`clawd secrets` lists the names) is typed as `{{secret:NAME}}` in `type` or `fill`: the',
    'page gets the value, you see `••••`.',
    '',
    "Every command takes `--profile NAME` and `--json` (the API's answer as JSON); commands on a tab take `--target ID`",
    '(an id or unique prefix from `clawd tabs`), `--session NAME` (tabs you change are held for you) and `--timeout MS`;',
    'actions take `--snapshot none|brief|diff|full`.',
    "`clawd <command> --help` lists a command's flags. Errors say what to do next.",
    '',
    '## Reading the page',
    '',
    ...byGroup((o) => ['snapshot', 'content', 'screenshot', 'console', 'pdf'].includes(o.name)),
    '',
    '## Acting',
    '',
    ...byGroup((o) => o.http.path === '/act' || o.name === 'navigate'),
    '',
    '## Files, dialogs and the person',
    '',
    ...byGroup(
      (o) =>
        o.http.path.startsWith('/hooks') ||
        o.name === 'downloads' ||
        o.name.startsWith('handoff') ||
        o.name === 'release',
    ),
    '',
    '## Browser, tabs, the origin policy, the log',
    '',
    // What is the person's to set (the origin policy) is not taught to agents: no MCP tool has it either.
    ...byGroup((o) => o.mcp.tool !== null),
    '',
    `Over MCP the same operations are tools (\`clawd mcp\`): ${INSTRUCTIONS.split('. ')[0]}.`,
  ];
  return `${lines.join('\n')}\n`;
}
