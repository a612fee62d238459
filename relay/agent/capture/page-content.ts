// GET /content: the page's main content as Markdown (default), text or HTML, cut to maxChars on
// a line boundary with the cut said in the text; `heading` and `match` narrow it to a section or
// to paragraphs (content-parts.ts) before the cut. The extraction runs in the page
// (in-page/page-content.ts, bundled to dist/in-page/content.js), inside a function so it leaves
// no global behind.

import type { Page } from 'playwright-core';
import { distAsset } from '../../dist-assets';
import { ClawdError } from '../../errors';
import { currentMask } from '../../operations/secret-use';
import { paragraphsWith, sectionUnder } from './content-parts';
import type { ContentRequest as InPageRequest, ContentResult } from '../in-page/page-content';

export async function pageContent(
  page: Page,
  request: InPageRequest & { maxChars: number; heading?: string; match?: string },
): Promise<ContentResult & { chars: number; truncated: boolean; matches?: number }> {
  const source = distAsset('in-page/content.js');
  const args = JSON.stringify({
    format: request.format,
    ...(request.selector !== undefined ? { selector: request.selector } : {}),
  });
  let result: ContentResult;
  try {
    result = (await page.evaluate(`(() => { ${source}; return __clawdContent.extract(${args}); })()`)) as ContentResult;
  } catch (error) {
    const message = (error as Error).message;
    const selector = message.match(/no element matches the selector [^\n]*/)?.[0];
    if (selector) throw new ClawdError('bad_request', selector);
    throw error;
  }
  // The call's secrets masked before a section, a match or the cut is chosen from the text.
  result = { ...result, content: currentMask().text(result.content) };
  let matches: number | undefined;
  if (request.heading !== undefined) result = { ...result, content: sectionUnder(result.content, request.heading) };
  if (request.match !== undefined)
    ({ content: result.content, matches } = paragraphsWith(result.content, request.match));
  const counted = matches !== undefined ? { matches } : {};
  const chars = result.content.length;
  if (chars <= request.maxChars) return { ...result, ...counted, chars, truncated: false };
  const cut = result.content.lastIndexOf('\n', request.maxChars);
  const kept = result.content.slice(0, cut > request.maxChars / 2 ? cut : request.maxChars);
  return {
    ...result,
    ...counted,
    content: `${kept}\n\n… cut at ${kept.length} of ${chars} characters (maxChars); ask for a part with heading, match or selector`,
    chars,
    truncated: true,
  };
}
