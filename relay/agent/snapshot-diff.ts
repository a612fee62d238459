// What changed between two snapshots of a tab, as the lines an agent needs to read: `~` a line
// whose element kept its ref but shows something else now (a value typed, a state toggled),
// `+` a line that is new, `-` a line that is gone. Lines with refs are matched by ref (refs of
// unchanged elements stay the same from one snapshot to the next); other lines by their text.
// Indented from the least deep line shown, not from the page's top. `=` a line that did not
// change but is said again: what the page says about how things went (a status, an alert, a
// refused field), so an action that changed nothing still answers how it ended. Pure, so it is
// unit-tested without a browser.

import { renderLine } from './snapshot-lines';
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
 * either way: the agent needs to know that it went, not every line of it.
 */
function foldGone(before: SnapshotLine[], gone: boolean[]): SnapshotLine[] {
  const shown: SnapshotLine[] = [];
  const rest: SnapshotLine[] = [];
  for (let i = 0; i < before.length; i++) {
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

export function diffSnapshots(
  before: SnapshotLine[],
  after: SnapshotLine[],
  sayAgain: (line: SnapshotLine) => boolean = () => false,
): SnapshotDiff {
  const oldByRef = new Map<string, string>();
  const oldPlain = new Map<string, number>();
  for (const line of before) {
    const text = renderLine(line);
    if (line.ref) oldByRef.set(line.ref, text);
    else oldPlain.set(text, (oldPlain.get(text) ?? 0) + 1);
  }
  const marked: Array<{ mark: string; line: SnapshotLine }> = [];
  let added = 0;
  let changed = 0;
  const kept = new Set<string>();
  for (const line of after) {
    const text = renderLine(line);
    if (line.ref) {
      const was = oldByRef.get(line.ref);
      kept.add(line.ref);
      if (was === undefined) {
        marked.push({ mark: '+', line });
        added++;
      } else if (was !== text) {
        marked.push({ mark: '~', line });
        changed++;
      } else if (sayAgain(line)) marked.push({ mark: '=', line });
      continue;
    }
    const left = oldPlain.get(text) ?? 0;
    if (left > 0) {
      oldPlain.set(text, left - 1);
      if (sayAgain(line)) marked.push({ mark: '=', line });
    } else {
      marked.push({ mark: '+', line });
      added++;
    }
  }
  let removed = 0;
  const gone: boolean[] = before.map((line) => {
    const text = renderLine(line);
    const went = line.ref ? !kept.has(line.ref) : (oldPlain.get(text) ?? 0) > 0;
    if (went && !line.ref) oldPlain.set(text, oldPlain.get(text)! - 1);
    if (went) removed++;
    return went;
  });
  const shownGone = foldGone(before, gone);
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
