// The agent API's requests other than /act (see act-request.ts), parsed into types at the edge:
// a query string or JSON body goes in, a typed request comes out or a 400 naming the field. The
// agent service takes only these types, so any door (HTTP today, MCP and the CLI next) hands it
// the same thing. Checks against the world (does that file exist?) happen later, in the service.

import path from 'node:path';
import { checkOpenUrl } from '../profiles/tabs';
import { MAX_HANDOFF_WAIT_MS } from './tab-control';
import { clampTimeout } from './act-request';
import { bad, bool, count, flag, refParam, sessionField, str, type Fields } from './request-fields';

export const SNAPSHOT_FORMATS = ['agent', 'ai', 'role', 'aria'] as const;
/** A snapshot's bound unless the request sets one: generous, a long article takes a while. */
export const SNAPSHOT_TIMEOUT_MS = 30_000;
export type SnapshotFormat = (typeof SNAPSHOT_FORMATS)[number];
export const CONSOLE_LEVELS = ['debug', 'info', 'log', 'warning', 'error'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

/** Every agent request may name the tab (default: the profile's last-used tab) and the agent session making it. */
export interface TabRequest {
  targetId?: string;
  /** The agent session (X-Clawd-Session or `session`): a tab it changes is held for it. */
  session?: string;
}

export interface SnapshotRequest extends TabRequest {
  format: SnapshotFormat;
  interactive: boolean;
  compact: boolean;
  depth?: number;
  limit?: number;
  maxChars?: number;
  /** Only the part of the page under this CSS selector. */
  selector?: string;
  /** Only the contents of this iframe (the ref of an iframe in the tab's last snapshot). */
  frame?: string;
  /** `agent` format: only what follows this ref's line (the continuation of a cut snapshot). */
  after?: string;
  /** `agent` format: only what changed since that snapshot of this tab (its `id`). */
  since?: string;
  /** The whole snapshot's bound (default 30 s). */
  timeoutMs: number;
}

export interface ScreenshotRequest extends TabRequest {
  type: 'png' | 'jpeg';
  fullPage: boolean;
  /** Each ref of the last snapshot drawn on, for the shot. */
  labels: boolean;
  /** One element: by ref, or by CSS selector. */
  ref?: string;
  element?: string;
}

export interface NavigateRequest extends TabRequest {
  url: string;
  timeoutMs: number;
}

export interface ConsoleRequest extends TabRequest {
  level: ConsoleLevel;
}

export type PdfRequest = TabRequest;

/** What every hook request carries: how long it stays armed, and optionally the ref to click. */
export interface HookRequest extends TabRequest {
  timeoutMs: number;
  ref?: string;
  clickTimeoutMs: number;
}

export interface FileChooserRequest extends HookRequest {
  /** Absolute paths. */
  paths: string[];
}

export interface DialogRequest extends HookRequest {
  accept: boolean;
  promptText?: string;
}

function tab(fields: Fields): TabRequest {
  const targetId = str(fields, 'targetId');
  const session = sessionField(fields);
  return { ...(targetId ? { targetId } : {}), ...(session ? { session } : {}) };
}

function optionalRef(fields: Fields): { ref?: string } {
  return fields.ref === undefined || fields.ref === null ? {} : { ref: refParam(fields.ref) };
}

export function parseSnapshot(fields: Fields): SnapshotRequest {
  const format = fields.format === undefined || fields.format === '' ? 'agent' : fields.format;
  if (!SNAPSHOT_FORMATS.includes(format as SnapshotFormat)) throw bad(`format must be agent, ai, role or aria, got ${JSON.stringify(format)}`);
  const after = fields.after === undefined || fields.after === '' ? undefined : refParam(fields.after, 'after');
  if (after !== undefined && format !== 'agent') throw bad('after works with the agent format (the default)');
  const since = fields.since === undefined || fields.since === '' ? undefined : fields.since;
  if (since !== undefined && (typeof since !== 'string' || !/^s\d+$/.test(since))) throw bad(`since must be the id of an earlier snapshot, like s12, got ${JSON.stringify(since)}`);
  if (since !== undefined && format !== 'agent') throw bad('since works with the agent format (the default)');
  const depth = count(fields, 'depth', 0, 1_000);
  const limit = count(fields, 'limit', 1, 100_000);
  const maxChars = count(fields, 'maxChars', 100, 10_000_000);
  const selector = str(fields, 'selector');
  const frame = str(fields, 'frame');
  return {
    ...tab(fields),
    format: format as SnapshotFormat,
    interactive: flag(fields, 'interactive'),
    compact: flag(fields, 'compact'),
    ...(depth !== undefined ? { depth } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(maxChars !== undefined ? { maxChars } : {}),
    ...(selector ? { selector } : {}),
    ...(frame !== undefined ? { frame } : {}),
    ...(after !== undefined ? { after } : {}),
    ...(since !== undefined ? { since } : {}),
    timeoutMs: count(fields, 'timeoutMs', 500, 60_000) ?? SNAPSHOT_TIMEOUT_MS,
  };
}

export function parseScreenshot(fields: Fields): ScreenshotRequest {
  const type = fields.type ?? 'png';
  if (type !== 'png' && type !== 'jpeg') throw bad(`type must be png or jpeg, got ${JSON.stringify(type)}`);
  if (fields.element !== undefined && typeof fields.element !== 'string') throw bad('element must be a CSS selector');
  return {
    ...tab(fields),
    type,
    fullPage: bool(fields, 'fullPage'),
    labels: bool(fields, 'labels'),
    ...optionalRef(fields),
    ...(typeof fields.element === 'string' ? { element: fields.element } : {}),
  };
}

export function parseNavigate(fields: Fields): NavigateRequest {
  return { ...tab(fields), url: checkOpenUrl(fields.url), timeoutMs: clampTimeout(fields.timeoutMs, 20_000) };
}

export const CONTENT_FORMATS = ['markdown', 'text', 'html'] as const;

export interface ContentRequest extends TabRequest {
  format: (typeof CONTENT_FORMATS)[number];
  selector?: string;
  maxChars: number;
  timeoutMs: number;
}

export function parseContent(fields: Fields): ContentRequest {
  const format = fields.format === undefined || fields.format === '' ? 'markdown' : fields.format;
  if (!CONTENT_FORMATS.includes(format as 'markdown')) throw bad(`format must be markdown, text or html, got ${JSON.stringify(format)}`);
  const selector = str(fields, 'selector');
  return {
    ...tab(fields),
    format: format as 'markdown',
    ...(selector ? { selector } : {}),
    maxChars: count(fields, 'maxChars', 100, 10_000_000) ?? 40_000,
    timeoutMs: count(fields, 'timeoutMs', 500, 60_000) ?? SNAPSHOT_TIMEOUT_MS,
  };
}

export function parseConsole(fields: Fields): ConsoleRequest {
  const level = fields.level ?? 'debug';
  if (!CONSOLE_LEVELS.includes(level as ConsoleLevel)) throw bad(`level must be debug, info, warning or error, got ${JSON.stringify(level)}`);
  return { ...tab(fields), level: level as ConsoleLevel };
}

export function parsePdf(fields: Fields): PdfRequest {
  return tab(fields);
}

/** How long a hook stays armed: 2 minutes by default and at most, half a second at least. */
export const MAX_ARM_MS = 120_000;

export function armTimeout(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(MAX_ARM_MS, Math.max(500, Math.round(value))) : MAX_ARM_MS;
}

function hook(fields: Fields): HookRequest {
  return { ...tab(fields), timeoutMs: armTimeout(fields.timeoutMs), clickTimeoutMs: clampTimeout(fields.clickTimeoutMs), ...optionalRef(fields) };
}

export function parseFileChooser(fields: Fields): FileChooserRequest {
  const paths = fields.paths;
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string' && p !== '')) {
    throw bad('paths must be a non-empty list of file paths');
  }
  return { ...hook(fields), paths: paths.map((p) => path.resolve(p as string)) };
}

export function parseDownload(fields: Fields): HookRequest {
  return hook(fields);
}

export function parseDialog(fields: Fields): DialogRequest {
  if (typeof fields.accept !== 'boolean') throw bad('accept must be true or false');
  const promptText = fields.promptText;
  if (promptText !== undefined && typeof promptText !== 'string') throw bad('promptText must be a string');
  return { ...hook(fields), accept: fields.accept, ...(promptText !== undefined ? { promptText } : {}) };
}

export interface HandoffRequest extends TabRequest {
  /** What the person should do, shown to them. */
  reason: string;
  /** The hand-over ends by itself after this long. */
  timeoutMs?: number;
}

export interface HandoffWaitRequest extends TabRequest {
  timeoutMs: number;
}

export function parseHandoff(fields: Fields): HandoffRequest {
  const timeoutMs = count(fields, 'timeoutMs', 1_000, MAX_HANDOFF_WAIT_MS);
  return { ...tab(fields), reason: str(fields, 'reason', true), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

export function parseHandoffWait(fields: Fields): HandoffWaitRequest {
  return { ...tab(fields), timeoutMs: count(fields, 'timeoutMs', 0, MAX_HANDOFF_WAIT_MS) ?? MAX_HANDOFF_WAIT_MS };
}

export function parseTab(fields: Fields): TabRequest {
  return tab(fields);
}
