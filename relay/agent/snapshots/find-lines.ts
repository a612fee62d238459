// Finding things on a page without reading all of it: the lines of the agent snapshot whose text
// (role, accessible name, value, visible text) holds the query, each with a little context — the
// row, list item, dialog or group it sits in, the nearest section heading before it (unless a
// row or named frame says more, or the one match is named like nothing else on the page), and
// the first actionable lines inside its frame (a matching row's buttons) or, with no frame,
// after it in its section (a product card's button); a match that is itself actionable is shown
// with the others of its own small frame (a line item's other fields) — so an agent can act by
// ref at once. And one element's subtree,
// for a snapshot of just that part. Pure: unit-tested.

import { ClawdError } from '../../errors';
import type { RefIndex, SnapshotLine } from './snapshot-engine';
import { renderLine, withoutRef } from './snapshot-lines';

/** Lines that frame a match: what it sits in (an iframe too: the agent learns the match is in one). */
const CONTAINERS =
  /^(row|listitem|dialog|alertdialog|group|form|region|article|tabpanel|menu|listbox|tree|treeitem|gridcell|cell|table|grid|treegrid|list|navigation|iframe)\b/;
/**
 * The small frames whose controls belong together (a line item's description, quantity and
 * price; a card's actions): a match with a ref inside one is answered with the others beside it,
 * so the next action needs no snapshot.
 */
const NEIGHBOURHOOD = /^(row|listitem|group|article|treeitem)\b/;
/** What a matching container shows of itself: its first lines with refs. */
const INSIDE = 8;
/** What a match framed only by its section shows after it. */
const AFTER = 3;

export interface FindOptions {
  query: string;
  role?: string;
  limit: number;
}

export interface Found {
  /** The matches with their context, indented as on the page. */
  text: string;
  matches: number;
  shown: number;
  /** The refs in the text, in order. */
  refs: string[];
}

const roleOf = (line: SnapshotLine) => line.text.match(/^[a-z]+/)?.[0] ?? '';
/** What a line says, without its ref (a query "e12" must not match every line with that ref). */
const sayOf = (line: SnapshotLine) => withoutRef(line).toLowerCase();
/** A line's role and name, without its states and value (`textbox "Email"`). */
const roleAndName = (line: SnapshotLine) => line.text.match(/^[a-z]+(?: "(?:[^"\\]|\\.)*")?/)?.[0] ?? line.text;

export function findLines(lines: SnapshotLine[], options: FindOptions): Found {
  const needle = options.query.toLowerCase();
  const hits: number[] = [];
  lines.forEach((line, i) => {
    if (sayOf(line).includes(needle) && (options.role === undefined || roleOf(line) === options.role)) hits.push(i);
  });
  const keep = new Set<number>();
  /** The first lines with refs under line `at` (its descendants). */
  const refsUnder = (at: number) => {
    let inside = 0;
    for (let i = at + 1; i < lines.length && lines[i]!.depth > lines[at]!.depth && inside < INSIDE; i++) {
      if (!lines[i]!.ref) continue;
      keep.add(i);
      inside++;
    }
  };
  /** The first lines with refs after line `at` in its section: its level, until the next heading. */
  const refsAfter = (at: number) => {
    let after = 0;
    for (let i = at + 1; i < lines.length && lines[i]!.depth >= lines[at]!.depth && after < AFTER; i++) {
      if (roleOf(lines[i]!) === 'heading') break;
      if (!lines[i]!.ref || lines[i]!.depth > lines[at]!.depth) continue;
      keep.add(i);
      after++;
    }
  };
  for (const at of hits.slice(0, options.limit)) {
    const line = lines[at]!;
    keep.add(at);
    refsUnder(at);
    // Up the tree: each nearer ancestor is the last line before with a smaller depth. The
    // nearest container shows what can be done with it (a list item's checkbox and button).
    let depth = line.depth;
    // A match with a ref is itself what can be acted on: what sits beside it would be noise.
    let container = CONTAINERS.test(line.text) || line.ref !== undefined;
    // A heading is its own section's title: the one before it says nothing more.
    let heading = roleOf(line) === 'heading';
    let headingAt: number | undefined;
    // A named frame (navigation "Pages", dialog "Edit order", a row with its cells) says where the
    // match is better than the last heading before it, which may be a neighbour's title.
    const namedFrame = (l: SnapshotLine) => CONTAINERS.test(l.text) && /^([a-z]+ "|row: )/.test(l.text);
    let named = namedFrame(line);
    // Whether the match's own frame was reached (a match with a ref shows the refs beside it there).
    let neighbours = false;
    for (let i = at - 1; i >= 0 && (depth > 0 || !heading); i--) {
      const above = lines[i]!;
      if (!heading && roleOf(above) === 'heading' && above.depth <= line.depth) {
        headingAt = i;
        heading = true;
      }
      if (above.depth >= depth) continue;
      depth = above.depth;
      if (!CONTAINERS.test(above.text)) continue;
      keep.add(i);
      if (namedFrame(above)) named = true;
      // What can be done in its frame; for a match with a ref, only in the nearest small frame.
      if (!container || (line.ref !== undefined && !neighbours && NEIGHBOURHOOD.test(above.text))) refsUnder(i);
      if (line.ref !== undefined) neighbours = true;
      container = true;
    }
    // Framed by nothing but its section (a card drawn as a heading, text and a button): what
    // can be done there follows it, up to the next heading.
    // The one match, an element to act on named like no other on the page (role and name), needs
    // no heading to tell it apart; several matches keep theirs (whose "Reviews" is which).
    const unique =
      hits.length === 1 &&
      line.ref !== undefined &&
      lines.filter((l) => l.ref !== undefined && roleAndName(l) === roleAndName(line)).length === 1;
    if (headingAt !== undefined && !named && !unique) keep.add(headingAt);
    if (!container) refsAfter(at);
  }
  const chosen = [...keep].sort((a, b) => a - b).map((i) => lines[i]!);
  const base = Math.min(...chosen.map((l) => l.depth));
  const rendered = chosen.map((l) => renderLine({ ...l, depth: l.depth - base }));
  const shown = Math.min(hits.length, options.limit);
  if (hits.length > shown)
    rendered.push(`… ${hits.length - shown} more matches: narrow the query (or role), or raise limit`);
  return {
    text: rendered.join('\n'),
    matches: hits.length,
    shown,
    refs: chosen.flatMap((l) => (l.ref ? [l.ref] : [])),
  };
}

/** The line of `ref` and everything under it, re-indented from it. `previous`: the refs the agent had. */
export function subtreeOf(lines: SnapshotLine[], ref: string, previous: RefIndex | undefined): SnapshotLine[] {
  const at = lines.findIndex((l) => l.ref === ref);
  if (at < 0) {
    if (previous?.get(ref))
      throw new ClawdError(
        'ref_stale',
        `ref ${ref} is not on the page any more (it changed or went): take a snapshot or find it again`,
      );
    throw new ClawdError('ref_unknown', `unknown ref ${ref}: it is not on the page; use a ref from a snapshot or find`);
  }
  const top = lines[at]!.depth;
  let end = at + 1;
  while (end < lines.length && lines[end]!.depth > top) end++;
  return lines.slice(at, end).map((l) => ({ ...l, depth: l.depth - top }));
}
