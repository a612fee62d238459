// Filling a form in one call, all or nothing. Every field is checked against its element before
// any is touched — is it a field at all, does the value fit its kind (text, number, date and time,
// select option, checkbox, radio, editable area, ARIA combobox), is it enabled and editable — and
// a failure while filling puts back what the call had changed. Either way the error names the one
// field and why. Choosing an option works on a native <select> and on an ARIA combobox or listbox
// (by the option's accessible name, aria-options.ts), for `fill` and `select` alike.
// One file because the check, the fill and the put-back share each field's plan.

import type { Page } from 'playwright-core';
import { ClawdError, isClawdError } from '../../errors';
import type { FillField } from '../../operations/act-operations';
import { chooseOption } from './aria-options';
import type { ActTarget } from '../snapshots/snapshot-engine';

/** What the page says of an element, read before anything is changed. */
interface Inspected {
  tag: string;
  type: string;
  role: string;
  disabled: boolean;
  readOnly: boolean;
  editable: boolean;
  multiple: boolean;
  options?: Array<{ value: string; label: string }>;
  /** As it was: a text value, checked, or the selected values; put back if the call fails. */
  before: string | boolean | string[];
  /** A radio: the one of its group checked before (its index among the group), -1 for none. */
  groupBefore?: number;
}

type Kind = 'text' | 'number' | 'formatted' | 'check' | 'radio' | 'select' | 'option' | 'editable';

interface Planned {
  index: number;
  label: string;
  target: ActTarget;
  kind: Kind;
  /** What is set: text, checked, option values, or an option's name. */
  value: string | boolean | string[];
  inspected: Inspected;
}

/** Input types whose value has a fixed format, and that format. */
const FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  date: { pattern: /^\d{4}-\d{2}-\d{2}$/, example: '2026-11-25' },
  time: { pattern: /^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/, example: '14:30' },
  'datetime-local': { pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/, example: '2026-11-25T14:30' },
  month: { pattern: /^\d{4}-\d{2}$/, example: '2026-11' },
  week: { pattern: /^\d{4}-W\d{2}$/, example: '2026-W48' },
  color: { pattern: /^#[0-9a-fA-F]{6}$/, example: '#ff4500' },
  range: { pattern: /^-?\d+(\.\d+)?$/, example: '42' },
};
const TEXT_TYPES = new Set(['', 'text', 'email', 'password', 'search', 'tel', 'url']);
const CHECK_ROLES = new Set(['checkbox', 'switch', 'menuitemcheckbox']);
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const FIELD_KINDS =
  'text fields, textareas, selects, checkboxes, radios, date and time inputs, comboboxes and editable areas';

/** Runs in the page: what the element is, and its value now. */
function inspect(el: Element): Inspected {
  const tag = el.localName;
  const input = el as HTMLInputElement;
  const type = tag === 'input' ? input.type : '';
  const role = el.getAttribute('role') ?? '';
  const select = tag === 'select' ? (el as HTMLSelectElement) : undefined;
  const checkable = type === 'checkbox' || type === 'radio';
  let groupBefore: number | undefined;
  if (type === 'radio' && input.name) {
    const group = [
      ...(el.getRootNode() as Document).querySelectorAll(`input[type=radio][name="${CSS.escape(input.name)}"]`),
    ] as HTMLInputElement[];
    groupBefore = group.findIndex((r) => r.checked);
  }
  return {
    tag,
    type,
    role,
    disabled:
      (el as HTMLInputElement).disabled === true ||
      el.getAttribute('aria-disabled') === 'true' ||
      !!el.closest('fieldset:disabled'),
    readOnly: (el as HTMLInputElement).readOnly === true || el.getAttribute('aria-readonly') === 'true',
    editable: (el as HTMLElement).isContentEditable,
    multiple: select?.multiple ?? false,
    ...(select
      ? { options: [...select.options].map((o) => ({ value: o.value, label: (o.label || o.text).trim() })) }
      : {}),
    before: select
      ? [...select.selectedOptions].map((o) => o.value)
      : checkable
        ? input.checked
        : role === 'checkbox' || role === 'switch'
          ? el.getAttribute('aria-checked') === 'true'
          : 'value' in el
            ? String(input.value)
            : ((el as HTMLElement).innerText ?? ''),
    ...(groupBefore !== undefined ? { groupBefore } : {}),
  };
}

/** Runs in the page: puts an element's value back as `inspect` found it, telling the page it changed. */
function putBack(el: Element, was: Inspected): void {
  const input = el as HTMLInputElement;
  if (was.tag === 'select') {
    for (const option of (el as HTMLSelectElement).options)
      option.selected = (was.before as string[]).includes(option.value);
  } else if (was.type === 'radio') {
    const group = input.name
      ? ([
          ...(el.getRootNode() as Document).querySelectorAll(`input[type=radio][name="${CSS.escape(input.name)}"]`),
        ] as HTMLInputElement[])
      : [input];
    group.forEach((radio, i) => (radio.checked = i === was.groupBefore));
  } else if (was.type === 'checkbox') {
    input.checked = was.before as boolean;
  } else if ('value' in el) {
    input.value = was.before as string;
  } else if (was.editable) {
    (el as HTMLElement).innerText = was.before as string;
  }
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

const inPage = <A, R>(target: ActTarget, fn: (el: Element, arg: A) => R, arg: A): Promise<R> =>
  (target as unknown as { evaluate(f: typeof fn, a: A): Promise<R> }).evaluate(fn, arg);

/** The options a select has, as an agent would name them. */
const optionList = (options: Array<{ value: string; label: string }>) =>
  options
    .map((o) => (o.label === o.value ? JSON.stringify(o.label) : `${JSON.stringify(o.label)} (${o.value})`))
    .join(', ');

/** The select's option values a list of names means (value first, then label, then label ignoring case). */
export function matchOptions(
  options: Array<{ value: string; label: string }>,
  wanted: string[],
): { values: string[] } | { missing: string } {
  const values: string[] = [];
  for (const name of wanted) {
    const found =
      options.find((o) => o.value === name) ??
      options.find((o) => o.label === name) ??
      options.find((o) => o.label.toLowerCase() === name.toLowerCase());
    if (!found) return { missing: name };
    values.push(found.value);
  }
  return { values };
}

function asBoolean(value: FillField['value']): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return undefined;
}

/** Checks one field against its element: what will be set, or why it cannot be. */
function plan(index: number, label: string, target: ActTarget, field: FillField, was: Inspected): Planned {
  const refuse = (why: string) => new ClawdError('bad_request', why);
  const planned = (kind: Kind, value: Planned['value']): Planned => ({
    index,
    label,
    target,
    kind,
    value,
    inspected: was,
  });
  const { value } = field;
  if (was.disabled) throw refuse('it is disabled');
  const list = Array.isArray(value) ? value : undefined;
  const one = list === undefined && typeof value !== 'boolean' ? String(value) : undefined;
  if (was.tag === 'select') {
    const wanted = list ?? (one !== undefined ? [one] : undefined);
    if (!wanted) throw refuse('a select takes an option, by its value or label');
    if (wanted.length > 1 && !was.multiple) throw refuse('this select takes one option');
    const matched = matchOptions(was.options ?? [], wanted);
    if ('missing' in matched)
      throw refuse(
        `it has no option ${JSON.stringify(matched.missing)}; its options: ${optionList(was.options ?? [])}`,
      );
    return planned('select', matched.values);
  }
  if (was.type === 'checkbox' || (was.tag !== 'input' && CHECK_ROLES.has(was.role))) {
    const checked = asBoolean(value);
    if (checked === undefined) throw refuse('a checkbox takes true or false');
    return planned('check', checked);
  }
  if (was.type === 'radio' || (was.tag !== 'input' && was.role === 'radio')) {
    const checked = asBoolean(value);
    if (checked === undefined) throw refuse('a radio takes true (to choose it)');
    if (!checked) throw refuse('a radio cannot be unchecked: choose another of its group');
    return planned('radio', true);
  }
  if (was.type === 'file') throw refuse('a file input: use upload with the paths of the files');
  if (
    was.tag !== 'input' &&
    was.tag !== 'textarea' &&
    !was.editable &&
    (was.role === 'combobox' || was.role === 'listbox')
  ) {
    if (one === undefined) throw refuse(`a ${was.role} takes the name of one of its options`);
    return planned('option', one);
  }
  if (one === undefined)
    throw refuse(list ? 'it takes one value, not a list' : 'a text field takes a string, not true or false');
  const text = one;
  if (was.readOnly) throw refuse('it is read-only');
  if (was.tag === 'input' && FORMATS[was.type]) {
    const format = FORMATS[was.type]!;
    if (!format.pattern.test(text))
      throw refuse(`a ${was.type} input takes a value like ${format.example}, got ${JSON.stringify(text)}`);
    return planned('formatted', text);
  }
  if (was.tag === 'input' && was.type === 'number') {
    if (!NUMBER.test(text.trim())) throw refuse(`a number input takes a number, got ${JSON.stringify(text)}`);
    return planned('number', text.trim());
  }
  if ((was.tag === 'input' && TEXT_TYPES.has(was.type)) || was.tag === 'textarea') return planned('text', text);
  if (was.editable) return planned('editable', text);
  throw refuse(
    `it is not a field (${was.tag}${was.type ? ` type=${was.type}` : ''}${was.role ? ` role=${was.role}` : ''}): fill takes ${FIELD_KINDS}`,
  );
}

export interface FillContext {
  page: Page;
  resolve(ref: string): Promise<ActTarget>;
  /** How the answer names a ref: `e14 combobox "Color"` as the snapshot showed it. */
  describe(ref: string): string;
  /** The whole fill's bound (the call's timeoutMs): every field, and putting the earlier ones back. */
  timeout: number;
}

/**
 * What a fill keeps of its bound for putting back the fields filled before one that fails. The
 * fields share the rest: each waits only as long as the whole fill still may. (Each waiting the
 * whole bound, a field that fails late on a loaded machine answered the call's own timeout
 * instead of naming itself — and the put-back raced the answer.)
 */
const PUT_BACK_MS = 250;

/** Prefixes a failure with the field it is about, keeping its code. */
function about(label: string, error: unknown): ClawdError {
  if (isClawdError(error)) return new ClawdError(error.code, `${label}: ${error.message}`, { cause: error });
  return new ClawdError('action_failed', `${label}: ${(error as Error).message?.split('\n')[0] ?? String(error)}`, {
    cause: error,
  });
}

/** Fills every field, or none: checked first, put back on a failure. Answers how many. */
export async function fillForm(ctx: FillContext, fields: FillField[]): Promise<number> {
  const deadline = Date.now() + Math.max(1, ctx.timeout - PUT_BACK_MS);
  const plans: Planned[] = [];
  for (const [index, field] of fields.entries()) {
    const label = `fields[${index}] (${ctx.describe(field.ref)})`;
    try {
      const target = await ctx.resolve(field.ref);
      plans.push(plan(index, label, target, field, await inPage(target, inspect, undefined)));
    } catch (error) {
      throw new ClawdError(
        isClawdError(error) ? error.code : 'action_failed',
        `${about(label, error).message}; nothing was changed`,
      );
    }
  }
  const done: Planned[] = [];
  for (const step of plans) {
    try {
      await apply(ctx, step, Math.max(1, deadline - Date.now()));
      done.push(step);
    } catch (error) {
      const undone = await Promise.all(
        done.map((d) =>
          inPage(d.target, putBack, d.inspected).then(
            () => true,
            () => false,
          ),
        ),
      );
      const kept = undone.filter((ok) => !ok).length;
      const failed = about(step.label, error);
      throw new ClawdError(
        failed.code,
        `${failed.message}; ${done.length === 0 ? 'nothing was changed' : kept === 0 ? `the ${done.length} field(s) filled before it were put back` : `${kept} of the fields filled before it could not be put back`}`,
      );
    }
  }
  return plans.length;
}

async function apply(ctx: FillContext, step: Planned, timeout: number): Promise<void> {
  const { target, value } = step;
  switch (step.kind) {
    case 'select':
      await target.selectOption(value as string[], { timeout });
      return;
    case 'check':
      await target.setChecked(value as boolean, { timeout });
      return;
    case 'radio':
      await target.check({ timeout });
      return;
    case 'option':
      await chooseOption(ctx.page, target, value as string, timeout);
      return;
    default:
      await target.fill(value as string, { timeout });
  }
}

/** `select`: options of a native select (checked before anything is chosen), or one of an ARIA combobox or listbox. */
export async function selectOptions(
  page: Page,
  target: ActTarget,
  values: string[],
  timeout: number,
): Promise<string[]> {
  const was = await inPage(target, inspect, undefined);
  if (was.tag === 'select') {
    if (was.disabled) throw new ClawdError('not_interactable', 'the select is disabled');
    if (values.length > 1 && !was.multiple) throw new ClawdError('bad_request', 'this select takes one option');
    const matched = matchOptions(was.options ?? [], values);
    if ('missing' in matched)
      throw new ClawdError(
        'bad_request',
        `no option ${JSON.stringify(matched.missing)}; its options: ${optionList(was.options ?? [])}`,
      );
    return target.selectOption(matched.values, { timeout });
  }
  if (was.role === 'combobox' || was.role === 'listbox') {
    if (values.length !== 1) throw new ClawdError('bad_request', `a ${was.role} takes one option, by its name`);
    return [await chooseOption(page, target, values[0]!, timeout)];
  }
  throw new ClawdError(
    'bad_request',
    `not a select, combobox or listbox (${was.tag}${was.role ? ` role=${was.role}` : ''})`,
  );
}
