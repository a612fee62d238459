// The actions on a page, one operation per kind of `POST /act`: click, type, press, hover,
// scrollIntoView, drag, select, fill, wait, resize, close, evaluate, scroll, focus. Every
// element comes by a ref from the snapshot. Over MCP they are one tool, `act`, chosen by `kind`.
// Long because each definition holds its own help text, kept beside its schema on purpose.

import { z } from 'zod';
import { bad, intIn, ref, text } from './fields';
import { pageTitle, pageWords } from './page-fence';
import { operation, type Operation } from './operation';
import { pageName, snapshotText, type SnapshotResult } from './page-operations';
import { actFields } from './shared-fields';

const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
const BUTTONS = ['left', 'right', 'middle'] as const;
const MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;
const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;
/** `wait`'s own pause, at most. */
const MAX_WAIT_MS = 30_000;

export interface ScrollPosition {
  x: number;
  y: number;
  maxX: number;
  maxY: number;
  /** Reached the end in the direction scrolled. */
  atEnd: boolean;
}

export interface ActResult {
  ok: true;
  kind: string;
  targetId: string;
  /** null when the action closed the page. */
  url: string | null;
  /** With `snapshot`, or when the action loaded another page: the page's title then. */
  title?: string;
  /** The action loaded another document in the tab (a submit, a link). */
  navigated?: true;
  /** With navigated: the URL the tab was on before. */
  from?: string;
  /** With navigated and no `snapshot`: what the new page says (status and alert messages, refused fields), as snapshot lines. */
  messages?: string[];
  /** The bound the action ran under (after clamping). */
  timeoutMs: number;
  /** With `snapshot`: the page as the action left it. */
  snapshot?: Omit<SnapshotResult, 'targetId' | 'url' | 'title'>;
  scroll?: ScrollPosition;
  selected?: string[];
  filled?: number;
  viewport?: { width: number; height: number };
  /** evaluate: what the function returned. */
  result?: unknown;
}

/** The line an action answers, then the page after it when asked for. */
const answer =
  <I>(line: (result: ActResult, input: I) => string) =>
  (result: ActResult, input: I): string => {
    // Where the action led, in a line, when it loaded another page; then the view asked for.
    const said = [line(result, input)];
    if (result.navigated)
      said.push(
        `now on: ${pageTitle(pageName(result.title, result.url && result.from ? urlFrom(result.from, result.url) : result.url) || (result.url ?? ''))}`,
        ...(result.messages?.length ? [pageWords(result.messages.join('\n'))] : []),
      );
    if (result.snapshot) said.push(snapshotText(result.snapshot, false));
    return said.join('\n');
  };

/**
 * Where a page is, said from where the agent was: nothing when it is the same URL (a form posted
 * back), its path on the same site, the whole URL elsewhere.
 */
export function urlFrom(from: string, to: string): string {
  if (from === to) return '';
  try {
    const [a, b] = [new URL(from), new URL(to)];
    return a.origin === b.origin && a.origin !== 'null' ? `${b.pathname}${b.search}${b.hash}` : to;
  } catch {
    return to;
  }
}

const on = (field: string, value = 'REF') => ({ field, value });

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
  gate: { changes: true, touches: (i) => ({ refs: [i.ref], sends: 'click' }) },
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
    touches: (i) => ({ refs: [i.ref], ...(i.submit || i.text.includes('\n') ? { sends: 'enter' as const } : {}) }),
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
  gate: { changes: true, touches: (i) => ({ refs: i.ref ? [i.ref] : [], ...keySends(i.key) }) },
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
  gate: { changes: true, touches: (i) => ({ refs: i.fields.map((f) => f.ref) }) },
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

export const wait = operation<ActResult>()({
  name: 'wait',
  summary: 'wait for text to appear or go, an element, a URL, a load state, a function, or a time',
  input: z.object({
    kind: z.literal('wait'),
    ...actFields,
    text: z.string().optional().describe('until this text is visible'),
    textGone: z.string().optional().describe('until this text is gone'),
    selector: z.string().optional().describe('until an element matches this CSS selector'),
    url: z.string().optional().describe('until the URL matches (a glob)'),
    loadState: z.enum(LOAD_STATES).optional().describe('until this load state'),
    fn: z.string().optional().describe('until this function returns something truthy'),
    timeMs: z
      .number()
      .min(0, 'must be a number of milliseconds')
      .transform((ms) => Math.min(MAX_WAIT_MS, ms))
      .optional()
      .describe('a pause, at most 30 s'),
  }),
  check(input) {
    const { text: t, textGone, selector, url, loadState, fn, timeMs } = input;
    if ([t, textGone, selector, url, loadState, fn, timeMs].every((v) => v === undefined))
      throw bad('wait needs one of timeMs, text, textGone, selector, url, loadState, fn');
  },
  http: { method: 'POST', path: '/act', kind: 'wait' },
  logged: true,
  gate: { changes: true, asksFor: (i) => (i.fn !== undefined ? ['evaluate'] : []) },
  cli: {
    group: 'agent',
    flags: {
      text: { value: 'T' },
      textGone: { value: 'T' },
      selector: { value: 'CSS' },
      url: { value: 'U' },
      loadState: { value: 'S' },
      fn: { value: 'F' },
      timeMs: { flag: 'time', value: 'MS' },
    },
  },
  mcp: { tool: 'act', as: 'wait' },
  example: { kind: 'wait', text: 'Saved' },
  text: answer(() => 'done'),
});

export const resize = operation<ActResult>()({
  name: 'resize',
  summary: "set the viewport's size",
  input: z.object({ kind: z.literal('resize'), ...actFields, width: intIn(100, 10_000), height: intIn(100, 10_000) }),
  http: { method: 'POST', path: '/act', kind: 'resize' },
  logged: true,
  gate: { changes: true },
  cli: {
    group: 'agent',
    args: [
      { field: 'width', value: 'WIDTH' },
      { field: 'height', value: 'HEIGHT' },
    ],
  },
  mcp: { tool: 'act', as: 'resize' },
  example: { kind: 'resize', width: 1280, height: 800 },
  text: answer((_r, i) => `viewport ${i.width}×${i.height}`),
});

export const close = operation<ActResult>()({
  name: 'close',
  summary: 'close the tab (the same as closing it from the tab list)',
  input: z.object({ kind: z.literal('close'), ...actFields }),
  http: { method: 'POST', path: '/act', kind: 'close' },
  logged: true,
  gate: { changes: true },
  cli: { group: 'agent', name: 'close-page' },
  mcp: { tool: 'act', as: 'close' },
  example: { kind: 'close' },
  text: answer((r) => `closed ${r.targetId}`),
});

export const evaluate = operation<ActResult>()({
  name: 'evaluate',
  summary:
    'run a JavaScript function in the page (or on an element by ref) and answer its result; for what a snapshot does not show',
  input: z.object({
    kind: z.literal('evaluate'),
    ...actFields,
    fn: text().describe('a function, e.g. "() => document.title" or "(el) => el.href"'),
    ref: ref().optional().describe('the element passed to the function'),
  }),
  http: { method: 'POST', path: '/act', kind: 'evaluate' },
  logged: true,
  gate: { changes: true, asks: ['evaluate'] },
  cli: { group: 'agent', flags: { fn: { value: 'F' }, ref: { value: 'REF' } } },
  mcp: { tool: 'act', as: 'evaluate' },
  example: { kind: 'evaluate', fn: '() => document.title' },
  text: answer((r) => pageWords(JSON.stringify(r.result ?? null))),
});

export const scroll = operation<ActResult>()({
  name: 'scroll',
  summary: "scroll the page, or an element's scrollable container; says where it is and whether it reached the end",
  input: z.object({
    kind: z.literal('scroll'),
    ...actFields,
    direction: z.enum(SCROLL_DIRECTIONS),
    amount: z
      .union([intIn(1, 100_000), z.literal('page')])
      .default('page')
      .describe('pixels, or "page" (the default)'),
    ref: ref().optional().describe('scroll the container of this element'),
  }),
  http: { method: 'POST', path: '/act', kind: 'scroll' },
  logged: true,
  gate: { changes: true },
  cli: {
    group: 'agent',
    args: [{ field: 'direction', value: 'up|down|left|right' }],
    flags: { amount: { value: 'N' }, ref: { value: 'REF' } },
  },
  mcp: { tool: 'act', as: 'scroll' },
  example: { kind: 'scroll', direction: 'down' },
  text: answer((r) => (r.scroll ? `at ${r.scroll.x},${r.scroll.y}${r.scroll.atEnd ? ' (the end)' : ''}` : 'scrolled')),
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
