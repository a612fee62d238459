// Turning an engine's snapshot lines into the text an agent reads: the `interactive`, `depth`
// and `limit` filters, indentation, and the character budget. Pure, so it is unit-tested
// without a browser.
//
// The budget never drops a ref silently: the text is cut on a line boundary, the cut is
// marked, and the mark names the ref to continue after (`after=<ref>`). `after` shows only the
// lines that follow that ref's line.

import { ClawdError } from '../../errors';
import type { SnapshotLine } from './snapshot-engine';

export interface LineOptions {
  interactive: boolean;
  depth?: number;
  limit?: number;
  maxChars?: number;
  /** Show only what follows this ref's line. */
  after?: string;
}

export interface RenderedLines {
  text: string;
  /** The lines shown (after every filter and the budget). */
  shown: SnapshotLine[];
  truncated: boolean;
  /** Where the next part starts, when cut. */
  next?: string;
}

/** A line's text without its ref mark (`button "Save" [e12]` → `button "Save"`). */
export function withoutRef(line: SnapshotLine): string {
  return line.ref ? line.text.replace(` [${line.ref}]`, '') : line.text;
}

/** A line as the agent reads it: indented two spaces a level (no list marker: every line is one). */
export function renderLine(line: SnapshotLine): string {
  return `${'  '.repeat(line.depth)}${line.text}`;
}

/** The lines `interactive` and `depth` keep (what a diff compares, before any budget). */
export function filterLines(all: SnapshotLine[], options: Pick<LineOptions, 'interactive' | 'depth'>): SnapshotLine[] {
  let lines = all;
  if (options.interactive) lines = lines.filter((l) => l.ref !== undefined).map((l) => ({ ...l, depth: 0 }));
  if (options.depth !== undefined) lines = lines.filter((l) => l.depth <= options.depth!);
  return lines;
}

export function renderLines(all: SnapshotLine[], options: LineOptions): RenderedLines {
  let lines = filterLines(all, options);
  if (options.after !== undefined) {
    const at = lines.findIndex((l) => l.ref === options.after);
    if (at < 0)
      throw new ClawdError(
        'ref_stale',
        `after=${options.after}: that ref is not on the page any more; take a snapshot without after`,
      );
    lines = lines.slice(at + 1);
  }
  let truncated = false;
  if (options.limit !== undefined && lines.length > options.limit) {
    lines = lines.slice(0, options.limit);
    truncated = true;
  }
  const texts = lines.map(renderLine);
  const max = options.maxChars;
  let total = texts.reduce((sum, t) => sum + t.length + 1, 0) - (texts.length ? 1 : 0);
  if (max === undefined || total <= max) {
    return { text: texts.join('\n'), shown: lines, truncated, ...(truncated ? { next: lastRef(lines) } : {}) };
  }
  // Keep whole lines within the budget; the kept part must end past at least one ref, so
  // `after` can always continue (a page that opens with more text than the budget runs over).
  let kept = 0;
  let used = 0;
  while (kept < lines.length && used + texts[kept]!.length + 1 <= max) used += texts[kept++]!.length + 1;
  if (!lines.slice(0, kept).some((l) => l.ref)) {
    const firstRef = lines.findIndex((l) => l.ref !== undefined);
    if (firstRef >= 0) kept = firstRef + 1;
  }
  const shown = lines.slice(0, kept);
  const next = lastRef(shown);
  const left = lines.length - kept;
  total = lines.slice(kept).filter((l) => l.ref).length;
  const mark = `… cut at ${max} characters: ${left} more lines, ${total} more refs${next ? `; continue with after=${next}` : ''}`;
  return { text: [...texts.slice(0, kept), mark].join('\n'), shown, truncated: true, ...(next ? { next } : {}) };
}

/** Lines a brief view keeps besides the ones with refs: where the agent is, and what the page said. */
const BRIEF_ROLES = /^(heading|dialog|alertdialog|alert|status)\b/;

/**
 * A line telling how something went: a status or alert message, or a field the page refuses
 * (`[invalid…]`). Every answer about the page carries these, whatever else it leaves out.
 */
export function isMessageLine(line: SnapshotLine): boolean {
  const text = line.text;
  if (text.startsWith('status "') || text.startsWith('alert "')) return true;
  // Asked of every line a diff shares with the snapshot before: the cheap test first.
  return text.includes(' [invalid') && / \[invalid(=".*")?\]/.test(withoutRef(line));
}

/** Site chrome a brief view folds when it lies outside `main`: header, footer, menus, sidebars. */
const CHROME = /^(banner|contentinfo|navigation|complementary)\b/;
/** A brief view shows this many of a run of lines alike (a table's Edit buttons), then counts the rest. */
const ALIKE_SHOWN = 2;

/**
 * A brief view of the page: its headings, dialogs and every line with a ref, each indented only
 * under the kept lines it sits in — what an agent needs to act next, without the text between.
 * The site's chrome outside `main` (header, footer, menus) folds into one line each counting its
 * refs, since the agent came for the page's own content; find reaches them (a site search is
 * one find away). With the page's `title` (said by the answer's first line), its top heading
 * repeating it is left out. A page that is nothing but chrome (no main, nothing else with a
 * ref) is not folded.
 */
export function briefLines(lines: SnapshotLine[], title?: string): SnapshotLine[] {
  const out: SnapshotLine[] = [];
  const chain: Array<{ depth: number; kept: boolean; main: boolean }> = [];
  const end = (at: number) => {
    let i = at + 1;
    while (i < lines.length && lines[i]!.depth > lines[at]!.depth) i++;
    return i;
  };
  const fold = foldsChrome(lines);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    while (chain.length > 0 && chain[chain.length - 1]!.depth >= line.depth) chain.pop();
    const depth = chain.filter((c) => c.kept).length;
    const inMain = chain.some((c) => c.main);
    if (fold && !inMain && CHROME.test(line.text)) {
      const stop = end(i);
      const refs = lines.slice(i + 1, stop).filter((l) => l.ref);
      if (refs.length > 0)
        out.push({
          depth,
          text: `${line.text.replace(/:$/, '')}: ${refs.length} ref${refs.length === 1 ? '' : 's'} folded`,
        });
      i = stop - 1;
      continue;
    }
    const kept = line.ref !== undefined || (BRIEF_ROLES.test(line.text) && !(title && titles(line, title)));
    if (kept) out.push({ ...line, depth });
    chain.push({ depth: line.depth, kept, main: /^main\b/.test(line.text) });
  }
  return foldAlike(out);
}

/** Whether `line` is the page's top heading saying what its title says ("Todos" in "Todos | Acme"). */
function titles(line: SnapshotLine, title: string): boolean {
  const name = line.text.match(/^heading ("(?:[^"\\]|\\.)*") \[level=1\]$/)?.[1];
  if (!name) return false;
  const said = JSON.parse(name) as string;
  return title === said || (title.startsWith(said) && /^\s*[|–—:·-]/.test(title.slice(said.length)));
}

/** Rows (or clickable blocks) whose lines have the same roles in the same shape: a list of mails, of orders. */
const BLOCKS = /^(row|clickable)\b/;

/** Where the block of line `at` (it and the deeper lines after it) ends, and its shape (roles by depth). */
function blockAt(lines: SnapshotLine[], at: number): { end: number; shape: string } {
  const top = lines[at]!.depth;
  let end = at + 1;
  while (end < lines.length && lines[end]!.depth > top) end++;
  const shape = lines
    .slice(at, end)
    .map((l) => `${l.depth - top}${l.text.match(/^[a-z]+/)?.[0] ?? ''}`)
    .join(' ');
  return { end, shape };
}

/**
 * Runs of lines alike but for their refs (a button per row) shown as their first few and a count;
 * and runs of blocks of the same shape (a row with its checkbox, star and subject, one per mail)
 * the same way: the agent finds the one it is after by its words.
 */
function foldAlike(lines: SnapshotLine[]): SnapshotLine[] {
  const out: SnapshotLine[] = [];
  for (let i = 0; i < lines.length;) {
    if (lines[i]!.ref && BLOCKS.test(lines[i]!.text)) {
      const first = blockAt(lines, i);
      const starts = [i];
      let end = first.end;
      while (end < lines.length && lines[end]!.depth === lines[i]!.depth) {
        const next = blockAt(lines, end);
        if (next.shape !== first.shape || !lines[end]!.ref || next.end - end < 2) break;
        starts.push(end);
        end = next.end;
      }
      if (first.end - i > 1 && starts.length > ALIKE_SHOWN + 1) {
        const rest = lines.slice(starts[ALIKE_SHOWN]!, end).flatMap((l) => (l.ref ? [l.ref] : []));
        out.push(...lines.slice(i, starts[ALIKE_SHOWN]!));
        out.push({
          depth: lines[i]!.depth,
          text: `… ${starts.length - ALIKE_SHOWN} more ${lines[i]!.text.match(/^[a-z]+/)![0]}s like these (${rest[0]} to ${rest[rest.length - 1]}): find one by its words`,
        });
        i = end;
        continue;
      }
    }
    let j = i + 1;
    while (
      j < lines.length &&
      lines[i]!.ref &&
      lines[j]!.ref &&
      lines[j]!.depth === lines[i]!.depth &&
      withoutRef(lines[j]!) === withoutRef(lines[i]!)
    )
      j++;
    if (j - i > ALIKE_SHOWN + 1) {
      out.push(...lines.slice(i, i + ALIKE_SHOWN));
      out.push({
        depth: lines[i]!.depth,
        text: `… ${j - i - ALIKE_SHOWN} more ${withoutRef(lines[i]!)} (${lines[i + ALIKE_SHOWN]!.ref} to ${lines[j - 1]!.ref}): find one by what is near it`,
      });
    } else out.push(...lines.slice(i, j));
    i = j;
  }
  return out;
}

/** Whether the page has more than chrome: something else to act on, or a main (a page of links alone stays whole). */
function foldsChrome(lines: SnapshotLine[]): boolean {
  const stack: Array<{ depth: number; main: boolean; chrome: boolean }> = [];
  for (const line of lines) {
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= line.depth) stack.pop();
    const inMain = stack.some((s) => s.main);
    if (stack.some((s) => s.chrome)) continue;
    // Something to act on besides the chrome, or a main landmark saying where the content is.
    if ((line.ref && !CHROME.test(line.text)) || /^main\b/.test(line.text)) return true;
    stack.push({ depth: line.depth, main: /^main\b/.test(line.text), chrome: !inMain && CHROME.test(line.text) });
  }
  return false;
}

function lastRef(lines: SnapshotLine[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.ref) return lines[i]!.ref;
  return undefined;
}
