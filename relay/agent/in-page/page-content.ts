// Shipped to the page (bundled by `npm run build` into dist/in-page/content.js): the page's main
// content as Markdown, text or HTML. Article extraction is Mozilla's Readability (Firefox's reader
// view) on a clone of the document, so the page is not touched; HTML → Markdown is Turndown, with
// links kept as Markdown links. Run in the page because both need a real DOM, which the page has
// and Node does not (no jsdom in the relay).
/// <reference lib="dom" />

import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';

export interface ContentRequest {
  format: 'markdown' | 'text' | 'html';
  selector?: string;
}

export interface ContentResult {
  content: string;
  title: string;
  byline?: string;
  /** What was read: the extracted article, the element the selector named, or the whole body. */
  source: 'article' | 'selector' | 'body';
}

const condense = (text: string) =>
  text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

export function extract(request: ContentRequest): ContentResult {
  if (request.selector !== undefined) {
    const element = document.querySelector(request.selector);
    if (!element) throw new Error(`no element matches the selector ${JSON.stringify(request.selector)}`);
    return render(
      request.format,
      element.outerHTML,
      (element as HTMLElement).innerText ?? element.textContent ?? '',
      document.title,
      'selector',
    );
  }
  if (request.format === 'html')
    return { content: document.documentElement.outerHTML, title: document.title, source: 'body' };
  const article = new Readability(document.cloneNode(true) as Document).parse();
  if (article?.content) {
    const result = render(
      request.format,
      article.content,
      article.textContent ?? '',
      article.title || document.title,
      'article',
    );
    return article.byline ? { ...result, byline: article.byline } : result;
  }
  return render(request.format, document.body?.innerHTML ?? '', document.body?.innerText ?? '', document.title, 'body');
}

function render(
  format: ContentRequest['format'],
  html: string,
  text: string,
  title: string,
  source: ContentResult['source'],
): ContentResult {
  if (format === 'html') return { content: html, title, source };
  if (format === 'text') return { content: condense(text), title, source };
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'form'] as never);
  const markdown = turndown.turndown(html).trim();
  const heading = title && !markdown.startsWith('# ') ? `# ${title}\n\n` : '';
  return { content: `${heading}${markdown}`, title, source };
}
