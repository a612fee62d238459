// The corpus of real pages (../shared/corpus, captures from Mozilla Readability's tests) served
// on a free port as static documents: a CSP blocks scripts and everything from other sites, so
// a page is the same on every run and loads at once on a closed network. Used by the accuracy
// test and the snapshot-corpus benchmark.

import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** shared/ sits beside the checkout: found from this file (tests) or from the working directory (the bundled bench). */
export const CORPUS_DIR =
  [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpus'), path.resolve(process.cwd(), '../shared/corpus')].find((dir) => existsSync(dir)) ??
  path.resolve(process.cwd(), '../shared/corpus');
export const CORPUS_PAGES = ['cnet', 'medium-3', 'nytimes-1', 'qq', 'telegraph', 'wikipedia'] as const;

export interface CorpusServer {
  url(page: string): string;
  close(): Promise<void>;
}

export async function startCorpusServer(): Promise<CorpusServer> {
  const server = http.createServer((req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'http://x').pathname).replace(/\.html$/, '');
    if (!(CORPUS_PAGES as readonly string[]).includes(name)) return void res.writeHead(404).end();
    let html: Buffer;
    try {
      html = readFileSync(path.join(CORPUS_DIR, `${name}.html`));
    } catch (error) {
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`the corpus is not at ${CORPUS_DIR}: ${(error as Error).message}`);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:" });
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
