// Part of a page's content instead of all of it: the section under a heading that holds some
// text, or the paragraphs that hold it, each under its heading. Works on the Markdown (and, for
// paragraphs, plain text) the content extraction wrote, so it is pure and unit-tested.

import { ClawdError } from '../../errors';

const HEADING = /^(#{1,6})\s+(.*)$/;

/** The headings of Markdown text, as an agent would pick one. */
function headings(text: string): string[] {
  return text.split('\n').flatMap((line) => line.match(HEADING)?.[2]?.trim() ?? []);
}

const listed = (names: string[]) =>
  names.length === 0
    ? 'it has none'
    : `they are: ${names
        .slice(0, 40)
        .map((h) => JSON.stringify(h))
        .join(', ')}${names.length > 40 ? ', …' : ''}`;

/** The first heading holding `query` (case-insensitive) and everything under it, up to the next heading of its level or above. */
export function sectionUnder(markdown: string, query: string): string {
  const lines = markdown.split('\n');
  const wanted = query.toLowerCase();
  const start = lines.findIndex((line) => line.match(HEADING)?.[2]?.toLowerCase().includes(wanted));
  if (start < 0)
    throw new ClawdError('bad_request', `no heading holds ${JSON.stringify(query)}; ${listed(headings(markdown))}`);
  const level = lines[start]!.match(HEADING)![1]!.length;
  let end = start + 1;
  while (end < lines.length && !(lines[end]!.match(HEADING) && lines[end]!.match(HEADING)![1]!.length <= level)) end++;
  return lines.slice(start, end).join('\n').trim();
}

/** The paragraphs holding `query`, each group under the heading it sits under; and how many. */
export function paragraphsWith(text: string, query: string): { content: string; matches: number } {
  const wanted = query.toLowerCase();
  const out: string[] = [];
  let heading: string | undefined;
  let headingShown = false;
  let matches = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const trimmed = block.trim();
    if (trimmed === '') continue;
    if (HEADING.test(trimmed) && !trimmed.includes('\n')) {
      heading = trimmed;
      headingShown = false;
      continue;
    }
    if (!trimmed.toLowerCase().includes(wanted)) continue;
    matches++;
    if (heading && !headingShown) out.push(heading);
    headingShown = true;
    out.push(trimmed);
  }
  if (matches === 0)
    return {
      content: `(no paragraph holds ${JSON.stringify(query)}; the headings: ${listed(headings(text)).replace(/^they are: /, '')})`,
      matches,
    };
  return { content: out.join('\n\n'), matches };
}
