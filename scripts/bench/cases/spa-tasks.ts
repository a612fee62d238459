// spa-tasks: what a task costs in context on a web app that rebuilds its DOM on every change (the
// mail client of mail-app.ts): star a mail, search and archive one, make a label and file a mail
// under it. clawd's agent follows the loop its MCP instructions recommend — find for the words it
// knows (navigate answering no view, as told), actions answering `diff` where it must see what
// changed — and
// Playwright MCP's the same plan with its own tools (find, a snapshot of the row or the page's
// main), once looking at unseen parts whole and once frugally; the cheaper is the baseline. Each
// run is judged by the mailbox's end state. Target: clawd ≤ 0.25× Playwright MCP's cheaper plan.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMailSite, type MailSite } from '../mail-app';
import { enclosingRef, pwLook, refIn, type TaskScript } from '../task-agents';
import { round, type CaseResult } from '../stats';
import { clawdMcpArgs, playwrightMcpArgs, runServer } from './mcp-tasks';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const star: TaskScript<MailSite> = {
  name: 'star a mail',
  async clawd(s, url) {
    await s.call('navigate', { url: url('/mail'), snapshot: 'none' });
    const row = await s.call('find', { q: 'Launch plan' });
    return s.call('act', { kind: 'click', ref: refIn(row, 'button', 'Star'), snapshot: 'diff' });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/mail') });
    const row = await s.call('browser_snapshot', {
      target: enclosingRef(await s.call('browser_find', { text: 'Launch plan' }), 'row', 'Launch plan'),
    });
    await s.call('browser_click', { element: 'Star', target: refIn(row, 'button', 'Star') });
    // Seeing what changed, as clawd's diff shows it: the row, found again (the list was rebuilt).
    return s.call('browser_snapshot', {
      target: enclosingRef(await s.call('browser_find', { text: 'Launch plan' }), 'row', 'Launch plan'),
    });
  },
  verify(site, answer) {
    if (!same(site.state.starred, [1])) return `starred ${JSON.stringify(site.state.starred)}`;
    return answer.includes('Unstar') ? undefined : 'the agent did not see the mail starred';
  },
};

const archive: TaskScript<MailSite> = {
  name: 'search and archive',
  async clawd(s, url) {
    await s.call('navigate', { url: url('/mail'), snapshot: 'none' });
    const box = refIn(await s.call('find', { q: 'Search mail' }), 'textbox', 'Search mail');
    // What a search leaves is read by find: a diff would list what went, not what is left.
    await s.call('act', { kind: 'type', ref: box, text: 'invoice', submit: true, snapshot: 'none' });
    const row = await s.call('find', { q: 'Acme Billing' });
    const opened = await s.call('act', {
      kind: 'click',
      ref: refIn(row, 'clickable', 'Invoice 2291 for October'),
      snapshot: 'diff',
    });
    await s.call('act', { kind: 'click', ref: refIn(opened, 'button', 'Archive'), snapshot: 'none' });
    return s.call('find', { q: 'Invoice 2291' });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/mail') });
    const box = refIn(await s.call('browser_find', { text: 'Search mail' }), 'textbox', 'Search mail');
    await s.call('browser_type', { element: 'Search mail', target: box, text: 'invoice', submit: true });
    const row = enclosingRef(await s.call('browser_find', { text: 'Acme Billing' }), 'row', 'Acme Billing');
    await s.call('browser_click', { element: 'the Acme Billing mail', target: row });
    const opened = await pwLook(s, 'Archive');
    await s.call('browser_click', { element: 'Archive', target: refIn(opened, 'button', 'Archive') });
    return s.call('browser_find', { text: 'Invoice 2291' });
  },
  verify(site, answer) {
    if (!same(site.state.archived, [3])) return `archived ${JSON.stringify(site.state.archived)}`;
    return answer.includes('Acme Billing') ? 'the agent still sees the mail in the inbox' : undefined;
  },
};

const label: TaskScript<MailSite> = {
  name: 'a new label, and a mail under it',
  async clawd(s, url) {
    await s.call('navigate', { url: url('/mail'), snapshot: 'none' });
    const create = refIn(await s.call('find', { q: 'Create label' }), 'button', 'Create label');
    const naming = await s.call('act', { kind: 'click', ref: create, snapshot: 'diff' });
    await s.call('act', {
      kind: 'type',
      ref: refIn(naming, 'textbox', 'Label name'),
      text: 'Travel',
      submit: true,
      snapshot: 'none',
    });
    const row = await s.call('find', { q: 'Travel plans' });
    const opened = await s.call('act', {
      kind: 'click',
      ref: refIn(row, 'clickable', 'Travel plans for the conference'),
      snapshot: 'diff',
    });
    await s.call('act', {
      kind: 'select',
      ref: refIn(opened, 'combobox', 'Label'),
      values: ['Travel'],
      snapshot: 'none',
    });
    // The answer says the words the click made appear ("Labels: Travel"): no view needed to see it applied.
    return s.call('act', { kind: 'click', ref: refIn(opened, 'button', 'Apply label'), snapshot: 'none' });
  },
  async playwright(s, url) {
    await s.call('browser_navigate', { url: url('/mail') });
    const create = refIn(await s.call('browser_find', { text: 'Create label' }), 'button', 'Create label');
    await s.call('browser_click', { element: 'Create label', target: create });
    const name = refIn(await s.call('browser_find', { text: 'Label name' }), 'textbox', 'Label name');
    await s.call('browser_type', { element: 'Label name', target: name, text: 'Travel', submit: true });
    const row = enclosingRef(await s.call('browser_find', { text: 'Travel plans' }), 'row', 'Travel plans');
    await s.call('browser_click', { element: 'the travel plans mail', target: row });
    const opened = await pwLook(s, 'Apply label');
    await s.call('browser_select_option', {
      element: 'Label',
      target: refIn(opened, 'combobox', 'Label'),
      values: ['Travel'],
    });
    await s.call('browser_click', { element: 'Apply label', target: refIn(opened, 'button', 'Apply label') });
    return s.call('browser_find', { text: 'Labels:' });
  },
  verify(site, answer) {
    if (!same(site.state.labels, { Work: [], Family: [], Travel: [7] }))
      return `labels ${JSON.stringify(site.state.labels)}`;
    return answer.includes('Labels: Travel') ? undefined : 'the agent did not see the label applied';
  },
};

export const SPA_TASKS = [star, archive, label];

export async function spaTasks(quick: boolean): Promise<CaseResult> {
  const site = await startMailSite();
  const temp = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-spa-'));
  const trace = process.env.CLAWD_BENCH_TRACE === '1';
  // Quick (CI's smoke run): the first task, the frugal plan only (the one that sets the baseline).
  const tasks = quick ? SPA_TASKS.slice(0, 1) : SPA_TASKS;
  try {
    const clawd = await runServer('clawd', clawdMcpArgs(temp), temp, site, trace, tasks);
    const pwArgs = playwrightMcpArgs(temp);
    const whole = quick ? undefined : await runServer('playwright', pwArgs, temp, site, trace, tasks);
    const frugal = await runServer('playwright', pwArgs, temp, site, trace, tasks, true);
    const best = Math.min(whole?.total.chars ?? Infinity, frugal.total.chars);
    const ratio = clawd.total.chars / best;
    const perTask = Object.fromEntries(
      tasks.map((t) => {
        const [c, f, w] = [clawd.perTask[t.name]!, frugal.perTask[t.name]!, whole?.perTask[t.name]];
        return [
          t.name.replace(/[^a-z0-9]+/gi, '-'),
          `${c.chars}/${w?.chars ?? '-'}/${f.chars} chars ${c.calls}/${w?.calls ?? '-'}/${f.calls} calls`,
        ];
      }),
    );
    return {
      name: 'spa-tasks',
      unit: `characters over ${tasks.length} task${tasks.length === 1 ? '' : 's'}`,
      value: clawd.total.chars,
      baseline: best,
      ratio: round(ratio, 3),
      target: '≤ 0.25× Playwright MCP',
      ok: ratio <= 0.25,
      details: {
        calls: clawd.total.calls,
        wholeLookChars: whole ? whole.total.chars : 'not run (quick)',
        frugalLookChars: frugal.total.chars,
        perTask: 'clawd/whole look/frugal look',
        ...perTask,
      },
    };
  } finally {
    await site.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
