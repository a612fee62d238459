// Turning an engine's snapshot lines into the text an agent reads: the `interactive`, `depth`
// and `limit` filters, indentation, and the character budget. Pure, so it is unit-tested
// without a browser.
//
// The budget never drops a ref silently: the text is cut on a line boundary, the cut is
// marked, and the mark names the ref to continue after (`after=<ref>`). `after` shows only the
// lines that follow that ref's line.

import { ClawdError } from '../errors';
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

export function renderLine(line: SnapshotLine): string {
  return `${'  '.repeat(line.depth)}- ${line.text}`;
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
    if (at < 0) throw new ClawdError('ref_stale', `after=${options.after}: that ref is not on the page any more; take a snapshot without after`);
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
  const mark = `- … cut at ${max} characters: ${left} more lines, ${total} more refs${next ? `; continue with after=${next}` : ''}`;
  return { text: [...texts.slice(0, kept), mark].join('\n'), shown, truncated: true, ...(next ? { next } : {}) };
}

/** Lines a brief view keeps besides the ones with refs: where the agent is. */
const BRIEF_ROLES = /^(heading|dialog|alertdialog|alert)\b/;

/**
 * A brief view of the page: its headings, dialogs and every line with a ref, each indented only
 * under the kept lines it sits in — what an agent needs to act next, without the text between.
 */
export function briefLines(lines: SnapshotLine[]): SnapshotLine[] {
  const out: SnapshotLine[] = [];
  const chain: Array<{ depth: number; kept: boolean }> = [];
  for (const line of lines) {
    while (chain.length > 0 && chain[chain.length - 1]!.depth >= line.depth) chain.pop();
    const kept = line.ref !== undefined || BRIEF_ROLES.test(line.text);
    if (kept) out.push({ ...line, depth: chain.filter((c) => c.kept).length });
    chain.push({ depth: line.depth, kept });
  }
  return out;
}

function lastRef(lines: SnapshotLine[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.ref) return lines[i]!.ref;
  return undefined;
}
