// The marks around a page's words in clawd's own text: two private-use characters, never
// meaningful in page text (taken out of it when it is marked). The doors that give text to an
// agent turn a marked stretch into a fence (relay/operations/page-fence.ts); the person's pages
// (side panel, live view) show it as a quote of the page's (ui/agent-activity.ts).

export const PAGE_OPEN = '\uE000';
export const PAGE_CLOSE = '\uE001';
export const PAGE_MARKS = /[\uE000\uE001]/g;

/** A text as clawd's words and the page's, in order (`page`: a marked stretch). */
export function pageParts(text: string): Array<{ page: boolean; text: string }> {
  const parts: Array<{ page: boolean; text: string }> = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf(PAGE_OPEN, at);
    if (open === -1) break;
    const close = text.indexOf(PAGE_CLOSE, open + 1);
    if (close === -1) break;
    if (open > at) parts.push({ page: false, text: text.slice(at, open) });
    parts.push({ page: true, text: text.slice(open + 1, close) });
    at = close + 1;
  }
  if (at < text.length) parts.push({ page: false, text: text.slice(at).replace(PAGE_MARKS, '') });
  return parts;
}
