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
 * of the frame), or none.
 */
export function decodeWalk(text: string, base?: { id: string; lines: WalkLine[] }): DecodedWalk {
  const result: DecodedWalk = base ? { lines: [], nextRef: 0, copied: [], made: [] } : { lines: [], nextRef: 0 };
  for (const row of text.split('\n')) {
    const fields = row.split('\t');
    switch (fields[0]) {
      case HEAD:
        result.nextRef = Number(fields[1]);
        if (fields[2] === '1') result.missing = true;
        if (fields[3]) result.id = fields[3];
        if (fields[4] !== undefined) result.title = unescape(fields[4]);
        break;
      case LINE: {
        const flags = Number(fields[2]);
        const line: WalkLine = { d: Number(fields[1]), s: unescape(fields[6]!) };
        if (fields[3]) {
          line.r = fields[3];
          line.t = [unescape(fields[4]!), unescape(fields[5]!)];
        }
        if (flags & 1) line.f = 1;
        if (flags & 2) line.c = 1;
        result.lines.push(line);
        result.made?.push(line);
        break;
      }
      case COPY: {
        const [from, count] = [Number(fields[1]), Number(fields[2])];
        if (!Number.isInteger(from) || !Number.isInteger(count) || from < 0 || count < 1)
          throw new Error(`a walk's copy row is not two counts: ${JSON.stringify(row.slice(0, 40))}`);
        if (!base || from + count > base.lines.length)
          throw new Error(`a walk copied lines ${from}–${from + count} of a walk this side does not hold`);
        for (let i = from; i < from + count; i++) result.lines.push(base.lines[i]!);
        result.copied!.push([from, count]);
        break;
      }
      default:
        throw new Error(`a walk's result has a line of no known kind: ${JSON.stringify(row.slice(0, 40))}`);
    }
  }
  return result;
}
