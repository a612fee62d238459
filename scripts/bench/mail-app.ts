// The site the spa-tasks bench case works on: a mail client written as single-page apps are — it
// keeps its state in script and rebuilds its whole DOM on every change (search, star, open,
// archive, a new label), its handlers kept on the elements as a framework keeps them (React-style
// props, run by one listener at the root), its message rows clickable by their cursor with the
// subject a link without href. Each change is saved to the server, so a run is judged by the
// mailbox's end state, never by what the agent says it did.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MailState {
  starred: number[];
  archived: number[];
  labels: Record<string, number[]>;
}

export interface MailSite {
  url(path: string): string;
  state: MailState;
  reset(): void;
  close(): Promise<void>;
}

const PEOPLE = [
  'Grace Hopper',
  'Alan Turing',
  'Ada Byron',
  'Acme Billing',
  'Katherine Johnson',
  'Edsger Dijkstra',
  'Barbara Liskov',
  'Donald Knuth',
];
const SUBJECTS = [
  'Launch plan for the new compiler',
  'Lunch on Friday?',
  'Invoice 2291 for October',
  'Notes from the design review',
  'Your invoice is overdue',
  'Reading group: chapter 4',
  'Travel plans for the conference',
  'Quarterly numbers',
  'Re: the broken build',
  'Photos from the trip',
  'Welcome to the team',
  'Draft of the paper',
];

/** 24 messages, fixed: the tasks name some of them. */
export const MAILS = Array.from({ length: 24 }, (_, i) => ({
  id: i + 1,
  from: PEOPLE[(i * 5) % PEOPLE.length]!,
  subject: SUBJECTS[i % SUBJECTS.length]! + (i >= SUBJECTS.length ? ` (${Math.floor(i / SUBJECTS.length) + 1})` : ''),
  snippet: `Hello, a few words about ${SUBJECTS[i % SUBJECTS.length]!.toLowerCase()} and what comes next for the team.`,
  date: `Nov ${28 - i}`,
}));
// The ones the tasks are after, each the only one of its kind.
MAILS[0] = { ...MAILS[0]!, from: 'Grace Hopper', subject: 'Launch plan for the new compiler' };
MAILS[2] = { ...MAILS[2]!, from: 'Acme Billing', subject: 'Invoice 2291 for October' };
MAILS[4] = { ...MAILS[4]!, from: 'Edsger Dijkstra', subject: 'Your invoice is overdue' };
MAILS[6] = { ...MAILS[6]!, from: 'Alan Turing', subject: 'Travel plans for the conference' };
MAILS[14] = { ...MAILS[14]!, subject: 'Re: the invoice question' };

const APP = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inbox - Mail</title>
<style>.row { cursor: pointer } .row td { padding: 2px 6px } a.subject { color: #124; text-decoration: underline }</style>
</head><body><div id="app"></div><script>
const MAILS = ${JSON.stringify(MAILS)};
let state = { query: '', open: null, starred: [], archived: [], labels: { Work: [], Family: [] }, naming: false };
const KEY = '__reactProps$m1';
let saves = 0;
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const set = (change) => {
  state = { ...state, ...change };
  render();
  fetch('/mail/state', { method: 'POST', body: JSON.stringify({ n: ++saves, starred: state.starred, archived: state.archived, labels: state.labels }) });
};
const handlers = [];
const on = (fn) => 'data-h="' + (handlers.push(fn) - 1) + '"';
function render() {
  handlers.length = 0;
  const inbox = MAILS.filter((m) => !state.archived.includes(m.id));
  const q = state.query.toLowerCase();
  const shown = inbox.filter((m) => !q || (m.from + ' ' + m.subject + ' ' + m.snippet).toLowerCase().includes(q));
  const mail = MAILS.find((m) => m.id === state.open);
  const labelsOf = (id) => Object.keys(state.labels).filter((l) => state.labels[l].includes(id));
  document.getElementById('app').innerHTML =
    '<header><h1>Mail</h1><div role="search"><input id="q" aria-label="Search mail" value="' + esc(state.query) + '"> <button ' +
    on(() => set({ query: document.getElementById('q').value, open: null })) + '>Search</button></div></header>' +
    '<nav aria-label="Folders"><a ' + on(() => set({ open: null, query: '' })) + '>Inbox ' + inbox.length + '</a> <a>Starred</a> <a>Sent</a> <a>Drafts</a> <a>Spam</a> <a>Trash</a></nav>' +
    '<aside aria-label="Labels"><h2>Labels</h2>' + Object.keys(state.labels).map((l) => '<a>' + esc(l) + ' ' + state.labels[l].length + '</a> ').join('') +
    (state.naming
      ? '<input id="label-name" aria-label="Label name"> <button ' + on(() => {
          const name = document.getElementById('label-name').value.trim();
          if (name) set({ labels: { ...state.labels, [name]: [] }, naming: false });
        }) + '>Save label</button>'
      : '<button ' + on(() => set({ naming: true })) + '>Create label</button>') + '</aside>' +
    '<main>' + (mail
      ? '<article><h2>' + esc(mail.subject) + '</h2><p>From: ' + esc(mail.from) + ' · ' + mail.date + '</p><p>' + esc(mail.snippet) + '</p>' +
        '<p>Labels: ' + (labelsOf(mail.id).join(', ') || 'none') + '</p>' +
        '<button ' + on(() => set({ archived: [...state.archived, mail.id], open: null })) + '>Archive</button> ' +
        '<button ' + on(() => set({ open: null })) + '>Back to inbox</button> ' +
        '<label>Label <select id="label">' + Object.keys(state.labels).map((l) => '<option>' + esc(l) + '</option>').join('') + '</select></label> ' +
        '<button ' + on(() => {
          const l = document.getElementById('label').value;
          if (!state.labels[l].includes(mail.id)) set({ labels: { ...state.labels, [l]: [...state.labels[l], mail.id] } });
        }) + '>Apply label</button></article>'
      : '<table aria-label="Messages"><tbody>' + shown.map((m) => {
          const starred = state.starred.includes(m.id);
          return '<tr class="row" ' + on(() => set({ open: m.id })) + '><td><input type="checkbox" aria-label="Select"></td>' +
            '<td><span role="button" aria-label="' + (starred ? 'Unstar' : 'Star') + '" ' +
            on(() => set({ starred: starred ? state.starred.filter((s) => s !== m.id) : [...state.starred, m.id] })) + '>' + (starred ? '★' : '☆') + '</span></td>' +
            '<td>' + esc(m.from) + '</td><td><a class="subject" ' + on(() => set({ open: m.id })) + '>' + esc(m.subject) + '</a> — ' + esc(m.snippet) + '</td><td>' + m.date + '</td></tr>';
        }).join('') + '</tbody></table>' + (shown.length ? '' : '<p>No messages match.</p>')) + '</main>';
  // As a framework keeps them: each element's handler in its props, run by the one listener below.
  for (const el of document.querySelectorAll('[data-h]')) {
    el[KEY] = { onClick: handlers[Number(el.dataset.h)] };
    el.removeAttribute('data-h');
  }
}
const app = document.getElementById('app');
app.addEventListener('click', (e) => {
  if (e.target.type === 'checkbox') return;
  for (let el = e.target; el && el !== app; el = el.parentElement) if (el[KEY]?.onClick) return el[KEY].onClick();
});
app.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  if (e.target.id === 'q') set({ query: e.target.value, open: null });
  if (e.target.id === 'label-name' && e.target.value.trim()) set({ labels: { ...state.labels, [e.target.value.trim()]: [] }, naming: false });
});
render();
</script></body></html>`;

const empty = (): MailState => ({ starred: [], archived: [], labels: { Work: [], Family: [] } });

export async function startMailSite(): Promise<MailSite> {
  let state = empty();
  // Two saves a moment apart can arrive in either order (two connections): the later one wins.
  let saved = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/mail/state') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d));
      req.on('end', () => {
        const { n, ...next } = JSON.parse(body) as MailState & { n: number };
        if (n > saved) [saved] = [n, Object.assign(state, next)];
        res.writeHead(204).end();
      });
      return;
    }
    if (url.pathname === '/mail')
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(APP);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const site: MailSite = {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    state,
    reset() {
      state = empty();
      saved = 0;
      site.state = state;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return site;
}
