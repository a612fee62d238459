// A walk's result as it crosses from the page to the relay: one string of tab-separated lines,
// not JSON. It travels inside a CDP message (JSON again) through the browser, the relay's mux
// and Playwright, where every quote of JSON inside JSON is escaped once more: for the 5k page of
// the bench, 525k characters on the wire as JSON, 340k so. Part of the walker bundle and read by
// the agent engine; no DOM here.

import type { WalkLine, WalkResult } from './walker-types';

/**
 * Line kinds: the header (next ref, nothing matched, the walk's id, the document's title), a line
 * of the snapshot, a run of lines copied from the walk before.
 */
const HEAD = 'H';
const LINE = 'L';
const COPY = 'C';

/** A field may hold anything a page wrote: its tabs, newlines and backslashes are escaped. */
const SPECIAL = /[\\\t\n]/;
const escape = (text: string): string =>
  SPECIAL.test(text) ? text.replace(/[\\\t\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : '\\n')) : text;
const unescape = (text: string): string =>
  text.includes('\\') ? text.replace(/\\(.)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c)) : text;

/**
 * Which walk this is, and which one before it the other side holds (`base`): a line that walk
 * wrote too (`w` its walk, `n` its place among that walk's lines as sent — before the relay
 * drops any) crosses as a copy of its place, runs of them as one row — a diff's walk that reused
 * most of the page sends what changed and a few rows.
 */
export interface WalkIds {
  id: string;
  base?: string;
}

/**
 * What a decoded walk says beside its result: its id, when it is a walk the next may copy from;
 * and, when it copied from one, which of that walk's lines it copied (runs of `[from, count]`)
 * and the lines it sent anew: what changed, for what this side keeps per walk (ref-table.ts).
 */
export type DecodedWalk = WalkResult & { id?: string; copied?: Array<[number, number]>; made?: WalkLine[] };

export function encodeWalk(result: WalkResult, ids?: WalkIds): string {
  const base = ids?.base;
  const title = result.title !== undefined ? `\t${escape(result.title)}` : '';
  const out = [`${HEAD}\t${result.nextRef}\t${result.missing ? 1 : 0}\t${ids?.id ?? ''}${title}`];
  const lines = result.lines;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (base !== undefined && line.w === base) {
      // A run: the lines after it that stood right after it in the walk before.
      let count = 1;
      while (i + count < lines.length && lines[i + count]!.w === base && lines[i + count]!.n === line.n! + count)
        count++;
      out.push(`${COPY}\t${line.n}\t${count}`);
      i += count - 1;
      continue;
    }
    const [role, name] = line.t ?? ['', ''];
    out.push(
      `${LINE}\t${line.d}\t${(line.f ? 1 : 0) | (line.c ? 2 : 0)}\t${line.r ?? ''}\t${escape(role)}\t${escape(name)}\t${escape(line.s)}`,
    );
  }
  return out.join('\n');
}

/**
 * The walk's result; `base`: the lines of the walk its copies are of (the last this side held
 * of the frame), or none. Read in place, row by row and field by field, not split: a 20k page's
 * whole walk is 20,000 rows, and splitting each into its fields made eleven strings and an array
 * per row where four strings are kept (what the garbage collector then took from the diff after it).
 */
export function decodeWalk(text: string, base?: { id: string; lines: WalkLine[] }): DecodedWalk {
  const result: DecodedWalk = base ? { lines: [], nextRef: 0, copied: [], made: [] } : { lines: [], nextRef: 0 };
  for (let at = 0; at <= text.length;) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    readRow(text, at, end, result, base);
    at = end + 1;
  }
  return result;
}

/** The row of `text` from `from` to `end` (its newline), read into `result`. */
function readRow(
  text: string,
  from: number,
  end: number,
  result: DecodedWalk,
  base: { lines: WalkLine[] } | undefined,
): void {
  const endOf = (i: number) => fieldEnd(text, i, end);
  const kindEnd = endOf(from);
  const kind = kindEnd - from === 1 ? text[from] : undefined;
  if (kind === LINE) {
    const depthEnd = endOf(kindEnd + 1);
    const flagsEnd = endOf(depthEnd + 1);
    const refEnd = endOf(flagsEnd + 1);
    const roleEnd = endOf(refEnd + 1);
    const nameEnd = endOf(roleEnd + 1);
    const [depth, flags] = [countAt(text, kindEnd + 1, depthEnd), countAt(text, depthEnd + 1, flagsEnd)];
    // Seven fields, the last the line's text (which may be empty); the counts digits.
    if (nameEnd >= end || Number.isNaN(depth) || Number.isNaN(flags))
      throw new Error(
        `a walk's line row is not seven fields: ${JSON.stringify(text.slice(from, Math.min(end, from + 40)))}`,
      );
    const line: WalkLine = { d: depth, s: unescape(text.slice(nameEnd + 1, end)) };
    if (refEnd > flagsEnd + 1) {
      line.r = text.slice(flagsEnd + 1, refEnd);
      line.t = [unescape(text.slice(refEnd + 1, roleEnd)), unescape(text.slice(roleEnd + 1, nameEnd))];
    }
    if (flags & 1) line.f = 1;
    if (flags & 2) line.c = 1;
    result.lines.push(line);
    result.made?.push(line);
    return;
  }
  const row = text.slice(from, end);
  const fields = row.split('\t');
  if (kind === HEAD) {
    result.nextRef = Number(fields[1]);
    if (fields[2] === '1') result.missing = true;
    if (fields[3]) result.id = fields[3];
    if (fields[4] !== undefined) result.title = unescape(fields[4]);
    return;
  }
  if (kind !== COPY)
    throw new Error(`a walk's result has a line of no known kind: ${JSON.stringify(row.slice(0, 40))}`);
  const count = (field = '') => countAt(field, 0, field.length);
  const [start, many] = [count(fields[1]), count(fields[2])];
  if (fields.length !== 3 || Number.isNaN(start) || Number.isNaN(many) || many < 1)
    throw new Error(`a walk's copy row is not two counts: ${JSON.stringify(row.slice(0, 40))}`);
  if (!base || start + many > base.lines.length)
    throw new Error(`a walk copied lines ${start}–${start + many} of a walk this side does not hold`);
  for (let i = start; i < start + many; i++) result.lines.push(base.lines[i]!);
  result.copied!.push([start, many]);
}

/** Where the field from `i` ends: its tab, or the row's end at `end` (the last field runs to it). */
function fieldEnd(text: string, i: number, end: number): number {
  const tab = text.indexOf('\t', i);
  return tab < 0 || tab > end ? end : tab;
}

/** The count written from `from` to `to` (digits only; a walk writes no other), NaN if none. */
function countAt(text: string, from: number, to: number): number {
  if (from >= to) return NaN;
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return n;
}
