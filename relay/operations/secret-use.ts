// Secrets in agent calls: `{{secret:NAME}}` in `type`'s text and `fill`'s field values is put in
// just before the call runs (the action log, the trace's action names and the gate's label keep
// the placeholder), and every value of the profile's secrets is masked (`••••`) in whatever goes
// back: the answer (a snapshot's field value, an evaluate's result, a network body, content) and
// an error's message. So an agent can use a secret and never read one back, by any operation.

import { ClawdError } from '../errors';

const PLACEHOLDER = /\{\{secret:([^}]*)\}\}/g;
export const MASK = '••••';

/** The operations whose input may carry a placeholder, and where. */
function texts(operation: string, input: Record<string, unknown>): Array<[object, string]> {
  if (operation === 'type' && typeof input.text === 'string') return [[input, 'text']];
  if (operation === 'fill' && Array.isArray(input.fields))
    return (input.fields as Array<Record<string, unknown>>)
      .filter((f) => typeof f.value === 'string')
      .map((f) => [f, 'value'] as [object, string]);
  return [];
}

/** Whether the call's input names a secret (only then are the values read to put it in). */
export function namesSecrets(operation: string, input: Record<string, unknown>): boolean {
  return texts(operation, input).some(([holder, key]) => /\{\{secret:/.test((holder as Record<string, string>)[key]!));
}

/** The input with each placeholder replaced by its value; an unknown name is a 400 naming it. */
export function withSecrets(
  operation: string,
  input: Record<string, unknown>,
  values: ReadonlyMap<string, string>,
  profile: string,
): Record<string, unknown> {
  const copy = structuredClone(input);
  for (const [holder, key] of texts(operation, copy)) {
    const record = holder as Record<string, string>;
    record[key] = record[key]!.replace(PLACEHOLDER, (_all, name: string) => {
      const value = values.get(name);
      if (value === undefined)
        throw new ClawdError(
          'bad_request',
          `no secret named ${JSON.stringify(name)} for profile ${profile}${values.size ? ` (there are: ${[...values.keys()].join(', ')})` : ''}: the person sets one with \`clawd secret-set ${name} --profile ${profile}\``,
        );
      return value;
    });
  }
  return copy;
}

/** `value` with every secret value in its strings masked (a deep copy; as is when there are none). */
export function masked<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  const mask = (text: string) => {
    let out = text;
    for (const secret of longestFirst) if (out.includes(secret)) out = out.split(secret).join(MASK);
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return mask(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    return v;
  };
  return walk(value) as T;
}
