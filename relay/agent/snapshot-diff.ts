// What changed between two snapshots of a tab, as the lines an agent needs to read: `~` a line
// whose element kept its ref but shows something else now (a value typed, a state toggled),
// `+` a line that is new, `-` a line that is gone. Lines with refs are matched by ref (refs of
// unchanged elements stay the same from one snapshot to the next); other lines by their text.
// Pure, so it is unit-tested without a browser.

import { renderLine } from './snapshot-lines';
import type { SnapshotLine } from './snapshot-engine';

export interface SnapshotDiff {
  /** The changed lines, in the new snapshot's order, the removed ones last. */
  lines: string[];
  added: number;
  removed: number;
  changed: number;
}

export function diffSnapshots(before: SnapshotLine[], after: SnapshotLine[]): SnapshotDiff {
  const oldByRef = new Map<string, string>();
  const oldPlain = new Map<string, number>();
  for (const line of before) {
    const text = renderLine(line);
    if (line.ref) oldByRef.set(line.ref, text);
    else oldPlain.set(text, (oldPlain.get(text) ?? 0) + 1);
  }
  const lines: string[] = [];
  let added = 0;
  let changed = 0;
  const kept = new Set<string>();
  for (const line of after) {
    const text = renderLine(line);
    if (line.ref) {
      const was = oldByRef.get(line.ref);
      kept.add(line.ref);
      if (was === undefined) {
        lines.push(`+ ${text}`);
        added++;
      } else if (was !== text) {
        lines.push(`~ ${text}`);
        changed++;
      }
      continue;
    }
    const left = oldPlain.get(text) ?? 0;
    if (left > 0) oldPlain.set(text, left - 1);
    else {
      lines.push(`+ ${text}`);
      added++;
    }
  }
  let removed = 0;
  for (const line of before) {
    const text = renderLine(line);
    const gone = line.ref ? !kept.has(line.ref) : (oldPlain.get(text) ?? 0) > 0;
    if (!gone) continue;
    if (!line.ref) oldPlain.set(text, oldPlain.get(text)! - 1);
    lines.push(`- ${text}`);
    removed++;
  }
  return { lines, added, removed, changed };
}
