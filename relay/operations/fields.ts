// The building blocks of operation inputs (zod), and reading an input whatever door it came
// through: a JSON body and an MCP tool's arguments are typed already; a query string and a CLI's
// flags are all strings ("1", "true", "20000", "Shift,Alt"), so `coerce` turns each into what the
// schema's field wants before it is checked. A problem is one 400 naming the field:
// "width must be an integer from 100 to 10000, got 5". Messages here never start with the field
// name: `parseInput` puts the path in front, so one message reads right for every field.

import { z } from 'zod';
import { ClawdError } from '../errors';
import { SESSION_NAME } from '../../shared/defaults';
import { openableUrl } from '../profiles/tabs';

export const bad = (message: string) => new ClawdError('bad_request', message);

/** A ref, written e12, @e12, ref=e12 or 12, as e12; undefined when it is not one. */
export function normalizeRef(raw: unknown): string | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const match = String(raw)
    .trim()
    .match(/^(?:@|ref=)?(e\d+|\d+)$/);
  if (!match) return undefined;
  return /^\d+$/.test(match[1]!) ? `e${match[1]}` : match[1];
}

/** A ref from the snapshot, normalised to e12 (a bare number, 12, too). */
export const ref = () =>
  z.preprocess(
    (raw) => (typeof raw === 'number' ? String(raw) : raw),
    z.string({ required_error: 'is required (a ref from the snapshot, like e12)' }).transform((raw, ctx) => {
      const normal = normalizeRef(raw);
      if (normal) return normal;
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(raw)} is not a ref: use one from the snapshot, like e12`,
      });
      return z.NEVER;
    }),
  );

/** A URL a tab may load: http(s) or about:blank, as the browser writes it. */
export const openUrl = () =>
  z.string({ required_error: 'is required, e.g. {"url": "https://example.com"}' }).transform((url, ctx) => {
    const checked = openableUrl(url);
    if ('href' in checked) return checked.href;
    ctx.addIssue({ code: 'custom', message: checked.problem });
    return z.NEVER;
  });

/** An integer within bounds (a query string's digits too, after coerce). */
export const intIn = (min: number, max: number) => {
  const message = `must be an integer from ${min} to ${max}`;
  return z.number({ invalid_type_error: message }).int(message).min(min, message).max(max, message);
};

/** A bound in milliseconds that is clamped, not refused: out-of-range values are brought in. */
export const clampedMs = (min: number, max: number, fallback: number) =>
  z
    .number({ invalid_type_error: 'must be a number of milliseconds' })
    .optional()
    .transform((ms) =>
      Math.min(max, Math.max(min, Math.round(ms === undefined || !Number.isFinite(ms) ? fallback : ms))),
    );

/** An action's bound: 0.5–60 s, default 8 s. */
const DEFAULT_TIMEOUT_MS = 8_000;
export const actionTimeout = (fallback = DEFAULT_TIMEOUT_MS) => clampedMs(500, 60_000, fallback);

/** A name for an agent session: a tab it changes is held for it. */
export const session = () => z.string().regex(SESSION_NAME, 'must be 1–64 letters, digits, ".", "_" or "-"').optional();

/** Text that must not be empty when given. */
export const text = () => z.string().min(1, 'must not be empty');

/** The base type of a field, under optional, default, nullable and transforms. */
function baseType(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap();
    else if (current instanceof z.ZodDefault) current = current.removeDefault();
    else if (current instanceof z.ZodEffects) current = current.innerType();
    else if (current instanceof z.ZodUnion) {
      // A union of a string and something else: the other one decides (e.g. amount: number | "page").
      const options = (current.options as z.ZodTypeAny[]).map(baseType);
      current = options.find((o) => !(o instanceof z.ZodString) && !(o instanceof z.ZodLiteral)) ?? options[0]!;
      return current;
    } else return current;
  }
}

/** The kind of value a field holds, as the doors that only carry strings need to know it. */
export type FieldKind = 'string' | 'number' | 'boolean' | 'list' | 'json';

export function fieldKind(schema: z.ZodTypeAny): FieldKind {
  const base = baseType(schema);
  if (base instanceof z.ZodNumber) return 'number';
  if (base instanceof z.ZodBoolean) return 'boolean';
  if (base instanceof z.ZodArray) return baseType(base.element) instanceof z.ZodObject ? 'json' : 'list';
  if (base instanceof z.ZodObject || base instanceof z.ZodRecord) return 'json';
  return 'string';
}

/** A query string's or a CLI flag's text as the field's type; left as it is when it does not read as one (the check then names it). */
function coerceText(kind: FieldKind, value: string): unknown {
  switch (kind) {
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      if (value === '' || value === '1' || value === 'true') return true;
      if (value === '0' || value === 'false') return false;
      return value;
    case 'list':
      return value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
    case 'json':
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}

/** Values that arrived as text (query string, CLI flags), typed by the schema's fields; others pass as they are. */
export function coerce(shape: z.ZodRawShape, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = shape[key];
    out[key] = field && typeof value === 'string' ? coerceText(fieldKind(field), value) : value;
  }
  return out;
}

/** What the field's value was, for "got …" in a message. */
function valueAt(input: unknown, path: Array<string | number>): unknown {
  let current = input;
  for (const key of path)
    current = current && typeof current === 'object' ? (current as Record<string | number, unknown>)[key] : undefined;
  return current;
}

function fieldPath(path: Array<string | number>): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
}

const EXPECTED: Record<string, string> = {
  boolean: 'true or false',
  number: 'a number',
  string: 'a string',
  array: 'a list',
  object: 'an object',
};

/** One issue as one sentence: the field, what it must be, what it was. */
function describeIssue(issue: z.ZodIssue, input: unknown): string {
  const field = fieldPath(issue.path);
  const got = valueAt(input, issue.path);
  const gotText = got === undefined ? '' : `, got ${JSON.stringify(got)}`;
  // A message may go on from the field with a colon ("url: javascript: URLs are refused").
  const lead = field === '' ? '' : issue.message.startsWith(':') ? field : `${field} `;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined')
        return `${lead}${issue.message === 'Required' ? 'is required' : issue.message}`;
      return `${lead}${issue.message.startsWith('Expected') ? `must be ${EXPECTED[issue.expected] ?? issue.expected}` : issue.message}${gotText}`;
    case 'invalid_enum_value':
      return `${lead}must be one of ${issue.options.join(', ')}${gotText}`;
    case 'invalid_literal':
      return `${lead}must be ${JSON.stringify(issue.expected)}${gotText}`;
    case 'unrecognized_keys':
      return `${lead}${issue.keys.length === 1 ? 'field' : 'fields'} ${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is' : 'are'} not known here`;
    case 'too_small':
    case 'too_big':
    case 'not_multiple_of':
    case 'invalid_string':
      return `${lead}${issue.message}${typeof got === 'object' ? '' : gotText}`;
    default:
      return `${lead}${issue.message}`;
  }
}

/** Checks `input` against the schema; a problem is one ClawdError 400 naming the field. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  // The first problem is enough to act on; the others often follow from it.
  throw bad(describeIssue(parsed.error.issues[0]!, input));
}
