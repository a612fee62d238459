// The table of agent operations: every one of them, by name, and how they group into MCP tools.
// The front doors read this table: control/operation-routes.ts (HTTP), mcp/mcp-server.ts,
// cli/operation-commands.ts, and docs.ts (the agent skill and docs/reference.md).

import { z } from 'zod';
import { click, drag, fill, focus, hover, press, scrollIntoView, select, type } from './act-operations';
import { askWait, handoff, handoffEnd, handoffWait, release } from './control-operations';
import { close, evaluate, resize, scroll, wait } from './page-act-operations';
import { coerce, parseInput } from './fields';
import { dialog, download, downloads, upload } from './hook-operations';
import type { Operation } from './operation';
import { consoleMessages, content, find, navigate, pdf, screenshot, snapshot } from './page-operations';
import { exportSession } from './export-operations';
import { log } from './log-operations';
import { recipes, runRecipe } from './recipe-operations';
import { network, networkRequest } from './network-operations';
import { policy, policySet } from './policy-operations';
import { storageExport, storageImport } from './storage-operations';
import { trace } from './trace-operations';
import { profiles, start, status, stop, tabClose, tabFocus, tabOpen, tabs } from './tab-operations';

export const OPERATIONS = {
  snapshot,
  find,
  navigate,
  click,
  type,
  fill,
  select,
  press,
  hover,
  drag,
  scroll,
  scrollIntoView,
  focus,
  wait,
  resize,
  evaluate,
  close,
  screenshot,
  content,
  console: consoleMessages,
  network,
  networkRequest,
  trace,
  pdf,
  upload,
  dialog,
  download,
  downloads,
  handoff,
  handoffWait,
  handoffEnd,
  askWait,
  tabs,
  tabOpen,
  tabFocus,
  tabClose,
  release,
  storageExport,
  storageImport,
  status,
  start,
  stop,
  profiles,
  policy,
  policySet,
  log,
  recipes,
  runRecipe,
  export: exportSession,
} as const;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_LIST: readonly Operation[] = Object.values(OPERATIONS) as unknown as Operation[];

export function operationNamed(name: string): Operation {
  const found = (OPERATIONS as Record<string, Operation | undefined>)[name];
  if (!found) throw new Error(`no operation named ${name}`);
  return found;
}

/** Fields the front door fills itself rather than the caller: an action's `kind` comes from the operation. */
export function isFixedField(operation: Operation, field: string): boolean {
  return field === 'kind' && operation.http.kind !== undefined;
}

/**
 * Reads an operation's input whatever door it came through (`text`: a query string or a CLI's
 * flags, every value a string), checks it, and answers the typed input or a 400 naming the field.
 */
export function parseOperationInput(
  operation: Operation,
  raw: Record<string, unknown>,
  from: 'json' | 'text',
): Record<string, unknown> {
  let values = raw;
  if (from === 'text') {
    // An empty query value means "not given" (`?format=`), as browsers and forms write it.
    values = coerce(
      operation.input.shape,
      Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== '' && v !== undefined)),
    );
  }
  if (operation.http.kind !== undefined) values = { ...values, kind: operation.http.kind };
  const input = parseInput(operation.input, values) as Record<string, unknown>;
  operation.check?.(input as never);
  return input;
}

/** An MCP tool: one operation, or several chosen by a field (`act`'s kind, `tabs`' action). */
export interface ToolGroup {
  tool: string;
  description: string;
  /** The field that picks the operation, when the tool has several. */
  chooser?: 'kind' | 'action';
  members: readonly Operation[];
}

/** What a tool of several operations is for, in one line. */
const TOOL_SUMMARIES: Record<string, string> = {
  act: 'act on the page by ref; kind picks what: click, type (text; submit), fill (fields), select (values), press (key), hover, drag (startRef, endRef), scroll (direction; amount), scrollIntoView, focus, wait (text, textGone, selector, url, loadState, fn or timeMs), resize (width, height), evaluate (fn), close',
  tabs: 'the tabs: list (default), open (url), focus, close or release (targetId)',
  browser:
    "the profile's browser: status (default), start, stop, all profiles, the origin policy (which sites you may load), or the action log",
  handoff:
    'give (default) the tab to the person with a reason, when you cannot go on (log-in, CAPTCHA); answers a live view link for them; wait for it back, or end it; ask (id): wait for their answer to a question of yours (waiting_for_person)',
  download:
    "wait (default) for the tab's next download (with ref, click what starts it) and answer where it was saved; or list them",
  network: "the tab's requests: list (default) or request (id: its headers and body)",
  recipe:
    'tasks saved as steps: list (default), run one (name, params) before doing it by hand, or export your session as one (format recipe) or a script',
  storage: "export the profile's log-in state (cookies, local storage) to a file, or import one (path)",
};

/** The tools, in the table's order; a tool's first operation is what it does when no kind or action is given. */
export function toolGroups(): ToolGroup[] {
  const byTool = new Map<string, Operation[]>();
  for (const operation of OPERATION_LIST) {
    const { tool } = operation.mcp;
    if (tool !== null) byTool.set(tool, [...(byTool.get(tool) ?? []), operation]);
  }
  return [...byTool].map(([tool, members]) => {
    if (members.length === 1 && members[0]!.mcp.as === undefined)
      return { tool, description: members[0]!.summary, members };
    const chooser = members.every((m) => m.http.kind !== undefined) ? 'kind' : 'action';
    const description = TOOL_SUMMARIES[tool];
    if (!description) throw new Error(`MCP tool ${tool} has several operations and no summary`);
    return { tool, description, chooser, members };
  });
}

/**
 * Every field of a group's members, once (the first member that has it decides its schema),
 * optional when several operations share the tool. A field the members describe differently
 * (`fn`: evaluate's function, wait's condition) keeps no description: the tool's says it.
 */
export function mergedFields(group: ToolGroup): Record<string, z.ZodTypeAny> {
  const fields: Record<string, z.ZodTypeAny> = {};
  const descriptions = new Map<string, Set<string | undefined>>();
  for (const member of group.members) {
    for (const [name, schema] of Object.entries(member.input.shape as z.ZodRawShape)) {
      if (isFixedField(member, name)) continue;
      descriptions.set(name, (descriptions.get(name) ?? new Set()).add(schema.description));
      if (fields[name]) continue;
      fields[name] = group.members.length > 1 && !schema.isOptional() ? schema.optional() : schema;
    }
  }
  for (const [name, said] of descriptions) {
    const described = [...said].filter((d) => d !== undefined);
    if (described.length > 1) fields[name] = fields[name]!.describe('');
  }
  return fields;
}
