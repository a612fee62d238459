// What changed between two snapshots of a tab, as the lines an agent needs to read: `~` a line
// whose element kept its ref but shows something else now (a value typed, a state toggled),
// `+` a line that is new, `-` a line that is gone. Lines with refs are matched by ref (refs of
// unchanged elements stay the same from one snapshot to the next); other lines by their text.
// Indented from the least deep line shown, not from the page's top. `=` a line that did not
// change but is said again: what the page says about how things went (a status, an alert, a
// refused field), so an action that changed nothing still answers how it ended. A list whose
// rows only moved (sorted, reversed) is one `~` line, `reordered: N of M rows moved`, not every
// row: their refs hold, and a snapshot shows the new order. Pure, so it is unit-tested without a
// browser.

import { renderLine, withoutRef } from './snapshot-lines';
import type { SnapshotLine } from './snapshot-engine';

export interface SnapshotDiff {
  /** The changed lines, in the new snapshot's order, the removed ones last. */
  lines: string[];
  added: number;
  removed: number;
  changed: number;
  /** The refs of the new and changed lines, in order. */
  refs: string[];
}

/** How many gone lines a diff shows before it counts the rest. */
const GONE_SHOWN = 6;

/**
 * What went, said briefly: a line that went with everything under it is shown alone, with a count
 * of what went under it (a list the page replaced by a message view is one line, not every row);
 * past GONE_SHOWN lines, the rest is a count and the refs' range. A gone ref is refused as stale
 * either way: the agent needs to know that it went, not every line of it. `within`: where lines
 * can have gone (between the lines both snapshots share).
 */
function foldGone(before: SnapshotLine[], gone: boolean[], within: { from: number; to: number }): SnapshotLine[] {
  const shown: SnapshotLine[] = [];
  const rest: SnapshotLine[] = [];
  for (let i = within.from; i < within.to; i++) {
    if (!gone[i]) continue;
    const line = before[i]!;
    let end = i + 1;
    while (end < before.length && before[end]!.depth > line.depth && gone[end]) end++;
    const whole = end === before.length || before[end]!.depth <= line.depth;
    const under = whole ? end - i - 1 : 0;
    const folded: SnapshotLine =
      under > 0 ? { ...line, text: `${line.text} (and ${under} line${under === 1 ? '' : 's'} under it)` } : line;
    (shown.length < GONE_SHOWN ? shown : rest).push(folded);
    if (under > 0) i = end - 1;
  }
  if (rest.length > 0) {
    const refs = rest.flatMap((l) => (l.ref ? [l.ref] : []));
    shown.push({
      depth: rest[0]!.depth,
      text: `… ${rest.length} more line${rest.length === 1 ? '' : 's'} gone${refs.length > 0 ? ` (refs ${refs[0]} to ${refs[refs.length - 1]})` : ''}`,
    });
  }
  return shown;
}

/** The index of each line's parent (the nearest line above it that is less deep), -1 at the top. */
function parents(lines: SnapshotLine[]): number[] {
  const stack: number[] = [];
  return lines.map((line, i) => {
    while (stack.length > 0 && lines[stack[stack.length - 1]!]!.depth >= line.depth) stack.pop();
    const parent = stack.length > 0 ? stack[stack.length - 1]! : -1;
    stack.push(i);
    return parent;
  });
}

/** Each line's key: its ref, or its text and how many lines said the same before it. */
function keys(lines: SnapshotLine[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((line) => {
    if (line.ref) return `r ${line.ref}`;
    const text = line.text;
    const n = seen.get(text) ?? 0;
    seen.set(text, n + 1);
    return `t ${n} ${text}`;
  });
}

/** How many of `order` stand in rising order at most (the longest increasing subsequence). */
function inOrder(order: number[]): number {
  const tails: number[] = [];
  for (const n of order) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < n) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = n;
  }
  return tails.length;
}

/**
 * The lists whose rows moved: for each line (or the page's top) in both snapshots, its children
 * with refs kept in both, in their old order and their new one; those off the longest run still
 * in order moved. Said once per list, at its line (the top's at its first child with a ref).
 */
function reorders(before: SnapshotLine[], after: SnapshotLine[]): Map<number, { line: SnapshotLine; top: boolean }> {
  const children = (lines: SnapshotLine[]) => {
    const up = parents(lines);
    const key = keys(lines);
    const out = new Map<string, { at: number; refs: Array<{ ref: string; i: number }> }>();
    lines.forEach((line, i) => {
      if (!line.ref) return;
      const parent = up[i]!;
      const k = parent < 0 ? '' : key[parent]!;
      let list = out.get(k);
      if (!list) out.set(k, (list = { at: parent < 0 ? i : parent, refs: [] }));
      list.refs.push({ ref: line.ref, i });
    });
    return out;
  };
  const was = children(before);
  const out = new Map<number, { line: SnapshotLine; top: boolean }>();
  for (const [k, now] of children(after)) {
    const then = was.get(k);
    if (!then) continue;
    const oldAt = new Map(then.refs.map((c, n) => [c.ref, n]));
    const kept = now.refs.filter((c) => oldAt.has(c.ref));
    const moved = kept.length - inOrder(kept.map((c) => oldAt.get(c.ref)!));
    if (moved === 0) continue;
    const roles = new Set(kept.map((c) => after[c.i]!.text.match(/^[a-z]+/)?.[0] ?? ''));
    const unit = roles.size === 1 && !roles.has('') ? `${[...roles][0]}s` : 'lines';
    const parent = k === '' ? undefined : after[now.at]!;
    const name = parent ? `${withoutRef(parent).replace(/:$/, '')} ` : '';
    out.set(now.at, {
      line: { depth: after[now.at]!.depth, text: `${name}reordered: ${moved} of ${kept.length} ${unit} moved` },
      top: !parent,
    });
  }
  return out;
}

export function diffSnapshots(
  before: SnapshotLine[],
  after: SnapshotLine[],
  sayAgain: (line: SnapshotLine) => boolean = () => false,
): SnapshotDiff {
  // Lines both snapshots share as the same objects (a diff's walk sends what did not change as
  // copies of the last walk's lines: walk-codec.ts) at their top and bottom did not change, nor
  // move: only the lines between are compared, and the rest is only said again when it says how
  // things went. A plain line alike in both is the same either way.
  const { top, bottom } = shared(before, after);
  const inBefore = { from: top, to: before.length - bottom };
  const inAfter = { from: top, to: after.length - bottom };
  const oldByRef = new Map<string, string>();
  const oldPlain = new Map<string, number>();
  for (let i = inBefore.from; i < inBefore.to; i++) {
    const line = before[i]!;
    const text = renderLine(line);
    if (line.ref) oldByRef.set(line.ref, text);
    else oldPlain.set(text, (oldPlain.get(text) ?? 0) + 1);
  }
  const marked: Array<{ mark: string; line: SnapshotLine }> = [];
  let added = 0;
  let changed = 0;
  const kept = new Set<string>();
  const moved = reordered(before, after, inBefore, inAfter) ? reorders(before, after) : new Map<number, never>();
  for (let i = 0; i < after.length; i++) {
    const line = after[i]!;
    // A reordered list is said at its own line, after that line's mark; the top's before its first child.
    const reordered = moved.get(i);
    if (reordered?.top) {
      marked.push({ mark: '~', line: reordered.line });
      changed++;
    }
    if (i < inAfter.from || i >= inAfter.to) {
      if (sayAgain(line)) marked.push({ mark: '=', line });
    } else if (line.ref) {
      const text = renderLine(line);
      const was = oldByRef.get(line.ref);
      kept.add(line.ref);
      if (was === undefined) {
        marked.push({ mark: '+', line });
        added++;
      } else if (was !== text) {
        marked.push({ mark: '~', line });
        changed++;
      } else if (sayAgain(line)) marked.push({ mark: '=', line });
    } else {
      const text = renderLine(line);
      const left = oldPlain.get(text) ?? 0;
      if (left > 0) {
        oldPlain.set(text, left - 1);
        if (sayAgain(line)) marked.push({ mark: '=', line });
      } else {
        marked.push({ mark: '+', line });
        added++;
      }
    }
    if (reordered && !reordered.top) {
      marked.push({ mark: '~', line: reordered.line });
      changed++;
    }
  }
  const gone = wentOf(before, inBefore, kept, oldPlain);
  const removed = gone.filter(Boolean).length;
  const shownGone = foldGone(before, gone, inBefore);
  const base = [...marked.map((m) => m.line), ...shownGone].reduce((least, l) => Math.min(least, l.depth), Infinity);
  const refs = marked.flatMap((m) => (m.mark !== '-' && m.line.ref ? [m.line.ref] : []));
  return {
    lines: [
      ...marked.map((m) => `${m.mark} ${renderLine({ ...m.line, depth: m.line.depth - base })}`),
      ...shownGone.map((l) => `- ${renderLine({ ...l, depth: l.depth - base })}`),
    ],
    added,
    removed,
    changed,
    refs,
  };
}

/**
 * Which lines of `before` went: only those between the shared top and bottom can have (a ref
 * no longer shown; a plain line more times than it is now). `oldPlain` is counted down.
 */
function wentOf(
  before: SnapshotLine[],
  within: { from: number; to: number },
  kept: Set<string>,
  oldPlain: Map<string, number>,
): boolean[] {
  const gone: boolean[] = [];
  for (let i = within.from; i < within.to; i++) {
    const line = before[i]!;
    const text = renderLine(line);
    const went = line.ref ? !kept.has(line.ref) : (oldPlain.get(text) ?? 0) > 0;
    if (went && !line.ref) oldPlain.set(text, oldPlain.get(text)! - 1);
    gone[i] = went;
  }
  return gone;
}

/** How many lines at the top and at the bottom both snapshots share as the same objects. */
function shared(before: SnapshotLine[], after: SnapshotLine[]): { top: number; bottom: number } {
  let top = 0;
  while (top < before.length && top < after.length && before[top] === after[top]) top++;
  let bottom = 0;
  while (
    bottom < before.length - top &&
    bottom < after.length - top &&
    before[before.length - 1 - bottom] === after[after.length - 1 - bottom]
  )
    bottom++;
  return { top, bottom };
}

/**
 * Whether any list can have been reordered: the refs kept in both between the shared top and
 * bottom stand in another order (the shared lines stand where they stood, around them).
 */
function reordered(
  before: SnapshotLine[],
  after: SnapshotLine[],
  was: { from: number; to: number },
  now: { from: number; to: number },
): boolean {
  const refs = (lines: SnapshotLine[], { from, to }: { from: number; to: number }) =>
    lines.slice(from, to).flatMap((l) => (l.ref ? [l.ref] : []));
  const [old, current] = [refs(before, was), refs(after, now)];
  const [oldSet, currentSet] = [new Set(old), new Set(current)];
  const a = old.filter((ref) => currentSet.has(ref));
  const b = current.filter((ref) => oldSet.has(ref));
  return a.some((ref, i) => b[i] !== ref);
}
