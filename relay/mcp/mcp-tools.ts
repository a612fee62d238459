// The MCP tools, derived from the operation table: one tool per operation, or one for several
// chosen by a field (`act` by kind, `tabs` and `browser` by action). Each tool's JSON schema is
// its operations' fields; the fields every tool shares are described once, in the server's
// instructions, not on every tool. A call is checked by the chosen operation's own schema (the
// same 400 message HTTP gives, as isError), carried out by the invoker, and answered with the
// operation's short text (and a picture for screenshots).

import { promises as fs } from 'node:fs';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { z } from 'zod';
import { isClawdError } from '../errors';
import type { Invoker } from '../operations/control-client';
import { bad } from '../operations/fields';
import type { Operation } from '../operations/operation';
import {
  mergedFields,
  operationNamed,
  parseOperationInput,
  toolGroups,
  type ToolGroup,
} from '../operations/operation-table';
import { SHARED_FIELDS } from '../operations/shared-fields';
import { fenced } from '../operations/page-fence';

export const INSTRUCTIONS =
  'Drive a browser by refs: snapshot (or find, to search a big page for text), then act on an element by its ref (act: click, type, fill, …). ' +
  'Before doing a task by hand, see whether the recipe tool has it saved as steps: run it by name (it stops where the page differs). ' +
  'Actions and navigate take snapshot: none, brief (headings and what can be acted on; the site\'s header, menus and footer folded), diff (what changed since your last look; on another page its brief view) or full; navigate answers brief unless told (find or snapshot for the rest); an action that loads another page says where it led; one that stays says the words it made appear (+ "Total: £30.00", up to three; a count when it switched the view). ' +
  'A ref whose element changed or went is refused as stale: take a new snapshot. A long page is cut at maxChars: go on with after=<the ref named at the cut>. ' +
  'Every tool takes profile (default: the configured one) and, where it acts on a tab, targetId (an id or unique prefix from tabs; default: the tab last used) and session (your agent session name: tabs you change are held for you). ' +
  'timeoutMs bounds a call (actions 8 s by default). When you cannot go on (a log-in, a CAPTCHA), handoff gives the tab to the person; a secret the person kept is typed as {{secret:NAME}} in type or fill, a kept TOTP seed’s current code as {{totp:NAME}} (never shown), a code the site sent the person as {{code:NAME}} (they type it). ' +
  "Debugging a web app: network lists the tab's requests (failed: true for the broken ones) and reads one; trace start/stop saves a Playwright trace of your calls.";

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The tool's JSON schema: its operations' fields, without what the instructions already say once. */
export function toolDefinition(group: ToolGroup): ToolDefinition {
  const shape: z.ZodRawShape = {};
  if (group.chooser) {
    const choices = group.members.map((m) => m.mcp.as!) as [string, ...string[]];
    shape[group.chooser] = group.chooser === 'kind' ? z.enum(choices) : z.enum(choices).optional();
  }
  Object.assign(shape, mergedFields(group), { profile: z.string().optional() });
  const schema = zodToJsonSchema(z.object(shape), {
    $refStrategy: 'none',
    target: 'jsonSchema7',
    pipeStrategy: 'input',
  }) as Record<string, any>;
  delete schema.$schema;
  delete schema.additionalProperties;
  for (const [name, property] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    if (property.description === '') delete property.description;
    // A shared field is described once, in the instructions: here only its type (and its choices).
    // Its checks still hold: every call is parsed by the operation's own schema.
    if ((SHARED_FIELDS as readonly string[]).includes(name)) {
      for (const key of Object.keys(property)) if (key !== 'type' && key !== 'enum') delete property[key];
    } else lean(property);
  }
  return { name: group.tool, description: group.description, inputSchema: schema };
}

/** Checks the server makes on every call anyway (a 400 names the field and its bounds). */
const CHECKS_ONLY = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'format',
  'additionalProperties',
];

/**
 * A field's schema as an agent needs it to call: its type, choices and what it means. Bounds and
 * patterns are left to the server's check, a default to the description when it says it (or is
 * just `false`): each costs context in every session and tells the agent little.
 */
function lean(property: Record<string, unknown>): void {
  for (const key of CHECKS_ONLY) delete property[key];
  const said = typeof property.description === 'string' && /default/.test(property.description);
  if ('default' in property && (said || property.default === false)) delete property.default;
  for (const nested of [property.items, ...((property.anyOf as unknown[]) ?? [])])
    if (nested && typeof nested === 'object') lean(nested as Record<string, unknown>);
  const properties = property.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties) for (const inner of Object.values(properties)) lean(inner);
}

export function toolDefinitions(): ToolDefinition[] {
  return toolGroups().map(toolDefinition);
}

type Content = Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;

/** Which of the group's operations a call means. */
function chosen(group: ToolGroup, args: Record<string, unknown>): Operation {
  if (!group.chooser) return group.members[0]!;
  const value = args[group.chooser];
  if (value === undefined && group.chooser === 'action') return group.members[0]!;
  const found = group.members.find((m) => m.mcp.as === value);
  if (found) return found;
  const known = group.members.map((m) => m.mcp.as).join(', ');
  throw bad(
    `${group.chooser} ${value === undefined ? 'is required' : `${JSON.stringify(value)} is unknown`}: use one of ${known}`,
  );
}

/** Carries out one tool call; a failure is isError with the same message and code the HTTP API gives. */
export async function callTool(
  group: ToolGroup,
  args: Record<string, unknown>,
  invoker: Invoker,
  defaultProfile: string | undefined,
  /** The session's fence nonce: the page's words in the answer go between its lines. */
  nonce: string,
  said?: (note: string) => void,
  signal?: AbortSignal,
): Promise<{ content: Content; isError?: true }> {
  try {
    const operation = chosen(group, args);
    const { profile: named, [group.chooser ?? '']: _choice, ...rest } = args;
    const profile = typeof named === 'string' && named !== '' ? named : defaultProfile;
    const input = parseOperationInput(operation, { ...operation.mcp.defaults, ...rest }, 'json');
    const notes: string[] = [];
    const result = await invoker.invoke(
      operation,
      profile,
      input,
      (note) => {
        // A note that quotes the page (an element's name) fences the quote, as an answer does.
        const text = fenced(note, nonce);
        notes.push(text === note ? `(${note})` : text);
        said?.(text);
      },
      signal,
    );
    const texts = [...notes, fenced(operation.text(result, input as never), nonce)];
    const image = operation.image?.(result);
    const followUp = operation.followUp;
    if (followUp && input[followUp.field] === true) {
      const next = operationNamed(followUp.operation);
      const nextInput = parseOperationInput(next, followUp.input(result, input), 'json');
      texts.push(fenced(next.text(await invoker.invoke(next, profile, nextInput), nextInput as never), nonce));
    }
    const content: Content = [{ type: 'text', text: texts.join('\n') }];
    if (image)
      content.push({
        type: 'image',
        data: (await fs.readFile(image.path)).toString('base64'),
        mimeType: image.mimeType,
      });
    return { content };
  } catch (error) {
    // An error that quotes the page (a question's element, a page's own error) fences the quote.
    const text = fenced(
      isClawdError(error) ? `${error.message} (${error.code})` : String((error as Error)?.message ?? error),
      nonce,
    );
    return { content: [{ type: 'text', text }], isError: true };
  }
}
