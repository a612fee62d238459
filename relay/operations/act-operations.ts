// The actions on a page's elements, one operation per kind of `POST /act`: click, type, press,
// hover, scrollIntoView, drag, select, fill, focus (the page's own, wait to scroll, are in
// page-act-operations.ts); every kind is listed here. Every element comes by a ref from the
// snapshot. Over MCP they are one tool, `act`, chosen by `kind`. Long because each definition
// holds its own help text, kept beside its schema on purpose.

import { z } from 'zod';
import { answer, on, type ActResult } from './act-result';
import { bad, ref, text } from './fields';
import { operation, type Operation } from './operation';
import { close, evaluate, resize, scroll, wait } from './page-act-operations';
import { actFields } from './shared-fields';

export type { ActResult } from './act-result';

const BUTTONS = ['left', 'right', 'middle'] as const;
const MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;

/** How a key may send a form: Enter in a field (with modifiers too), Space on a submit button (as a click). */
function keySends(key: string): { sends?: 'click' | 'enter' } {
  const last = key.split('+').pop() ?? key;
  if (last === 'Enter' || last === 'NumpadEnter') return { sends: 'enter' };
  if (last === ' ' || last === 'Space') return { sends: 'click' };
  return {};
}

export const click = operation<ActResult>()({
  name: 'click',
  summary: 'click an element by its ref',
  input: z.object({
    kind: z.literal('click'),
    ...actFields,
    ref: ref(),
    doubleClick: z.boolean().default(false).describe('a double click'),
    button: z.enum(BUTTONS).optional().describe('default left'),
    modifiers: z.array(z.enum(MODIFIERS)).optional().describe('keys held'),
  }),
  http: { method: 'POST', path: '/act', kind: 'click' },
  logged: true,
  gate: { changes: true, touches: () => ({ sends: 'click' }) },
  cli: {
    group: 'agent',
    args: [on('ref')],
    flags: { doubleClick: { flag: 'double' }, button: { value: 'B' }, modifiers: { value: 'KEYS' } },
  },
  mcp: { tool: 'act', as: 'click' },
  example: { kind: 'click', ref: 'e12' },
  text: answer((_r, i) => `clicked ${i.ref}`),
});

export const type = operation<ActResult>()({
  name: 'type',
  summary: 'type text into a field by its ref, replacing what is there (slowly: key by key, appending)',
  input: z.object({
    kind: z.literal('type'),
    ...actFields,
    ref: ref(),
    text: z.string({ required_error: 'is required' }).describe('the text'),
    submit: z.boolean().default(false).describe('press Enter afterwards'),
    slowly: z.boolean().default(false).describe('one key at a time, as a person types'),
  }),
  http: { method: 'POST', path: '/act', kind: 'type' },
  logged: true,
  gate: {
    changes: true,
    touches: (i) => (i.submit || i.text.includes('\n') ? { sends: 'enter' } : {}),
  },
  cli: { group: 'agent', args: [on('ref'), { field: 'text', value: 'TEXT', rest: true }] },
  mcp: { tool: 'act', as: 'type' },
  example: { kind: 'type', ref: 'e3', text: 'Ada', submit: true },
  text: answer((_r, i) => `typed into ${i.ref}`),
});

export const press = operation<ActResult>()({
  name: 'press',
  summary: 'press a key (Enter, Escape, ArrowDown, a…), on an element by ref or on the page',
  input: z.object({
    kind: z.literal('press'),
    ...actFields,
    key: text().describe('the key, as Playwright names it'),
    ref: ref().optional().describe('the element that gets the key'),
  }),
  http: { method: 'POST', path: '/act', kind: 'press' },
  logged: true,
  gate: { changes: true, touches: (i) => keySends(i.key) },
  cli: { group: 'agent', args: [{ field: 'key', value: 'KEY' }], flags: { ref: { value: 'REF' } } },
  mcp: { tool: 'act', as: 'press' },
  example: { kind: 'press', key: 'Enter' },
  text: answer((_r, i) => `pressed ${i.key}`),
});

export const hover = operation<ActResult>()({
  name: 'hover',
  summary: 'move the mouse over an element by its ref',
  input: z.object({ kind: z.literal('hover'), ...actFields, ref: ref() }),
  http: { method: 'POST', path: '/act', kind: 'hover' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', args: [on('ref')] },
  mcp: { tool: 'act', as: 'hover' },
  example: { kind: 'hover', ref: 'e5' },
  text: answer((_r, i) => `hovering ${i.ref}`),
});

export const scrollIntoView = operation<ActResult>()({
  name: 'scrollIntoView',
  summary: 'scroll until an element is in view',
  input: z.object({ kind: z.literal('scrollIntoView'), ...actFields, ref: ref() }),
  http: { method: 'POST', path: '/act', kind: 'scrollIntoView' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', name: 'scroll-into-view', args: [on('ref')] },
  mcp: { tool: 'act', as: 'scrollIntoView' },
  example: { kind: 'scrollIntoView', ref: 'e40' },
  text: answer((_r, i) => `scrolled ${i.ref} into view`),
});

export const drag = operation<ActResult>()({
  name: 'drag',
  summary: 'drag one element onto another, by refs',
  input: z.object({ kind: z.literal('drag'), ...actFields, startRef: ref(), endRef: ref() }),
  http: { method: 'POST', path: '/act', kind: 'drag' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', args: [on('startRef', 'START_REF'), on('endRef', 'END_REF')] },
  mcp: { tool: 'act', as: 'drag' },
  example: { kind: 'drag', startRef: 'e4', endRef: 'e9' },
  text: answer((_r, i) => `dragged ${i.startRef} onto ${i.endRef}`),
});

export const select = operation<ActResult>()({
  name: 'select',
  summary: 'choose options of a select by value or label, or an option of an ARIA combobox or listbox by its name',
  input: z.object({
    kind: z.literal('select'),
    ...actFields,
    ref: ref(),
    values: z.array(z.string()).min(1, 'must name at least one option').describe('option values or labels'),
  }),
  http: { method: 'POST', path: '/act', kind: 'select' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', args: [on('ref'), { field: 'values', value: 'VALUE', rest: true }] },
  mcp: { tool: 'act', as: 'select' },
  example: { kind: 'select', ref: 'e7', values: ['green'] },
  text: answer((r) => `selected ${(r.selected ?? []).join(', ')}`),
});

const fillField = z.object({
  ref: ref(),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())], {
    errorMap: () => ({ message: 'must be a string, number, boolean or a list of option names' }),
  }),
  /** Accepted for callers used to other tools' form fillers; the element itself says what it is. */
  type: z.string().optional(),
});
export type FillField = z.output<typeof fillField>;

export const fill = operation<ActResult>()({
  name: 'fill',
  summary:
    'fill a form in one call: text, number, date and time fields and editable areas by string, selects and comboboxes by option value or name, checkboxes and radios by true/false; all or nothing',
  details:
    'Every field is checked before any is changed (its kind, the value fitting it, a select having the option, enabled and editable); if one fails while filling, the ones filled before it are put back. The error names the field (fields[2] (e14 combobox "Color")) and why.',
  input: z.object({
    kind: z.literal('fill'),
    ...actFields,
    fields: z.array(fillField).min(1, 'must list at least one { ref, value }').describe('[{ref, value}]'),
  }),
  http: { method: 'POST', path: '/act', kind: 'fill' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', flags: { fields: { value: 'JSON' } } },
  mcp: { tool: 'act', as: 'fill' },
  example: {
    kind: 'fill',
    fields: [
      { ref: 'e1', value: 'Ada' },
      { ref: 'e2', value: true },
      { ref: 'e3', value: 'Green' },
    ],
  },
  text: answer((r) => `filled ${r.filled ?? 0} field(s)`),
});

export const focus = operation<ActResult>()({
  name: 'focus',
  summary: 'focus an element by its ref, without clicking it',
  input: z.object({ kind: z.literal('focus'), ...actFields, ref: ref() }),
  http: { method: 'POST', path: '/act', kind: 'focus' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', name: 'focus-ref', args: [on('ref')] },
  mcp: { tool: 'act', as: 'focus' },
  example: { kind: 'focus', ref: 'e8' },
  text: answer((_r, i) => `focused ${i.ref}`),
});

export const ACT_OPERATIONS = [
  click,
  type,
  press,
  hover,
  scrollIntoView,
  drag,
  select,
  fill,
  wait,
  resize,
  close,
  evaluate,
  scroll,
  focus,
] as const;
export const ACT_KINDS = ACT_OPERATIONS.map((o) => o.name);

/** A checked action of any kind (what actions.ts carries out). */
export type ActRequest = z.output<(typeof ACT_OPERATIONS)[number]['input']>;
export type ActKind = ActRequest['kind'];

/** The act operation of a kind, or a 400 listing the kinds. */
export function actOperation(kind: unknown): Operation {
  const found = ACT_OPERATIONS.find((o) => o.name === kind);
  if (found) return found as unknown as Operation;
  throw bad(
    `kind ${kind === undefined ? 'is required' : `${JSON.stringify(kind)} is unknown`}: use one of ${ACT_KINDS.join(', ')}`,
  );
}
