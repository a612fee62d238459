// What the action log records of one agent call to an operation that changes a page or a tab
// (`logged` in its entry): who asked, on which tab and page, the element as the agent named it
// (its ref, and the role and name its snapshot showed), typed text by its length (the text
// itself only with browser.logText, and never a password field's), the outcome and how long it
// took. A fill records one line per field.

import type { ActionLog } from '../agent/action-log';
import type { AgentCall } from '../agent/agent-calls';
import type { AgentService } from '../agent/agent-service';
import { elementLine } from '../../shared/element-line';
import { locatorWords } from '../../shared/element-locator';
import { VALUE_MARK } from '../../shared/recipe';
import { isClawdError } from '../errors';
import type { ActionEntry, LoggedElement } from '../events/event-bus';
import type { Operation } from '../operations/operation';

export interface RecorderDeps {
  log: ActionLog;
  agent: AgentService;
  /** browser.logText, read at each call. */
  logText(): boolean;
}

type Fields = Record<string, unknown>;

/**
 * One call in a few words, as a trace names it: `click e12 button "Save"`, `navigate https://…`,
 * `find "Blue Kettle"`. `quote` writes an element's name (the page's words): as JSON for a trace,
 * or cut, flagged and marked (page-fence.ts pageQuote) for a note or a question.
 */
export function callLabel(
  deps: Pick<RecorderDeps, 'agent'>,
  operation: Operation,
  call: AgentCall,
  input: Fields,
  quote: (name: string) => string = (name) => JSON.stringify(name),
): string {
  // A recipe step's element is its saved locator, not whatever that ref was in the last snapshot.
  const element = (ref: string) => {
    const saved = call.recipeElements?.get(ref);
    return saved ? locatorWords(saved.locator, quote) : elementLine({ ref, ...deps.agent.refInfo(call, ref) }, quote);
  };
  const parts = [operation.http.kind ?? operation.name];
  const fields = call.refs.filter((e) => e.field).map((e) => element(e.ref));
  for (const e of call.refs) if (!e.field) parts.push(e.onto ? `onto ${element(e.ref)}` : element(e.ref));
  if (fields.length > 0) parts.push(fields.join(', '));
  if (typeof input.url === 'string') parts.push(input.url);
  if (typeof input.q === 'string') parts.push(JSON.stringify(input.q));
  if (typeof input.key === 'string') parts.push(input.key);
  return parts.join(' ');
}

export async function recordCall(
  deps: RecorderDeps,
  operation: Operation,
  call: AgentCall,
  input: Fields,
  outcome: { result?: unknown; error?: unknown },
  durationMs: number,
): Promise<void> {
  if (!operation.logged) return;
  const result = (outcome.result ?? {}) as Fields;
  const targetId = (typeof result.targetId === 'string' ? result.targetId : undefined) ?? call.targetId;
  const url = typeof result.url === 'string' ? result.url : typeof input.url === 'string' ? input.url : undefined;
  const error = outcome.error;
  const base: Omit<ActionEntry, 'time' | 'id'> = {
    profile: call.profile,
    ...(targetId ? { targetId } : {}),
    ...(call.session !== undefined ? { session: call.session } : {}),
    kind: operation.http.kind ?? operation.name,
    ...(url ? { url } : {}),
    outcome: error === undefined ? 'ok' : isClawdError(error) ? error.code : 'internal',
    durationMs: Math.round(durationMs),
    ...(error !== undefined ? { detail: String((error as Error)?.message ?? error) } : {}),
    ...seenIn(result),
  };
  // The tab the call ended on (a tab it opened, say) names its elements.
  const on: AgentCall = targetId === call.targetId ? call : { ...call, targetId, found: undefined };
  const element = (ref: string): LoggedElement => {
    const saved = call.recipeElements?.get(ref);
    if (saved)
      return {
        ref,
        ...(saved.locator.by === 'role' ? { role: saved.locator.role, name: saved.locator.name } : {}),
        ...saved,
      };
    return { ref, ...(targetId ? deps.agent.refInfo(on, ref) : {}), ...call.located?.get(ref) };
  };
  // A password field's value is never kept (read before the action; else asked now, unknown = yes).
  const password = async (ref: string | undefined) => {
    if (ref === undefined) return true;
    const located = call.located?.get(ref);
    if (located) return located.password === true;
    return targetId === undefined || (await deps.agent.isPasswordField(on, ref));
  };
  const typed = async (ref: string | undefined, value: string) => {
    const secret = await password(ref);
    const keep = deps.logText() && !secret;
    // A typed secret's mark is no secret: the export writes it as typed.
    const marksOnly = value !== '' && value.replace(VALUE_MARK, '') === '';
    return {
      text: { length: value.length, ...(keep ? { value } : {}) },
      given: secret && !marksOnly ? undefined : value,
    };
  };
  const fields = call.refs.filter((e) => e.field);
  for (const field of fields) {
    const value = field.field?.value;
    const text = typeof value === 'string' ? await typed(field.ref, value) : undefined;
    deps.log.record(
      { ...base, element: element(field.ref), ...(text ? { text: text.text } : {}) },
      text ? text.given : value,
    );
  }
  if (fields.length > 0) return;
  const ref = call.refs.find((e) => !e.onto)?.ref;
  const onto = call.refs.find((e) => e.onto);
  const text = typeof input.text === 'string' && operation.name === 'type' ? await typed(ref, input.text) : undefined;
  // A named key (Enter, Tab, Control+a) is said; a character pressed is typed text: kept as typed
  // text is (memory only, never a password field's).
  const pressed = typeof input.key === 'string' ? input.key : undefined;
  const character = pressed !== undefined && [...pressed].length === 1;
  const key = pressed !== undefined && !character ? pressed : input.submit === true ? 'Enter' : undefined;
  const pressedGiven = character && !(await password(ref)) ? pressed : undefined;
  deps.log.record(
    {
      ...base,
      ...(ref ? { element: element(ref) } : {}),
      ...(onto ? { onto: element(onto.ref) } : {}),
      ...(text ? { text: text.text } : {}),
      ...(key ? { key } : {}),
      ...(onto && base.detail === undefined ? { detail: `onto ${onto.ref}` } : {}),
    },
    text ? text.given : Array.isArray(input.values) ? input.values : pressedGiven,
  );
}

/**
 * What the page said after the call, as its answer did: its status messages (the answer's
 * `messages`, or the status and alert lines of the view it answered with) and a new document's title.
 */
function seenIn(result: Fields): Pick<ActionEntry, 'seen'> {
  const view = (result.snapshot as { snapshot?: unknown } | undefined)?.snapshot;
  const viewed = typeof view === 'string' ? view.split('\n').map((line) => line.trim()) : [];
  const messages = [
    ...(Array.isArray(result.messages) ? (result.messages as unknown[]) : []),
    ...viewed.filter((line) => /^(status|alert) "/.test(line)),
  ].filter((m): m is string => typeof m === 'string');
  const title = result.navigated === true && typeof result.title === 'string' ? result.title : undefined;
  if (messages.length === 0 && title === undefined) return {};
  return { seen: { ...(title !== undefined ? { title } : {}), ...(messages.length > 0 ? { messages } : {}) } };
}
