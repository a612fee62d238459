// Local test pages on a free port. The same server answers as 127.0.0.1 and as localhost, which
// are different sites: a page on one framing the other is a cross-site (out-of-process) iframe.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SNAPSHOT_PAGES } from './snapshot-fixtures';

export interface PageServer {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** `http://localhost:<port><path>` */
  otherSiteUrl(path: string): string;
  /** Every request's path and query, in order (a test clears it as it likes). */
  requests: string[];
  close(): Promise<void>;
}

const PAGES: Record<string, (port: number) => string> = {
  '/': () => '<!doctype html><title>home</title><h1>home</h1>',
  // A canvas of noise, drawn once: its PNG does not compress (a capture of several hundred KB).
  '/noise':
    () => `<!doctype html><title>noise</title><style>body{margin:0}</style><canvas id=c width=480 height=360></canvas><script>
    const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(480, 360);
    for (let i = 0; i < img.data.length; i++) img.data[i] = i % 4 === 3 ? 255 : (Math.random() * 256) | 0;
    c.putImageData(img, 0, 0);</script>`,
  // A form the browser refuses by its own validation (nothing is sent), and a sign-in whose
  // error appears in an alert on the same document after the click.
  '/signup': () => `<!doctype html><title>Sign up</title><main><h1>Sign up</h1>
<form action="/"><label>Email <input type="email" name="email" required></label> <button>Create account</button></form></main>`,
  // A page that goes on to another by itself a moment after it loads, and then keeps
  // its renderer busy for 2 s: the new document's commit waits for that (a navigation under way).
  '/moving': () => `<!doctype html><title>Moving</title><h1>Moving on</h1><script>
    addEventListener('load', () => setTimeout(() => {
      location.href = '/sign-in?moved';
      const until = Date.now() + 2000;
      while (Date.now() < until);
    }, 700));</script>`,
  '/sign-in': () => `<!doctype html><title>Sign in</title><main><h1>Sign in</h1><div role="alert" id="error"></div>
<label>Password <input type="password" id="pw"></label> <button onclick="document.getElementById('error').textContent = 'Wrong password'">Sign in</button></main>`,
  // A cart whose Update writes the header's badge, rebuilds its rows (the same words) and writes
  // the total far below; Refresh rebuilds it all with nothing changed.
  '/cart':
    () => `<!doctype html><title>Cart</title><header><a href="#">Acme</a> <a href="#">Deals</a> <a href="#">Help</a>
    <a href="#" id="badge">Cart (1)</a></header><main><h1>Your cart</h1><ul id="rows"></ul>
    <label>Quantity <input id="qty" value="1"></label> <button onclick="update()">Update cart</button>
    <button onclick="update(true)">Refresh</button> <div contenteditable="true" role="textbox" aria-label="Gift note"></div>
    ${'<p>Delivery is free on orders over £50. Returns within 30 days.</p>'.repeat(40)}
    <p>Total: <span id="total">£10.00</span></p><p hidden id="note"></p></main>
    <script>
      let qty = 1;
      const rows = () => document.getElementById('rows').innerHTML = '<li>Blue mug, £10.00 each</li><li>Gift wrap, free</li>';
      function update(again) {
        if (!again) qty = Number(document.getElementById('qty').value);
        document.getElementById('badge').textContent = 'Cart (' + qty + ')';
        rows();
        document.getElementById('total').textContent = '£' + (qty * 10).toFixed(2);
        document.getElementById('note').textContent = 'a hidden note ' + qty;
      }
      rows();
    </script>`,
  // A mail client's mail view: Archive swaps it for the inbox (five rows, the count one less) and
  // announces it in a status line; Back to inbox swaps it without a word.
  '/mail-view': () => `<!doctype html><title>Mail</title><nav><a href="#">Inbox <span id="count">24</span></a></nav>
    <div role="status" id="toast"></div><main id="main"><h2>Invoice 2291</h2><p>From: Acme Billing</p>
    <p>Hello, a few words about invoice 2291.</p><p>Labels: none</p>
    <button onclick="inbox(true)">Archive</button> <button onclick="inbox(false)">Back to inbox</button></main>
    <script>
      const senders = ['Grace Hopper', 'Alan Turing', 'Ada Byron', 'Edsger Dijkstra', 'Barbara Liskov'];
      function inbox(archived) {
        document.getElementById('count').textContent = archived ? '23' : '24';
        if (archived) document.getElementById('toast').textContent = 'Conversation archived';
        document.getElementById('main').innerHTML = '<table>' +
          senders.map((who, i) => '<tr><td>' + who + '</td><td>Plans, part ' + i + '</td><td>Nov ' + (i + 2) + '</td></tr>').join('') +
          '</table>';
      }
    </script>`,
  // Four values a button writes again in place (no view taken out), and a live list a button
  // fills with twelve results.
  '/totals': () => `<!doctype html><title>Totals</title><main><h1>Your order</h1>
    <p>Subtotal: <span>£10.00</span></p><p>Tax: <span>£2.00</span></p><p>Shipping: <span>£1.00</span></p>
    <p>Total: <span>£13.00</span></p><button onclick="more()">Recalculate</button>
    <button onclick="search()">Search</button><ul aria-live="polite" id="results"></ul></main>
    <script>
      function more() {
        const values = ['£20.00', '£4.00', '£3.00', '£27.00'];
        document.querySelectorAll('p span').forEach((span, i) => (span.textContent = values[i]));
      }
      function search() {
        document.getElementById('results').innerHTML = Array.from({ length: 12 }, (_, i) => '<li>Result ' + i + '</li>').join('');
      }
    </script>`,
  '/form': () => `<!doctype html><title>form</title>
    <label>Name <input id="name" name="name"></label>
    <label><input id="agree" type="checkbox"> I agree</label>
    <button id="go" onclick="document.getElementById('out').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
    <p id="out"></p>`,
  '/console': () => `<!doctype html><title>console</title>
    <button id="log" onclick="console.log('hello from the page', 42)">log</button>`,
  '/framed': () => `<!doctype html><title>framed</title>
    <p id="state">not clicked</p>
    <button id="inner" onclick="this.n = (this.n || 0) + 1; document.getElementById('state').textContent = 'clicked in frame' + (this.n > 1 ? ' ' + this.n : '')">inner button</button>`,
  '/upload': () => `<!doctype html><title>upload</title>
    <input id="file" type="file" onchange="document.getElementById('got').textContent = [...this.files].map(f => f.name + ':' + f.size).join(',')">
    <p id="got">nothing</p>`,
  '/agent-form': () => `<!doctype html><title>agent form</title>
    <form id="f" onsubmit="event.preventDefault(); document.getElementById('result').textContent = 'submitted ' + new URLSearchParams(new FormData(this))">
      <label>Name <input name="name" id="name"></label>
      <label>Email <input name="email" id="email" type="email"></label>
      <label><input type="checkbox" name="agree" id="agree" value="yes"> Agree</label>
      <fieldset><legend>Size</legend>
        <label><input type="radio" name="size" value="small"> Small</label>
        <label><input type="radio" name="size" value="large"> Large</label>
      </fieldset>
      <label>Color <select name="color" id="color"><option value="red">Red</option><option value="green">Green</option><option value="blue">Blue</option></select></label>
      <label>Attachment <input type="file" id="file" onchange="document.getElementById('got').textContent = [...this.files].map(f => f.name + ':' + f.size).join(',')"></label>
      <p id="got">no file</p>
      <button type="submit">Send</button>
    </form>
    <p id="result">not submitted</p>
    <p id="keys" tabindex="0">keys:</p>
    <div id="hover" onmouseover="this.textContent = 'hovered'">hover me</div>
    <button id="later" onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'arrived'; p.textContent = 'arrived later'; document.body.append(p); document.getElementById('going').remove(); }, 300)">Later</button>
    <p id="going">going away</p>
    <script>document.addEventListener('keydown', (e) => { if (e.target.tagName !== 'INPUT') document.getElementById('keys').textContent += ' ' + e.key; });</script>`,
  '/dialogs': () => `<!doctype html><title>dialogs</title>
    <button onclick="alert('hello'); document.getElementById('answer').textContent = 'alert closed'">Alert</button>
    <button onclick="document.getElementById('answer').textContent = 'confirm ' + confirm('sure?')">Confirm</button>
    <button onclick="document.getElementById('answer').textContent = 'prompt ' + prompt('name?', 'nobody')">Prompt</button>
    <p id="answer">none</p>`,
  '/drag': () => `<!doctype html><title>drag</title>
    <div id="source" draggable="true" role="button" aria-label="Source" style="width:80px;height:40px;background:#fa0">drag me</div>
    <div id="target" role="region" aria-label="Target" style="width:160px;height:80px;margin-top:40px;border:2px dashed #333"
      ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.textContent = 'dropped'">drop here</div>`,
  '/long': () =>
    `<!doctype html><title>long</title><h1>Top</h1>${'<p>filler paragraph</p>'.repeat(300)}<button id="bottom" onclick="this.textContent = 'bottom clicked'">Bottom</button>`,
  '/replace': () => `<!doctype html><title>replace</title>
    <button id="victim" onclick="document.getElementById('log').textContent += ' victim'">Save</button>
    <button onclick="const b = document.getElementById('victim'); const n = b.cloneNode(true); n.onclick = () => document.getElementById('log').textContent += ' impostor'; b.replaceWith(n)">Swap</button>
    <p id="log">log:</p>`,
  '/covered': () => `<!doctype html><title>covered</title>
    <button id="under" onclick="this.textContent = 'reached'">Under</button>
    <div id="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)">cookie banner</div>`,
  // The live view's test page: a fixed colour block to find in the picture, a button, an input,
  // room to scroll, and ?animate=1 for a page that paints every frame (the bench's frame rate).
  '/live': () => `<!doctype html><title>live</title>
    <style>body { margin: 0; height: 4000px; font: 16px sans-serif; }</style>
    <div id="block" style="position:fixed;left:0;top:0;width:200px;height:200px;background:rgb(0,200,0)"></div>
    <button id="press" style="position:absolute;left:300px;top:40px;width:200px;height:60px" onclick="document.getElementById('out').textContent = 'pressed ' + (++this.n || (this.n = 1))">Press</button>
    <input id="field" style="position:absolute;left:300px;top:140px;width:300px;height:40px">
    <p id="out" style="position:absolute;left:300px;top:200px">not pressed</p>
    <button id="paint" style="position:absolute;left:300px;top:260px" onclick="document.getElementById('block').style.background = 'rgb(0, 0, 220)'">Paint</button>
    <script>if (location.search.includes('animate')) { const b = document.getElementById('block'); (function tick(t) { b.style.background = 'hsl(' + (t / 5 % 360) + ',80%,50%)'; requestAnimationFrame(tick); })(0); }</script>`,
  // A news article among navigation, for GET /content: headline and paragraphs, not the menus.
  '/article': () => `<!doctype html><title>Lighthouse saved - Harbour News</title>
    <header><nav><ul>${['Home', 'Politics', 'Sports', 'Weather', 'Contact'].map((n) => `<li><a href="/${n.toLowerCase()}">${n}</a></li>`).join('')}</ul></nav></header>
    <main><article>
      <h1>Council votes to save the old lighthouse</h1>
      <p class="byline">By Ada Marsh</p>
      <p>${'The harbour council met on Tuesday to decide the future of the old lighthouse, which has stood above the bay for two hundred years and still guides the evening ferries home. '.repeat(3)}</p>
      <p>Residents who campaigned for months called the vote a victory; read <a href="https://example.com/report">the full report</a> for the figures. ${'The harbour council met on Tuesday to decide the future of the old lighthouse, which has stood above the bay for two hundred years and still guides the evening ferries home. '.repeat(2)}</p>
      <p>Repairs start in spring and should be finished before the summer season. ${'The harbour council met on Tuesday to decide the future of the old lighthouse, which has stood above the bay for two hundred years and still guides the evening ferries home. '.repeat(2)}</p>
    </article></main>
    <aside id="aside"><h2>Most read</h2><ul><li><a href="/a">Ferry timetable changes</a></li><li><a href="/b">Storm warning</a></li></ul></aside>
    <footer><p>© Harbour News · <a href="/privacy">Privacy</a></p></footer>`,
  // A big table: 2,000 people, each row with an Edit button that marks that row (find's page).
  '/grid': () =>
    `<!doctype html><title>staff</title><h1>Staff</h1><table><thead><tr><th>Name</th><th>Email</th><th>Status</th><th></th></tr></thead><tbody>${Array.from(
      { length: 2_000 },
      (_, i) =>
        `<tr id="r${i + 1}"><td>Person ${i + 1}</td><td>person${i + 1}@example.com</td><td class="status">active</td><td><button onclick="this.closest('tr').querySelector('.status').textContent = 'edited'">Edit</button></td></tr>`,
    ).join('')}</tbody></table>`,
  // A shop page with its basket in a cross-site iframe.
  '/shop-framed': (port) =>
    `<!doctype html><title>shop</title><h1>Shop</h1><p>Browse the shelves.</p><iframe src="http://localhost:${port}/basket" width="400" height="200"></iframe>`,
  '/basket':
    () => `<!doctype html><title>basket</title><h2>Basket</h2><ul><li>Tea <button>Remove</button></li><li>Cake <button>Remove</button></li></ul>
    <button onclick="this.textContent = 'Checked out'">Checkout</button>`,
  // Every kind of field fill takes; a Lock field that disables Key as it is typed into.
  '/fields': () => `<!doctype html><title>fields</title>
    <label>Name <input id="name" value="Old name"></label>
    <label>Bio <textarea id="bio"></textarea></label>
    <label>Age <input id="age" type="number"></label>
    <label>Birthday <input id="birthday" type="date"></label>
    <label>Alarm <input id="alarm" type="time"></label>
    <label>Color <select id="color"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select></label>
    <label><input type="checkbox" id="news"> News</label>
    <fieldset><legend>Size</legend><label><input type="radio" name="size" value="s" checked> Small</label><label><input type="radio" name="size" value="l"> Large</label></fieldset>
    <div id="notes" contenteditable="true" role="textbox" aria-label="Notes"></div>
    <span id="fruit-label">Fruit</span>
    <div id="fruit" role="combobox" aria-labelledby="fruit-label" aria-expanded="false" aria-controls="fruits" tabindex="0">Choose</div>
    <ul id="fruits" role="listbox" hidden>${['Apple', 'Banana', 'Cherry'].map((f) => `<li role="option">${f}</li>`).join('')}</ul>
    <label>Lock <input id="lock" oninput="document.getElementById('key').disabled = this.value === 'lock'"></label>
    <label>Key <input id="key"></label>
    <script>
      const fruit = document.getElementById('fruit'), list = document.getElementById('fruits');
      // The options appear a moment after the box opens, as they do when they are fetched.
      const show = (open) => { list.hidden = !open; fruit.setAttribute('aria-expanded', String(open)); };
      fruit.onclick = () => (list.hidden ? setTimeout(() => show(true), 200) : show(false));
      fruit.onkeydown = (e) => e.key === 'Escape' && show(false);
      list.querySelectorAll('[role=option]').forEach((o) => (o.onclick = () => { fruit.textContent = o.textContent; show(false); }));
    </script>`,
  // An article in sections, for content's heading and match.
  '/guide': () => `<!doctype html><title>Ferry guide - Harbour News</title>
    <nav><a href="/">Home</a> <a href="/news">News</a></nav>
    <main><article><h1>The ferry guide</h1>
      <h2>Timetable</h2><p>${'Ferries leave the harbour every hour from six in the morning, and the last one sails at eleven at night. '.repeat(3)}</p>
      <h2>Fares</h2><p>${'A single crossing costs four pounds and a return costs seven. '.repeat(3)}</p><p>Children travel free on weekends, and dogs travel free every day.</p>
      <h2>Accessibility</h2><p>${'Every ferry has a ramp and a lift between its decks, and the crew will help anyone who asks. '.repeat(3)}</p>
    </article></main>`,
  // A page dressed as sites are: header, menu and footer around main, a button per table row.
  '/store': () => `<!doctype html><title>Orders - Store</title>
    <header><a href="/">Store home</a><nav aria-label="Main"><a href="/deals">Deals</a> <a href="/help">Help</a> <a href="/blog">Blog</a> <a href="/cart">Cart</a></nav></header>
    <main><h1>Orders</h1><a href="/guide">Guide</a> <button onclick="history.pushState({}, '', '/store?view=2')">Next view</button><table><tbody>${Array.from({ length: 300 }, (_, i) => `<tr><td>Order ${i + 1}</td><td><button onclick="this.textContent = 'Opened'">Edit</button></td></tr>`).join('')}</tbody></table></main>
    <footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a> <a href="/contact">Contact</a></footer>`,
  // Requests of every outcome: a JSON API (200), a posted JSON, a missing image (404), an aborted fetch.
  '/netlog': () => `<!doctype html><title>netlog</title><img src="/missing.png" alt="missing"><p id="out">waiting</p>
    <script>
      fetch('/api/data.json').then((r) => r.json()).then((j) => (document.getElementById('out').textContent = 'got ' + j.items.length));
      fetch('/api/data.json?saved=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hello: 'world' }) });
      const stop = new AbortController();
      fetch('/api/slow', { signal: stop.signal }).catch(() => (document.getElementById('out').dataset.aborted = 'yes'));
      setTimeout(() => stop.abort(), 200);
    </script>`,
  // 3,000 requests, 100 at a time (three times what a tab keeps); the title says when they are done.
  '/netflood': () => `<!doctype html><title>flooding</title><script>
    (async () => {
      for (let i = 0; i < 2000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => fetch('/api/data.json?i=' + (i + k)).then((r) => r.text())));
      document.title = 'done';
    })();
  </script>`,
  // Downloads: a link with the download attribute, and one the server sends as an attachment.
  '/downloads': () => `<!doctype html><title>downloads</title>
    <a href="/files/report.bin?size=5000" download>Report</a>
    <a href="/files/big.bin?size=3000000">Big file</a>
    <a href="/files/attached.bin?size=2048">Attachment</a>`,
  // A tall page with a scrollable box, and a field that tells a focus from a click.
  '/scrolling': () => `<!doctype html><title>scrolling</title>
    <style>body { margin: 0; height: 3000px; } #box { height: 100px; width: 200px; overflow: auto; } #inner { height: 1000px; }</style>
    <div id="box" role="region" aria-label="Box"><div id="inner"><button>In the box</button></div></div>
    <input id="field" aria-label="Field" onfocus="this.dataset.focused = 'yes'" onclick="this.dataset.clicked = 'yes'">`,
  // A page whose main thread a click hangs for good (a script stuck in a loop).
  '/stuck': () => `<!doctype html><title>stuck</title>
    <button onclick="for (;;) {}">Hang</button>
    <button onclick="this.textContent = 'clicked'">Other</button>`,
  '/outer': (port) => `<!doctype html><title>outer</title><h1>outer</h1>
    <iframe id="frame" src="http://localhost:${port}/framed" width="400" height="200"></iframe>`,
  // Ways a page opens another tab, and a service worker it registers (the parity suite).
  '/opener': () => `<!doctype html><title>opener</title>
    <a id="blank" href="/popup?by=link" target="_blank">in a new tab</a>
    <button id="open" onclick="window.open('/popup?by=open')">open</button>
    <button id="noopener" onclick="window.open('/popup?by=noopener', '_blank', 'noopener')">open without opener</button>`,
  '/popup': () =>
    `<!doctype html><title>popup</title><p id="by"></p><script>document.getElementById('by').textContent = location.search</script>`,
  '/sw-page': () => `<!doctype html><title>service worker</title><p id="state">registering</p>
    <script>navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => document.getElementById('state').textContent = 'ready')</script>`,
  '/sw.js': () =>
    `self.answer = 42; self.addEventListener('install', () => self.skipWaiting()); self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));`,
};

/** The bytes /files/ serves: byte i is i mod 251, so a test can check every byte it got. */
export function downloadBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

function productPage(added: boolean): string {
  return `<!doctype html><title>Blue mug | Shop</title>
<header><nav aria-label="Shop"><a href="/">Home</a> <a href="/product">Mugs</a></nav></header>
<main><h1>Blue mug</h1><div role="status">${added ? 'Added to your cart: Blue mug' : ''}</div>
<p>A mug, blue. 350 ml.</p>
<form method="post" action="/cart/add"><input type="hidden" name="sku" value="blue-mug"><button>Add to cart</button></form></main>`;
}

/** `/many?n=5000`: that many interactive elements, for snapshot size limits. */
function manyPage(n: number): string {
  const items = Array.from({ length: n }, (_, i) =>
    i % 2 ? `<a href="#i${i}">link ${i}</a>` : `<button>button ${i}</button>`,
  );
  return `<!doctype html><title>many</title><main><h1>Many</h1><ul>${items.map((item) => `<li><div><span>${item}</span></div></li>`).join('')}</ul></main>`;
}

export async function startPageServer(): Promise<PageServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    const path = url.pathname;
    if (path === '/many') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(manyPage(Number(url.searchParams.get('n') ?? 100)));
      return;
    }
    // Files to download: /files/<name>?size=N bytes of a known pattern, as an attachment.
    if (path.startsWith('/files/')) {
      const size = Number(url.searchParams.get('size') ?? 1000);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        'content-disposition': `attachment; filename="${path.slice(7)}"`,
      });
      return void res.end(downloadBytes(size));
    }
    // A JSON API, and one that answers only after 10 s (to be aborted by the page).
    if (path === '/api/data.json')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ items: [1, 2, 3], ok: true }));
    if (path === '/api/slow') {
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'), 10_000);
      req.once('close', () => clearTimeout(timer));
      return;
    }
    // A shop's product page, and its cart form: a POST answered by a redirect back to the page,
    // which then says how it went (server-rendered, as such pages are).
    if (path === '/cart/add' && req.method === 'POST')
      return void res.writeHead(303, { location: '/product?added=1' }).end();
    if (path === '/product')
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(productPage(url.searchParams.has('added')));
    // Chromium asks every site for its icon; a 404 would land in the page's console as an error.
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const page = PAGES[path] ?? SNAPSHOT_PAGES[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const type = path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8';
    res.writeHead(200, { 'content-type': type }).end(page((server.address() as AddressInfo).port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    otherSiteUrl: (path) => `http://localhost:${port}${path}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
