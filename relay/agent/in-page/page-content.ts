// Shipped to the page (bundled by `npm run build` into dist/in-page/content.js): the page's main
// content as Markdown, text or HTML. Markdown and text leave out what a person cannot see (the
// snapshot's rules, page-walker.ts, run on a copy). Article extraction is Mozilla's Readability (Firefox's reader
// view) on a clone of the document, so the page is not touched; HTML → Markdown is Turndown, with
// links kept as Markdown links. Run in the page because both need a real DOM, which the page has
// and Node does not (no jsdom in the relay).
/// <reference lib="dom" />

import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { createRegistry, inPage } from './page-walker';

/** A deep clone of `node` without what a person cannot see of it: the snapshot's own rules (page-walker.ts). */
function seenCopy<T extends Node>(node: T): T {
  const copy = node.cloneNode(true) as T;
  inPage(createRegistry(), { kind: 'prune', from: node, copy });
  return copy;
}

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
    if (request.format === 'html') return { content: element.outerHTML, title: document.title, source: 'selector' };
    const seen = seenCopy(element);
    return render(
      request.format,
      seen.outerHTML,
      blockText(seen as unknown as HTMLElement),
      document.title,
      'selector',
    );
  }
  // HTML is the page's as it is (asked for as such); Markdown and text only what a person sees.
  if (request.format === 'html')
    return { content: document.documentElement.outerHTML, title: document.title, source: 'body' };
  const page = document.cloneNode(false) as Document;
  page.appendChild(seenCopy(document.documentElement));
  const article = new Readability(page.cloneNode(true) as Document).parse();
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
  const body = page.body;
  return render(request.format, body?.innerHTML ?? '', blockText(body), document.title, 'body');
}

/** A detached body's text with a line break after each block (innerText needs layout, which a copy has not). */
function blockText(body: HTMLElement | null): string {
  if (!body) return '';
  const out: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) return void out.push(node.nodeValue ?? '');
    if (!(node instanceof Element)) return;
    for (const kid of node.childNodes) walk(kid);
    if (
      /^(p|div|h[1-6]|li|tr|br|section|article|header|footer|main|nav|aside|blockquote|pre|table|ul|ol|dl|dt|dd|figure|figcaption|form|fieldset)$/.test(
        node.localName,
      )
    )
      out.push('\n');
  };
  walk(body);
  return out.join('');
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
