// The page fence in answers (relay/operations/page-fence.ts): tests that read an answer's lines
// take the fence's two lines out; the fence itself is asserted where it is the point.

const FENCE_LINE = /^‹\/?page [a-z0-9]{8}›$/;

/** The answer without its fence lines (the page's words stay, line for line). */
export function unfenced(text: string): string {
  return text
    .split('\n')
    .filter((line) => !FENCE_LINE.test(line))
    .join('\n');
}

/** The fence lines of an answer, in order. */
export function fenceLinesIn(text: string): string[] {
  return text.split('\n').filter((line) => FENCE_LINE.test(line));
}

/** The ref of the line with this role and name in a snapshot answer's text. */
export function refIn(snapshot: string, role: string, name: string): string {
  const ref = snapshot
    .split('\n')
    .find((l) => l.includes(`${role} "${name}"`))
    ?.match(/\[(e\d+)\]/)?.[1];
  if (!ref) throw new Error(`no ${role} "${name}" in:\n${snapshot}`);
  return ref;
}
