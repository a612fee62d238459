// The site the mcp-tasks bench case works on: five everyday tasks (a sign-up form, a shop with
// categories and pages through to check-out, a todo app, one fact in a long article, one row of a
// 2,000-row grid edited in a dialog), each page dressed as real sites are (a header of links, a
// search box, a footer of link lists), and a record of what each task changed, so an agent's run
// is judged by the site's end state, never by what the agent says it did.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TaskSite {
  url(path: string): string;
  /** What the tasks changed: sign-ups, orders, the todo list, the grid's statuses. */
  state: SiteState;
  reset(): void;
  close(): Promise<void>;
}

export interface SiteState {
  signups: Array<Record<string, string>>;
  orders: string[][];
  todos: Array<{ title: string; done: boolean }> | undefined;
  statuses: Record<string, string>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

const NAV = [
  'Deals',
  'New in',
  'Brands',
  'Gift ideas',
  'Help',
  'Stores',
  'Track an order',
  'Returns',
  'Blog',
  'Careers',
  'Sign in',
  'Basket',
];
const FOOTER: Record<string, string[]> = {
  Shop: ['Kitchen', 'Garden', 'Office', 'Toys', 'Books', 'Outdoor', 'Gift cards'],
  Help: ['Delivery', 'Returns', 'Contact us', 'FAQ', 'Size guide', 'Accessibility'],
  Company: ['About us', 'Careers', 'Press', 'Sustainability', 'Investors'],
  Legal: ['Terms', 'Privacy', 'Cookies', 'Modern slavery statement'],
};

/** A page as a real site dresses it: header, navigation, search, footer. */
function page(title: string, main: string, script = ''): string {
  const slug = (s: string) => '/' + s.toLowerCase().replace(/[^a-z]+/g, '-');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} | Acme</title></head><body>
<header><a href="/">Acme home</a>
<form role="search" action="/search"><label>Search Acme <input name="q" type="search"></label><button>Search</button></form>
<nav aria-label="Main">${NAV.map((n) => `<a href="${slug(n)}">${n}</a>`).join(' ')}</nav></header>
<main>${main}</main>
<footer>${Object.entries(FOOTER)
    .map(
      ([h, links]) =>
        `<section><h2>${h}</h2><ul>${links.map((l) => `<li><a href="${slug(l)}">${l}</a></li>`).join('')}</ul></section>`,
    )
    .join(
      '',
    )}<p>© 2026 Acme Ltd. Prices include VAT.</p></footer>${script ? `<script>${script}</script>` : ''}</body></html>`;
}

const COUNTRIES = [
  'Argentina',
  'Australia',
  'Austria',
  'Belgium',
  'Brazil',
  'Canada',
  'Chile',
  'Denmark',
  'Egypt',
  'Finland',
  'France',
  'Germany',
  'Greece',
  'India',
  'Ireland',
  'Italy',
  'Japan',
  'Kenya',
  'Mexico',
  'Netherlands',
  'New Zealand',
  'Norway',
  'Poland',
  'Portugal',
  'Singapore',
  'South Africa',
  'Spain',
  'Sweden',
  'Switzerland',
  'United Kingdom',
  'United States',
];

const SIGNUP = page(
  'Create your account',
  `<h1>Create your account</h1><p>It takes a minute. Already have an account? <a href="/sign-in">Sign in</a>.</p>
<form method="post" action="/signup">
<label>Full name <input name="name" autocomplete="name" required></label>
<label>Email <input name="email" type="email" required></label>
<label>Password <input name="password" type="password" required></label>
<label>Country <select name="country"><option value="">Choose…</option>${COUNTRIES.map((c) => `<option>${c}</option>`).join('')}</select></label>
<label>Date of birth <input name="birthday" type="date"></label>
<fieldset><legend>Plan</legend>${['Free', 'Team', 'Business'].map((p) => `<label><input type="radio" name="plan" value="${p.toLowerCase()}"${p === 'Free' ? ' checked' : ''}> ${p}</label>`).join('')}</fieldset>
<label><input type="checkbox" name="news" value="yes"> Send me the monthly newsletter</label>
<label><input type="checkbox" name="terms" value="yes" required> I accept the terms</label>
<button>Create account</button></form>`,
);

const CATEGORIES = ['Kitchen', 'Garden', 'Office', 'Toys', 'Books', 'Outdoor'];
const COLOURS = ['Red', 'Green', 'Steel', 'Copper', 'Black', 'White'];
const THINGS: Record<string, string[]> = {
  Kitchen: ['Kettle', 'Toaster', 'Teapot', 'Whisk', 'Colander', 'Grater', 'Ladle', 'Mixing bowl'],
  Garden: ['Trowel', 'Watering can', 'Hose', 'Rake', 'Planter', 'Shears', 'Bird feeder', 'Gloves'],
};
const PER_PAGE = 12;

/** A category's products: 36 of them, Blue Kettle on page 2. */
function products(category: string): string[] {
  const things = THINGS[category] ?? ['Notebook', 'Lamp', 'Puzzle', 'Chair', 'Stand', 'Box', 'Case', 'Set'];
  const list = COLOURS.flatMap((c) => things.map((t) => `${c} ${t.toLowerCase()}`)).slice(0, 36);
  if (category === 'Kitchen') list.splice(17, 0, 'Blue Kettle');
  return list;
}

function productCard(name: string, i: number): string {
  return `<li><article><h3>${esc(name)}</h3><p>£${(9 + ((i * 7) % 40)).toFixed(2)} · ${4 + (i % 2) * 0.5} stars · free delivery over £30</p>
<form method="post" action="/basket/add"><input type="hidden" name="item" value="${esc(name)}"><button>Add to basket</button></form></article></li>`;
}

function categoryPage(category: string, n: number): string {
  const all = products(category);
  const pages = Math.ceil(all.length / PER_PAGE);
  const link = (p: number, text: string) => `<a href="/shop/${category.toLowerCase()}?page=${p}">${text}</a>`;
  return page(
    `${category} – page ${n}`,
    `<nav aria-label="Categories">${CATEGORIES.map((c) => `<a href="/shop/${c.toLowerCase()}">${c}</a>`).join(' ')}</nav>
<h1>${category}</h1><p>${all.length} products · page ${n} of ${pages}</p>
<ul>${all
      .slice((n - 1) * PER_PAGE, n * PER_PAGE)
      .map((name, i) => productCard(name, i))
      .join('')}</ul>
<nav aria-label="Pages">${n > 1 ? link(n - 1, 'Previous page') : ''} ${Array.from({ length: pages }, (_, i) => link(i + 1, String(i + 1))).join(' ')} ${n < pages ? link(n + 1, 'Next page') : ''}</nav>`,
  );
}

const SHOP = page(
  'Shop',
  `<h1>Shop by category</h1><nav aria-label="Categories">${CATEGORIES.map((c) => `<a href="/shop/${c.toLowerCase()}">${c}</a>`).join(' ')}</nav>
<h2>Featured</h2><ul>${products('Garden').slice(0, 8).map(productCard).join('')}</ul>`,
);

const TODO_ITEMS = [
  'Buy milk',
  'Old task',
  'Call the plumber',
  'Renew passport',
  'Water the plants',
  'Pay the gas bill',
  'Return library books',
  'Book a dentist appointment',
];

const TODO = page(
  'Todos',
  `<h1>Todos</h1><input id="new" aria-label="What needs to be done?" placeholder="What needs to be done?">
<ul id="list"></ul><p id="left"></p><nav aria-label="Filters"><a href="#all">All</a> <a href="#active">Active</a> <a href="#completed">Completed</a></nav>`,
  // Changes touch only the item they change (as keyed lists do), so the other items keep their elements.
  `const todos = ${JSON.stringify(TODO_ITEMS.map((title) => ({ title, done: false })))};
const list = document.getElementById('list');
function left() { document.getElementById('left').textContent = todos.filter((t) => !t.done).length + ' items left'; }
let saves = 0;
function save() { left(); fetch('/todos', { method: 'POST', body: JSON.stringify({ n: ++saves, todos }) }); }
function item(t) {
  const li = document.createElement('li');
  const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: t.done });
  box.setAttribute('aria-label', 'Done: ' + t.title);
  box.onchange = () => { t.done = box.checked; save(); };
  const del = Object.assign(document.createElement('button'), { textContent: 'Delete' });
  del.setAttribute('aria-label', 'Delete ' + t.title);
  del.onclick = () => { todos.splice(todos.indexOf(t), 1); li.remove(); save(); };
  li.append(box, ' ' + t.title + ' ', del);
  list.append(li);
}
document.getElementById('new').onkeydown = (e) => {
  if (e.key !== 'Enter' || !e.target.value.trim()) return;
  const t = { title: e.target.value.trim(), done: false };
  todos.push(t); item(t); e.target.value = ''; save();
};
todos.forEach(item); left();`,
);

const SECTIONS: Array<[string, string]> = [
  [
    'Getting there',
    'The harbour is a ten minute walk from the railway station; follow the signs for the old town and then the quay. Buses 4 and 12 stop at the harbour gate every quarter of an hour.',
  ],
  [
    'Timetable',
    'Ferries leave the harbour every hour from six in the morning, and the last one sails at eleven at night. On public holidays the first sailing is at eight.',
  ],
  [
    'Tickets',
    'Tickets are sold at the kiosk on the quay and online. A single crossing costs four pounds, a day pass twelve. Cards and cash are taken at the kiosk.',
  ],
  [
    'Fares for families',
    'Children under 12 travel free when they travel with a paying adult. Teenagers pay half fare on presenting a school card. A family day pass covers two adults and three children.',
  ],
  ['Bicycles and dogs', 'Bicycles travel free outside the morning rush; dogs on a lead are welcome on the open deck.'],
  ['Accessibility', 'Every boat has step-free boarding by the ramp on the left of the gangway; ask the crew for help.'],
  [
    'Weather',
    'In storms the crossing may be cancelled; the board at the kiosk and the website say so by seven each morning.',
  ],
  ['History', 'The ferry has crossed the bay since 1874, first under sail, then by steam, and since 1961 by diesel.'],
];

const ARTICLE = page(
  'The ferry guide',
  `<article><h1>The ferry guide</h1><p>Everything you need for a day on the water, updated every season by our travel desk.</p>${SECTIONS.map(
    ([h, p], i) =>
      `<h2>${h}</h2><p>${p}</p>${Array.from({ length: 6 }, (_, k) => `<p>${`Section ${i + 1}, note ${k + 1}: ${'The crossing takes twenty minutes in calm weather and the view of the old town from the water is worth the trip alone. '.repeat(2)}`}</p>`).join('')}`,
  ).join('')}</article>`,
);

const STATUSES = ['Pending', 'Paid', 'Shipped', 'Cancelled'];
const orderId = (i: number) => `ORD-${1000 + i}`;

function grid(statuses: Record<string, string>): string {
  const rows = Array.from({ length: 2_000 }, (_, i) => {
    const id = orderId(i + 1);
    return `<tr><td>${id}</td><td>Customer ${i + 1}</td><td>2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}</td><td>£${((i * 37) % 500) + 10}.00</td><td class="status">${statuses[id] ?? STATUSES[i % 2]}</td><td><button data-id="${id}">Edit</button></td></tr>`;
  }).join('');
  return page(
    'Orders',
    `<h1>Orders</h1><table><thead><tr><th>Order</th><th>Customer</th><th>Date</th><th>Total</th><th>Status</th><th>Actions</th></tr></thead><tbody>${rows}</tbody></table>
<dialog id="edit" aria-labelledby="edit-title"><form method="dialog"><h2 id="edit-title">Edit order</h2>
<label>Status <select id="status">${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select></label>
<button value="save">Save</button> <button value="cancel">Cancel</button></form></dialog>`,
    `const dialog = document.getElementById('edit'); let row;
document.querySelector('tbody').onclick = (e) => {
  if (!e.target.dataset.id) return;
  row = e.target.closest('tr');
  document.getElementById('edit-title').textContent = 'Edit order ' + e.target.dataset.id;
  document.getElementById('status').value = row.querySelector('.status').textContent;
  dialog.showModal();
};
dialog.onclose = () => {
  if (dialog.returnValue !== 'save') return;
  const status = document.getElementById('status').value;
  row.querySelector('.status').textContent = status;
  fetch('/orders/' + row.cells[0].textContent, { method: 'POST', body: status });
};`,
  );
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => resolve(body));
  });

export async function startTaskSite(): Promise<TaskSite> {
  const state: SiteState = { signups: [], orders: [], todos: undefined, statuses: {} };
  let basket: string[] = [];
  let todoSaves = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    const redirect = (to: string) => res.writeHead(303, { location: to }).end();
    const category = url.pathname.match(/^\/shop\/([a-z]+)$/)?.[1];
    if (req.method === 'POST') {
      const body = await readBody(req);
      if (url.pathname === '/signup') {
        const fields = Object.fromEntries(new URLSearchParams(body));
        state.signups.push(fields);
        return html(
          page(
            'Welcome',
            `<h1>Welcome, ${esc(fields.name ?? '')}</h1><p>Your ${esc(fields.plan ?? '')} account is ready.</p>`,
          ),
        );
      }
      if (url.pathname === '/basket/add') {
        basket.push(new URLSearchParams(body).get('item') ?? '');
        return redirect('/basket');
      }
      if (url.pathname === '/checkout') {
        state.orders.push(basket);
        basket = [];
        return html(
          page(
            'Order placed',
            `<h1>Order placed</h1><p>Thank you. Your order number is A-${1000 + state.orders.length}.</p>`,
          ),
        );
      }
      if (url.pathname === '/todos') {
        // Two saves a moment apart can arrive in either order (two connections): the later one wins.
        const save = JSON.parse(body) as { n: number; todos: NonNullable<SiteState['todos']> };
        if (save.n > todoSaves) [todoSaves, state.todos] = [save.n, save.todos];
        return res.writeHead(204).end();
      }
      const order = url.pathname.match(/^\/orders\/(ORD-\d+)$/)?.[1];
      if (order) {
        state.statuses[order] = body;
        return res.writeHead(204).end();
      }
    }
    if (url.pathname === '/signup') return html(SIGNUP);
    if (url.pathname === '/shop') return html(SHOP);
    if (category && CATEGORIES.some((c) => c.toLowerCase() === category)) {
      const name = CATEGORIES.find((c) => c.toLowerCase() === category)!;
      const pages = Math.ceil(products(name).length / PER_PAGE);
      return html(categoryPage(name, Math.max(1, Math.min(pages, Number(url.searchParams.get('page') ?? 1) || 1))));
    }
    if (url.pathname === '/basket') {
      return html(
        page(
          'Basket',
          `<h1>Your basket</h1><table><thead><tr><th>Item</th><th>Quantity</th></tr></thead><tbody>${basket.map((b) => `<tr><td>${esc(b)}</td><td>1</td></tr>`).join('')}</tbody></table>
<form method="post" action="/checkout"><button>Check out</button></form> <a href="/shop">Continue shopping</a>`,
        ),
      );
    }
    if (url.pathname === '/todo') return html(TODO);
    if (url.pathname === '/guide') return html(ARTICLE);
    if (url.pathname === '/orders') return html(grid(state.statuses));
    res.writeHead(404, { 'content-type': 'text/html' }).end(page('Not found', '<h1>Not found</h1>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    state,
    reset() {
      state.signups = [];
      state.orders = [];
      state.todos = undefined;
      state.statuses = {};
      basket = [];
      todoSaves = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const TODO_START = TODO_ITEMS;
