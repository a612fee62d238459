// What the page walk's lines lose before an agent reads them: orientation lines with nothing
// below them, and what is said twice — a text beside a control whose name already holds it (a
// todo's "Buy milk" beside checkbox "Done: Buy milk"), a heading that names the dialog it titles.
// Said once is enough; nothing the agent can act on is dropped. Pure: unit-tested. (A region's
// heading stays: a brief view keeps headings, not regions.)

import type { WalkLine } from '../in-page/page-walker';

/** The name a line shows (`checkbox "Done: Buy milk" [e4]` → Done: Buy milk), if any. */
function nameOf(line: WalkLine): string | undefined {
  const quoted = line.s.match(/^[a-z]+ ("(?:[^"\\]|\\.)*")/)?.[1];
  if (quoted === undefined) return undefined;
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/** The words of a text line (`"…"`). */
function textOf(line: WalkLine): string | undefined {
  if (!line.s.startsWith('"')) return undefined;
  try {
    return JSON.parse(line.s) as string;
  } catch {
    return undefined;
  }
}

/** Orientation lines (landmarks, rows, groups) are shown only when something is below them. */
export function dropEmptyContainers(lines: WalkLine[]): WalkLine[] {
  const kept: WalkLine[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const next = kept[kept.length - 1];
    if (line.c && !(next && next.d > line.d)) continue;
    kept.push(line);
  }
  return kept.reverse();
}

/** Whether `name` holds `text` as whole words ("Done: Buy milk" holds "Buy milk"; "Email Adam" does not hold "Ada"). */
function holds(name: string, text: string): boolean {
  const at = name.indexOf(text);
  if (at < 0 || text.trim() === '') return false;
  const before = name[at - 1];
  const after = name[at + text.length];
  const edge = (c: string | undefined) => c === undefined || !/[\p{L}\p{N}]/u.test(c);
  return edge(before) && edge(after);
}

/**
 * Drops a text line whose whole text a neighbouring line at its depth names (its label said as
 * a control's name), and a heading whose name is the name of the dialog it sits in.
 */
export function dropSaidTwice(lines: WalkLine[]): WalkLine[] {
  return lines.filter((line, i) => {
    const text = textOf(line);
    if (text !== undefined) {
      const beside = [lines[i - 1], lines[i + 1]].filter(
        (l): l is WalkLine => l !== undefined && l.d === line.d && l.r !== undefined,
      );
      return !beside.some((l) => holds(nameOf(l) ?? '', text));
    }
    if (line.s.startsWith('heading "') && line.d > 0) {
      let parent = i - 1;
      while (parent >= 0 && lines[parent]!.d >= line.d) parent--;
      const above = lines[parent];
      return !(
        above &&
        above.d === line.d - 1 &&
        /^(dialog|alertdialog) "/.test(above.s) &&
        nameOf(above) === nameOf(line)
      );
    }
    return true;
  });
}
