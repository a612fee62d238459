// What the action log records of one agent call to an operation that changes a page or a tab
// (`logged` in its entry): who asked, on which tab and page, the element as the agent named it
// (its ref, and the role and name its snapshot showed), typed text by its length (the text
// itself only with browser.logText, and never a password field's), the outcome and how long it
// took. A fill records one line per field.

import type { ActionLog } from '../agent/action-log';
import type { AgentService } from '../agent/agent-service';
import { isClawdError } from '../errors';
import type { ActionEntry } from '../events/event-bus';
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
  profile: string,
  input: Fields,
  quote: (name: string) => string = (name) => JSON.stringify(name),
): string {
  const targetId = typeof input.targetId === 'string' ? input.targetId : undefined;
  const element = (ref: string) => {
    const info = deps.agent.describeRef(profile, targetId, ref);
    return info ? `${ref} ${info.role}${info.name ? ` ${quote(info.name)}` : ''}` : ref;
  };
  const ref =
    typeof input.ref === 'string' ? input.ref : typeof input.startRef === 'string' ? input.startRef : undefined;
  const parts = [operation.http.kind ?? operation.name];
  if (ref) parts.push(element(ref));
  if (typeof input.endRef === 'string') parts.push(`onto ${element(input.endRef)}`);
  if (Array.isArray(input.fields))
    parts.push((input.fields as Array<{ ref: string }>).map((f) => element(f.ref)).join(', '));
  if (typeof input.url === 'string') parts.push(input.url);
  if (typeof input.q === 'string') parts.push(JSON.stringify(input.q));
  if (typeof input.key === 'string') parts.push(input.key);
  return parts.join(' ');
}

export async function recordCall(
  deps: RecorderDeps,
  operation: Operation,
  profile: string,
  input: Fields,
  outcome: { result?: unknown; error?: unknown },
  durationMs: number,
): Promise<void> {
  if (!operation.logged) return;
  const result = (outcome.result ?? {}) as Fields;
  const targetId =
    (typeof result.targetId === 'string' ? result.targetId : undefined) ??
    (typeof input.targetId === 'string' ? input.targetId : undefined);
  const url = typeof result.url === 'string' ? result.url : typeof input.url === 'string' ? input.url : undefined;
  const error = outcome.error;
  const base: Omit<ActionEntry, 'time'> = {
    profile,
    ...(targetId ? { targetId } : {}),
    ...(typeof input.session === 'string' ? { session: input.session } : {}),
    kind: operation.http.kind ?? operation.name,
    ...(url ? { url } : {}),
    outcome: error === undefined ? 'ok' : isClawdError(error) ? error.code : 'internal',
    durationMs: Math.round(durationMs),
    ...(error !== undefined ? { detail: String((error as Error)?.message ?? error) } : {}),
  };
  const element = (ref: string) => ({ ref, ...(targetId ? deps.agent.refInfo(profile, targetId, ref) : {}) });
  const typed = async (ref: string | undefined, value: string) => {
    const keep =
      deps.logText() &&
      targetId !== undefined &&
      ref !== undefined &&
      !(await deps.agent.isPasswordField(profile, targetId, ref));
    return { length: value.length, ...(keep ? { value } : {}) };
  };
  if (Array.isArray(input.fields)) {
    for (const field of input.fields as Array<{ ref: string; value: unknown }>) {
      deps.log.record({
        ...base,
        element: element(field.ref),
        ...(typeof field.value === 'string' ? { text: await typed(field.ref, field.value) } : {}),
      });
    }
    return;
  }
  const ref =
    typeof input.ref === 'string' ? input.ref : typeof input.startRef === 'string' ? input.startRef : undefined;
  const onto = typeof input.endRef === 'string' ? `onto ${input.endRef}` : undefined;
  deps.log.record({
    ...base,
    ...(ref ? { element: element(ref) } : {}),
    ...(typeof input.text === 'string' && operation.name === 'type' ? { text: await typed(ref, input.text) } : {}),
    ...(onto && base.detail === undefined ? { detail: onto } : {}),
  });
}
