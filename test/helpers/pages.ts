// Local test pages on a free port. The same server answers as 127.0.0.1 and as localhost, which
// are different sites: a page on one framing the other is a cross-site (out-of-process) iframe.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** `http://localhost:<port><path>` */
  otherSiteUrl(path: string): string;
  close(): Promise<void>;
}

const PAGES: Record<string, (port: number) => string> = {
  '/': () => '<!doctype html><title>home</title><h1>home</h1>',
  '/form': () => `<!doctype html><title>form</title>
    <label>Name <input id="name" name="name"></label>
    <label><input id="agree" type="checkbox"> I agree</label>
    <button id="go" onclick="document.getElementById('out').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
    <p id="out"></p>`,
  '/console': () => `<!doctype html><title>console</title>
    <button id="log" onclick="console.log('hello from the page', 42)">log</button>`,
  '/framed': () => `<!doctype html><title>framed</title>
    <p id="state">not clicked</p>
    <button id="inner" onclick="document.getElementById('state').textContent = 'clicked in frame'">inner button</button>`,
  '/outer': (port) => `<!doctype html><title>outer</title><h1>outer</h1>
    <iframe id="frame" src="http://localhost:${port}/framed" width="400" height="200"></iframe>`,
};

export async function startPageServer(): Promise<PageServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = PAGES[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page((server.address() as AddressInfo).port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    otherSiteUrl: (path) => `http://localhost:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
