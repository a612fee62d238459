// The corpus of real pages (test/fixtures/corpus, captures from Mozilla Readability's tests) served
// on a free port as static documents: a CSP blocks scripts and everything from other sites, so
// a page is the same on every run and loads at once on a closed network. Used by the accuracy
// test and the snapshot-corpus benchmark.

import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_PAGES = ['cnet', 'medium-3', 'nytimes-1', 'qq', 'telegraph', 'wikipedia'] as const;

/**
 * The corpus lives in the checkout (test/fixtures/corpus). Found from this file when a test runs
 * it (test/helpers/) or from the bundle when the bench does (dist/); nothing outside the checkout.
 */
export const CORPUS_DIR = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../fixtures/corpus'), path.resolve(here, '../test/fixtures/corpus')];
  return candidates.find((dir) => existsSync(path.join(dir, 'wikipedia.html'))) ?? candidates[0]!;
})();

/** Fails naming what is missing, so a test never measures an empty corpus. */
export function assertCorpusPresent(): void {
  const missing = CORPUS_PAGES.filter((page) => !existsSync(path.join(CORPUS_DIR, `${page}.html`)));
  if (missing.length > 0)
    throw new Error(`corpus pages missing from ${CORPUS_DIR}: ${missing.map((p) => `${p}.html`).join(', ')}`);
}

export interface CorpusServer {
  url(page: string): string;
  close(): Promise<void>;
}

export async function startCorpusServer(): Promise<CorpusServer> {
  assertCorpusPresent();
  const server = http.createServer((req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'http://x').pathname).replace(/\.html$/, '');
    if (!(CORPUS_PAGES as readonly string[]).includes(name)) return void res.writeHead(404).end();
    let html: Buffer;
    try {
      html = readFileSync(path.join(CORPUS_DIR, `${name}.html`));
    } catch (error) {
      return void res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`the corpus is not at ${CORPUS_DIR}: ${(error as Error).message}`);
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (page) => `${base}/${page}.html`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
