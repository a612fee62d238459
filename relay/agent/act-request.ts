// The shape of POST /act, checked before anything touches the page: an unknown kind, a missing
// ref or field of the wrong type is a 400 naming the field. Timeouts are clamped, not refused
// (0.5–60 s, default 8 s); `wait.timeMs` is capped at 30 s.

import { bad, bool, int, oneOf, refParam, sessionField, str } from './request-fields';

export const ACT_KINDS = ['click', 'type', 'press', 'hover', 'drag', 'select', 'fill', 'wait', 'resize', 'close', 'evaluate', 'scrollIntoView', 'scroll', 'focus'] as const;
export const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
export type ActKind = (typeof ACT_KINDS)[number];

const BUTTONS = ['left', 'right', 'middle'] as const;
const MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;
const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;

export interface FillField {
  ref: string;
  type?: string;
  value: string | number | boolean;
}

/** What the answer of an action carries of the page after it: what changed, or all of it. */
export const ACT_SNAPSHOTS = ['diff', 'full'] as const;

export type ActRequest = { targetId?: string; session?: string; timeoutMs: number; snapshot?: (typeof ACT_SNAPSHOTS)[number] } & (
  | { kind: 'click'; ref: string; doubleClick: boolean; button?: (typeof BUTTONS)[number]; modifiers?: Array<(typeof MODIFIERS)[number]> }
  | { kind: 'type'; ref: string; text: string; submit: boolean; slowly: boolean }
  | { kind: 'press'; key: string; ref?: string }
  | { kind: 'hover' | 'scrollIntoView' | 'focus'; ref: string }
  | { kind: 'scroll'; direction: (typeof SCROLL_DIRECTIONS)[number]; amount: number | 'page'; ref?: string }
  | { kind: 'drag'; startRef: string; endRef: string }
  | { kind: 'select'; ref: string; values: string[] }
  | { kind: 'fill'; fields: FillField[] }
  | { kind: 'wait'; timeMs?: number; text?: string; textGone?: string; selector?: string; url?: string; loadState?: (typeof LOAD_STATES)[number]; fn?: string }
  | { kind: 'resize'; width: number; height: number }
  | { kind: 'close' }
  | { kind: 'evaluate'; fn: string; ref?: string }
);

export const DEFAULT_TIMEOUT_MS = 8_000;
export const MAX_WAIT_MS = 30_000;

export function clampTimeout(value: unknown, fallback = DEFAULT_TIMEOUT_MS): number {
  const ms = typeof value === 'number' && Number.isFinite(value) ? value : fallback;
  return Math.min(60_000, Math.max(500, Math.round(ms)));
}

export function parseAct(body: Record<string, unknown>): ActRequest {
  const kind = body.kind;
  if (typeof kind !== 'string' || !(ACT_KINDS as readonly string[]).includes(kind)) {
    throw bad(`kind ${kind === undefined ? 'is required' : `${JSON.stringify(kind)} is unknown`}: use one of ${ACT_KINDS.join(', ')}`);
  }
  const snapshot = oneOf(body, 'snapshot', ACT_SNAPSHOTS);
  const session = sessionField(body);
  const base = { ...(str(body, 'targetId') ? { targetId: str(body, 'targetId')! } : {}), ...(session ? { session } : {}), timeoutMs: clampTimeout(body.timeoutMs), ...(snapshot ? { snapshot } : {}) };
  switch (kind as ActKind) {
    case 'click': {
      const modifiers = body.modifiers;
      if (modifiers !== undefined && (!Array.isArray(modifiers) || !modifiers.every((m) => (MODIFIERS as readonly unknown[]).includes(m)))) {
        throw bad(`modifiers must be a list of ${MODIFIERS.join(', ')}, got ${JSON.stringify(modifiers)}`);
      }
      const button = oneOf(body, 'button', BUTTONS);
      return { ...base, kind: 'click', ref: refParam(body.ref), doubleClick: bool(body, 'doubleClick'), ...(button ? { button } : {}), ...(modifiers ? { modifiers: modifiers as Array<(typeof MODIFIERS)[number]> } : {}) };
    }
    case 'type':
      return { ...base, kind: 'type', ref: refParam(body.ref), text: str(body, 'text') ?? (() => { throw bad('text is required'); })(), submit: bool(body, 'submit'), slowly: bool(body, 'slowly') };
    case 'press':
      return { ...base, kind: 'press', key: str(body, 'key', true), ...(body.ref !== undefined ? { ref: refParam(body.ref) } : {}) };
    case 'hover':
    case 'scrollIntoView':
    case 'focus':
      return { ...base, kind: kind as 'hover' | 'scrollIntoView' | 'focus', ref: refParam(body.ref) };
    case 'scroll': {
      const direction = oneOf(body, 'direction', SCROLL_DIRECTIONS);
      if (!direction) throw bad('direction is required: up, down, left or right');
      const amount = body.amount === undefined || body.amount === 'page' ? 'page' : int(body, 'amount', 1, 100_000);
      return { ...base, kind: 'scroll', direction, amount, ...(body.ref !== undefined ? { ref: refParam(body.ref) } : {}) };
    }
    case 'drag':
      return { ...base, kind: 'drag', startRef: refParam(body.startRef, 'startRef'), endRef: refParam(body.endRef, 'endRef') };
    case 'select': {
      const values = body.values ?? (typeof body.value === 'string' ? [body.value] : undefined);
      if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) throw bad(`values must be a non-empty list of option values or labels, got ${JSON.stringify(values)}`);
      return { ...base, kind: 'select', ref: refParam(body.ref), values: values as string[] };
    }
    case 'fill': {
      const fields = body.fields;
      if (!Array.isArray(fields) || fields.length === 0) throw bad('fields must be a non-empty list of { ref, value, type? }');
      return {
        ...base,
        kind: 'fill',
        fields: fields.map((f: unknown, i) => {
          if (typeof f !== 'object' || f === null) throw bad(`fields[${i}] must be { ref, value, type? }`);
          const field = f as Record<string, unknown>;
          const value = field.value;
          if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw bad(`fields[${i}].value must be a string, number or boolean`);
          const type = str(field, 'type');
          return { ref: refParam(field.ref, `fields[${i}].ref`), value, ...(type ? { type } : {}) };
        }),
      };
    }
    case 'wait': {
      const timeMs = body.timeMs;
      if (timeMs !== undefined && (typeof timeMs !== 'number' || timeMs < 0)) throw bad(`timeMs must be a number of milliseconds, got ${JSON.stringify(timeMs)}`);
      const request = {
        ...base,
        kind: 'wait' as const,
        ...(timeMs !== undefined ? { timeMs: Math.min(MAX_WAIT_MS, timeMs as number) } : {}),
        ...(str(body, 'text') !== undefined ? { text: str(body, 'text')! } : {}),
        ...(str(body, 'textGone') !== undefined ? { textGone: str(body, 'textGone')! } : {}),
        ...(str(body, 'selector') !== undefined ? { selector: str(body, 'selector')! } : {}),
        ...(str(body, 'url') !== undefined ? { url: str(body, 'url')! } : {}),
        ...(oneOf(body, 'loadState', LOAD_STATES) ? { loadState: oneOf(body, 'loadState', LOAD_STATES)! } : {}),
        ...(str(body, 'fn') !== undefined ? { fn: str(body, 'fn')! } : {}),
      };
      if (Object.keys(request).length === Object.keys(base).length + 1) throw bad('wait needs one of timeMs, text, textGone, selector, url, loadState, fn');
      return request;
    }
    case 'resize':
      return { ...base, kind: 'resize', width: int(body, 'width', 100, 10_000), height: int(body, 'height', 100, 10_000) };
    case 'close':
      return { ...base, kind: 'close' };
    case 'evaluate':
      return { ...base, kind: 'evaluate', fn: str(body, 'fn', true), ...(body.ref !== undefined ? { ref: refParam(body.ref) } : {}) };
  }
}

/** Does this source text define a function (rather than being an expression)? */
export function isFunctionSource(source: string): boolean {
  return /^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/.test(source);
}
