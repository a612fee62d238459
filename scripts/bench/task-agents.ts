// The scripted agents of the mcp-tasks case: for each task, the calls an agent makes with one
// MCP server's tools, reading refs only from what that server answered (never from the page's
// source). Both follow the same plan, step for step, each with its server's cheapest fitting
// tool: where the agent must see a page it has not seen (a form to fill, a list to change), it
// looks — clawd's brief view, Playwright MCP's page snapshot (its actions link the snapshot in
// a file the agent would read, so it asks for it instead), or in its frugal run a find and a
// snapshot of the page's main; where it knows the words it is after,
// it finds; actions answer nothing more than where they led unless the agent must see what
// changed (clawd's diff; Playwright MCP's find or one-element snapshot) — and where an action's
// answer already says how it ended (clawd's words the action made appear), it does not look again.

import type { TaskSite } from './task-site';

/** One MCP conversation: a tool call answers its text, or throws with the server's error. */
export interface AgentSession {
  call(tool: string, args: Record<string, unknown>): Promise<string>;
  /** Playwright MCP only: look at a page by finding a word of it and snapshotting only its main. */
  frugal?: boolean;
}

export interface TaskScript<Site = TaskSite> {
  name: string;
  clawd(s: AgentSession, url: (path: string) => string): Promise<string>;
  playwright(s: AgentSession, url: (path: string) => string): Promise<string>;
  /** What is wrong with the site's end state (and the agent's last answer), or undefined. */
  verify(site: Site, answer: string): string | undefined;
}

/** A ref as either server prints it: clawd's `[e12]`, Playwright MCP's `[ref=f2e12]`. */
const REF = /\[(?:ref=)?((?:f\d+)?e\d+)\]/;

/** A line of a snapshot, as either server prints it (Playwright MCP's start with "- "), not a heading of the answer. */
const isSnapshotLine = (line: string) =>
  line.trimStart().startsWith('- ') || (/^\s*[a-z]+( "|:)/.test(line) && !/^(loaded|page|changes)[ :]/.test(line));

/**
 * The ref on the first line naming this role and name, as both servers print it; with `after`,
 * the first such line after the snapshot line that holds that text (the button of that card).
 */
export function refIn(text: string, role: string, name: string, after?: string): string {
  const lines = text.split('\n');
  const from = after === undefined ? 0 : lines.findIndex((l) => isSnapshotLine(l) && l.includes(after));
  const line = from < 0 ? undefined : lines.slice(from).find((l) => l.includes(`${role} "${name}"`) && REF.test(l));
  const ref = line?.match(REF)?.[1];
  if (!ref)
    throw new Error(
      `the agent found no ${role} "${name}"${after ? ` after "${after}"` : ''} in:\n${text.slice(0, 3_000)}`,
    );
  return ref;
}

/** The ref of the nearest line above the snapshot line holding `text` that has this role (its row). */
export function enclosingRef(answer: string, role: string, text: string): string {
  const lines = answer.split('\n');
  const at = lines.findIndex((l) => isSnapshotLine(l) && l.includes(text));
  const indent = (l: string) => l.search(/\S/);
  for (let i = at - 1, depth = at < 0 ? 0 : indent(lines[at]!); i >= 0; i--) {
    if (indent(lines[i]!) >= depth) continue;
    depth = indent(lines[i]!);
    if (new RegExp(`^(- )?${role}[ :]`).test(lines[i]!.trimStart())) {
      const ref = lines[i]!.match(REF)?.[1];
      if (ref) return ref;
    }
  }
  throw new Error(`the agent found no ${role} around "${text}" in:\n${answer.slice(0, 3_000)}`);
}

/**
 * How the Playwright agent looks at a page it has not seen: the whole page, or (frugal) a find
 * for a word it expects there and a snapshot of the page's main landmark around it — less to
 * read, one call more, and the agent must guess a word first.
 */
export async function pwLook(s: AgentSession, expected: string): Promise<string> {
  if (!s.frugal) return s.call('browser_snapshot', {});
  return s.call('browser_snapshot', {
    target: enclosingRef(await s.call('browser_find', { text: expected }), 'main', expected),
  });
}

const SIGNUP = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  password: 'correct horse 7',
  country: 'Ireland',
  birthday: '1990-12-10',
};

const signup: TaskScript = {
  name: 'sign-up form',
  async clawd(s, url) {
    const page = await s.call('navigate', { url: url('/signup') });
    await s.call('act', {
      kind: 'fill',
      fields: [
        { ref: refIn(page, 'textbox', 'Full name'), value: SIGNUP.name },
        { ref: refIn(page, 'textbox', 'Email'), value: SIGNUP.email },
        { ref: refIn(page, 'textbox', 'Password'), value: SIGNUP.password },
        { ref: refIn(page, 'combobox', 'Country'), value: SIGNUP.country },
        { ref: refIn(page, 'textbox', 'Date of birth'), value: SIGNUP.birthday },
        { ref: refIn(page, 'radio', 'Team'), value: true },
        { ref: refIn(page, 'checkbox', 'I accept the terms'), value: true },
      ],
    });
    return s.call('act', { kind: 'click', ref: refIn(page, 'button', 'Create account') });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/signup') });
    const page = await pwLook(s, 'Full name');
    const field = (type: string, role: string, name: string, value: string) => ({
      name,
      type,
      target: refIn(page, role, name),
      value,
    });
    await s.call('browser_fill_form', {
      fields: [
        field('textbox', 'textbox', 'Full name', SIGNUP.name),
        field('textbox', 'textbox', 'Email', SIGNUP.email),
        field('textbox', 'textbox', 'Password', SIGNUP.password),
        field('combobox', 'combobox', 'Country', SIGNUP.country),
        field('textbox', 'textbox', 'Date of birth', SIGNUP.birthday),
        field('radio', 'radio', 'Team', 'true'),
        field('checkbox', 'checkbox', 'I accept the terms', 'true'),
      ],
    });
    return s.call('browser_click', {
      element: 'Create account button',
      target: refIn(page, 'button', 'Create account'),
    });
  },
  verify(site, answer) {
    const got = site.state.signups;
    const want = {
      name: SIGNUP.name,
      email: SIGNUP.email,
      password: SIGNUP.password,
      country: SIGNUP.country,
      birthday: SIGNUP.birthday,
      plan: 'team',
      terms: 'yes',
    };
    if (got.length !== 1 || Object.entries(want).some(([k, v]) => got[0]![k] !== v) || got[0]!.news)
      return `signed up ${JSON.stringify(got)}`;
    return answer.includes('Welcome') ? undefined : 'the agent did not see the welcome page';
  },
};

const shop: TaskScript = {
  name: 'shop to check-out',
  async clawd(s, url) {
    // The agent knows what it is after: it finds rather than looks.
    await s.call('navigate', { url: url('/shop'), snapshot: 'none' });
    await s.call('act', { kind: 'click', ref: refIn(await s.call('find', { q: 'Kitchen' }), 'link', 'Kitchen') });
    // Not on the first page: the agent looks, then pages on.
    if ((await s.call('find', { q: 'Blue Kettle' })).match(REF)) throw new Error('Blue Kettle is on page 2');
    await s.call('act', { kind: 'click', ref: refIn(await s.call('find', { q: 'Next page' }), 'link', 'Next page') });
    const card = await s.call('find', { q: 'Blue Kettle' });
    await s.call('act', { kind: 'click', ref: refIn(card, 'button', 'Add to basket', 'Blue Kettle') });
    return s.call('act', {
      kind: 'click',
      ref: refIn(await s.call('find', { q: 'Check out' }), 'button', 'Check out'),
    });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/shop') });
    await s.call('browser_click', {
      element: 'Kitchen link',
      target: refIn(await s.call('browser_find', { text: 'Kitchen' }), 'link', 'Kitchen'),
    });
    if ((await s.call('browser_find', { text: 'Blue Kettle' })).match(REF)) throw new Error('Blue Kettle is on page 2');
    await s.call('browser_click', {
      element: 'Next page link',
      target: refIn(await s.call('browser_find', { text: 'Next page' }), 'link', 'Next page'),
    });
    // find shows the match in its card, with the card's button.
    const card = await s.call('browser_find', { text: 'Blue Kettle' });
    await s.call('browser_click', {
      element: 'Add to basket button',
      target: refIn(card, 'button', 'Add to basket', 'Blue Kettle'),
    });
    const checkout = await s.call('browser_find', { text: 'Check out' });
    return s.call('browser_click', { element: 'Check out button', target: refIn(checkout, 'button', 'Check out') });
  },
  verify(site, answer) {
    if (JSON.stringify(site.state.orders) !== JSON.stringify([['Blue Kettle']]))
      return `ordered ${JSON.stringify(site.state.orders)}`;
    return answer.includes('Order placed') ? undefined : 'the agent did not see the order placed';
  },
};

const TODO_END = [
  'Buy milk',
  'Call the plumber',
  'Renew passport',
  'Water the plants',
  'Pay the gas bill',
  'Return library books',
  'Book a dentist appointment',
  'Write report',
  'Book flights',
];

const todo: TaskScript = {
  name: 'todo app',
  async clawd(s, url) {
    const page = await s.call('navigate', { url: url('/todo') });
    const box = refIn(page, 'textbox', 'What needs to be done?');
    await s.call('act', { kind: 'type', ref: box, text: 'Write report', submit: true });
    await s.call('act', { kind: 'type', ref: box, text: 'Book flights', submit: true });
    await s.call('act', { kind: 'click', ref: refIn(page, 'checkbox', 'Done: Buy milk') });
    return s.call('act', { kind: 'click', ref: refIn(page, 'button', 'Delete Old task'), snapshot: 'diff' });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/todo') });
    const page = await pwLook(s, 'Buy milk');
    const box = refIn(page, 'textbox', 'What needs to be done?');
    await s.call('browser_type', { element: 'new todo box', target: box, text: 'Write report', submit: true });
    await s.call('browser_type', { element: 'new todo box', target: box, text: 'Book flights', submit: true });
    await s.call('browser_click', { element: 'Buy milk checkbox', target: refIn(page, 'checkbox', 'Done: Buy milk') });
    await s.call('browser_click', { element: 'Delete Old task', target: refIn(page, 'button', 'Delete Old task') });
    // Seeing every change, as clawd's diff shows them: the list, found again (refs last one snapshot).
    return s.call('browser_snapshot', {
      target: enclosingRef(await s.call('browser_find', { text: 'Book flights' }), 'list', 'Book flights'),
    });
  },
  verify(site, answer) {
    const got = site.state.todos ?? [];
    if (
      JSON.stringify(got.map((t) => t.title)) !== JSON.stringify(TODO_END) ||
      got
        .filter((t) => t.done)
        .map((t) => t.title)
        .join() !== 'Buy milk'
    )
      return `todos ${JSON.stringify(got)}`;
    return answer.includes('Book flights') ? undefined : 'the agent did not see its new todo';
  },
};

const article: TaskScript = {
  name: 'one fact in an article',
  async clawd(s, url) {
    await s.call('navigate', { url: url('/guide'), snapshot: 'none' });
    return s.call('content', { match: 'children' });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/guide') });
    return s.call('browser_find', { text: 'children' });
  },
  verify(_site, answer) {
    return answer.includes('Children under 12 travel free') ? undefined : 'the answer lacks the fare for children';
  },
};

const gridRow: TaskScript = {
  name: 'one row of a 2,000-row grid',
  async clawd(s, url) {
    await s.call('navigate', { url: url('/orders'), snapshot: 'none' });
    const row = await s.call('find', { q: 'ORD-1742' });
    const dialog = await s.call('act', {
      kind: 'click',
      ref: refIn(row, 'button', 'Edit', 'ORD-1742'),
      snapshot: 'diff',
    });
    await s.call('act', { kind: 'select', ref: refIn(dialog, 'combobox', 'Status'), values: ['Shipped'] });
    // The answer says the words the save made appear (the row's new status): no find needed to see it.
    return s.call('act', { kind: 'click', ref: refIn(dialog, 'button', 'Save') });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/orders') });
    // find shows the matching cell and what is around it, not the rest of its row: the row's snapshot does.
    const found = await s.call('browser_find', { text: 'ORD-1742' });
    const row = await s.call('browser_snapshot', { target: enclosingRef(found, 'row', 'ORD-1742') });
    await s.call('browser_click', { element: 'Edit button of ORD-1742', target: refIn(row, 'button', 'Edit') });
    const dialog = await s.call('browser_snapshot', {
      target: enclosingRef(await s.call('browser_find', { text: 'Edit order' }), 'dialog', 'Edit order ORD-1742'),
    });
    await s.call('browser_select_option', {
      element: 'Status',
      target: refIn(dialog, 'combobox', 'Status'),
      values: ['Shipped'],
    });
    await s.call('browser_click', { element: 'Save button', target: refIn(dialog, 'button', 'Save') });
    // Its refs last one snapshot: the row is found again to be read.
    return s.call('browser_snapshot', {
      target: enclosingRef(await s.call('browser_find', { text: 'ORD-1742' }), 'row', 'ORD-1742'),
    });
  },
  verify(site, answer) {
    if (JSON.stringify(site.state.statuses) !== JSON.stringify({ 'ORD-1742': 'Shipped' }))
      return `statuses ${JSON.stringify(site.state.statuses)}`;
    return answer.includes('Shipped') ? undefined : 'the agent did not see the row shipped';
  },
};

export const TASKS: TaskScript[] = [signup, shop, todo, article, gridRow];
