// The actions on the page as a whole, kinds of `POST /act` that need no element (or take one only
// as a place): wait, resize, close, evaluate, scroll. The element actions are act-operations.ts,
// which lists every kind. Long because each definition holds its own help text beside its schema.

import { z } from 'zod';
import { answer, type ActResult } from './act-result';
import { bad, intIn, ref, text } from './fields';
import { pageWords } from './page-fence';
import { operation } from './operation';
import { actFields } from './shared-fields';

const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;
/** `wait`'s own pause, at most. */
const MAX_WAIT_MS = 30_000;

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
