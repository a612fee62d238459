// A shop of two forms, the task the session export and the person's recording are tested on:
// who and which plan (a text field, a select, a submit), then news and an access code (a
// checkbox, a password field, a submit). The order it was sent is its state; a button can be
// renamed (the page changed under a recipe).

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Order {
  name?: string;
  plan?: string;
  news?: string;
  code?: string;
}

export async function startOrderShop() {
  let draft: Order = {};
  let order: Order | undefined;
  let posts = 0;
  const labels: Record<string, string> = {};
  const label = (text: string) => labels[text] ?? text;
  const page = (title: string, body: string) =>
    `<!doctype html><title>${title}</title><main><h1>${title}</h1>${body}</main>`;
  const server = http.createServer((req, res) => {
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (req.method === 'POST') {
      posts += 1;
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(raw));
        if (req.url === '/step1') {
          draft = { name: form.name, plan: form.plan };
          res.writeHead(303, { location: '/step2' }).end();
        } else {
          order = { ...draft, news: form.news ?? 'off', code: form.code };
          html(page('Thank you', `<p role="status">Order placed for ${order.name}</p>`));
        }
      });
      return;
    }
    if (req.url === '/step2')
      return html(
        page(
          'Extras',
          `<form method="post" action="/step2">
            <label><input type="checkbox" name="news"> Send me news</label>
            <label>Access code <input type="password" name="code"></label>
            <button>Place order</button></form>`,
        ),
      );
    html(
      page(
        'Your order',
        `<form method="post" action="/step1">
          <label>Full name <input name="name"></label>
          <label>Plan <select name="plan"><option value="basic">Basic</option><option value="pro">Pro</option></select></label>
          <button>${label('Next')}</button></form>`,
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    order: () => order,
    posts: () => posts,
    rename: (from: string, to: string) => void (labels[from] = to),
    reset: () => {
      draft = {};
      order = undefined;
      posts = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections(); // the browser keeps its connections open
        server.close(resolve);
      }),
  };
}
