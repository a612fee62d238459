// A walk's result as it crosses from the page to the relay: one string of tab-separated lines,
// not JSON. It travels inside a CDP message (JSON again) through the browser, the relay's mux
// and Playwright, where every quote of JSON inside JSON is escaped once more: for the 5k page of
// the bench, 525k characters on the wire as JSON, 340k so. Part of the walker bundle and read by
// the agent engine; no DOM here.

import type { WalkLine, WalkResult } from './walker-types';

/** Line kinds: the header, a line of the snapshot, a ref shown. */
const HEAD = 'H';
const LINE = 'L';
const REF = 'R';

/** A field may hold anything a page wrote: its tabs, newlines and backslashes are escaped. */
const SPECIAL = /[\\\t\n]/;
const escape = (text: string): string =>
  SPECIAL.test(text) ? text.replace(/[\\\t\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : '\\n')) : text;
const unescape = (text: string): string =>
  text.includes('\\') ? text.replace(/\\(.)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c)) : text;

export function encodeWalk(result: WalkResult): string {
  const out = [`${HEAD}\t${result.nextRef}\t${result.missing ? 1 : 0}`];
  for (const line of result.lines)
    out.push(`${LINE}\t${line.d}\t${(line.f ? 1 : 0) | (line.c ? 2 : 0)}\t${line.r ?? ''}\t${escape(line.s)}`);
  for (const [ref, role, name] of result.refs) out.push(`${REF}\t${ref}\t${escape(role)}\t${escape(name)}`);
  return out.join('\n');
}

export function decodeWalk(text: string): WalkResult {
  const result: WalkResult = { lines: [], nextRef: 0, refs: [] };
  for (const row of text.split('\n')) {
    const fields = row.split('\t');
    switch (fields[0]) {
      case HEAD:
        result.nextRef = Number(fields[1]);
        if (fields[2] === '1') result.missing = true;
        break;
      case LINE: {
        const flags = Number(fields[2]);
        const line: WalkLine = { d: Number(fields[1]), s: unescape(fields[4]!) };
        if (fields[3]) line.r = fields[3];
        if (flags & 1) line.f = 1;
        if (flags & 2) line.c = 1;
        result.lines.push(line);
        break;
      }
      case REF:
        result.refs.push([fields[1]!, unescape(fields[2]!), unescape(fields[3]!)]);
        break;
      default:
        throw new Error(`a walk's result has a line of no known kind: ${JSON.stringify(row.slice(0, 40))}`);
    }
  }
  return result;
}
