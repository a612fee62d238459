// Asks decided by what happens (relay/agent/actions/action-watch.ts): the person asked to be asked before
// a form is sent, a new site is loaded and a file is downloaded, and each is asked whatever way
// the agent's call brings it about — Enter written "\r" or "\n", a slow type with "\r", a click on
// a submit button's label, a click on a page that overrides Element.prototype.closest (the
// element probe runs in the page's world), a link to another site, a redirect to one, a script's
// navigation, a click on a download link (an attachment, or a type the browser cannot show that
// says no disposition, a link's `download` attribute, a file the page makes). Deny: the server never sees the form or the other
// site, the download stops, and the call answers person_declined; Allow: it happens once. What a
// call leaves running is asked about too, after it answered and let the tab go: a click's script
// that loads another site once its own request comes back, a timer that sends a form.

import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../relay/consent/person-questions';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { answeringWhile, quiet, until } from '../helpers/waits';

interface Site {
  url(path: string, other?: boolean): string;
  /** `METHOD host path` of every request that reached it. */
  hits: string[];
  close(): void;
}

async function startSite(): Promise<Site> {
  const hits: string[] = [];
  let port = 0;
  const other = () => `http://localhost:${port}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/favicon.ico') hits.push(`${req.method} ${req.headers.host?.split(':')[0]} ${url.pathname}`);
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${body}`);
    switch (url.pathname) {
      case '/form':
        return html(`<title>form</title>
          ${url.searchParams.has('closest') ? '<script>Element.prototype.closest = function () { return null; };</script>' : ''}
          <form method="post" action="/sent"><input name="q" aria-label="Search">
          <button id="buy">Buy</button></form><label for="buy" role="button">Label of buy</label>`);
      case '/links':
        return html(`<title>links</title>
          <a href="${other()}/linked">Other site</a>
          <a href="/redirect">Redirected</a>
          <a href="/file">Report</a>
          <a href="/archive">Archive</a>
          <a href="/note" download>Saved copy</a>
          <button onclick="const a = document.createElement('a'); a.href = window.URL.createObjectURL(new Blob(['made here'])); a.download = 'made.txt'; a.click()">Make a file</button>`);
      case '/later':
        // A payment button's way: the other site loads once the page's own request answers; and
        // a form sent by a timer the click set.
        return html(`<title>later</title>
          <button onclick="fetch('/slow').then(() => { location.href = '${other()}/paid'; })">Pay</button>
          <form method="post" action="/sent"><input name="q" aria-label="Search"></form>
          <button onclick="setTimeout(() => document.forms[0].submit(), 400)">Send later</button>`);
      case '/popups':
        // What opens a new tab: a link to another site, a form sent there by a script.
        return html(`<title>popups</title>
          <a href="${other()}/popped" target="_blank">New tab on another site</a>
          <form method="post" action="/sent" target="_blank"><input name="q" aria-label="Search"></form>
          <button onclick="document.forms[0].submit()">Send in a new tab</button>
          <button onclick="window.open('${other()}/opened')">Open a window</button>
          <a href="${other()}/held">Plain link</a>
          <button onclick="const w = window.open(); w.document.write('<form method=post action=' + location.origin + '/written></form>'); w.document.forms[0].submit()">Write a form in a new window</button>
          <button onclick="window.open('/popped-later')">Open a page that sends later</button>
          <button onclick="window.open('/flee')">Open a page that leaves</button>
          <button onclick="document.getElementById('sneaky').dispatchEvent(new MouseEvent('click', { ctrlKey: true, bubbles: true, cancelable: true }))">Plain button</button>
          <a id="sneaky" href="${other()}/sneaked"></a>`);
      case '/flee':
        // A page that opens another site in a new tab and closes itself at once.
        return html(`<title>flee</title>
          <button onclick="window.open('${other()}/fled'); window.close()">Open and leave</button>`);
      case '/popped-later':
        // A new tab that sends a form a while after it opened (its opener may be gone by then).
        return html(`<title>later</title><form method="post" action="${other()}/sent-later"></form>
          <script>setTimeout(() => document.forms[0].submit(), 1500)</script>`);
      case '/slow':
        return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 400);
      case '/redirect':
        return void res.writeHead(302, { location: `${other()}/redirected` }).end();
      case '/file':
        return void res
          .writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' })
          .end('the report');
      case '/note':
        // A page the browser shows, saved only because the link says `download`.
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('a note');
      case '/archive':
        // A file Chrome saves because it cannot show its type: no disposition says so.
        return void res.writeHead(200, { 'content-type': 'application/zip' }).end('PK\x03\x04 not really a zip');
      default:
        return html(`<title>${url.pathname}</title><p>reached</p>`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: (path, isOther) => `${isOther ? other() : `http://127.0.0.1:${port}`}${path}`,
    hits,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each([
  ['managed', managedDriver],
  ['extension', extensionDriver],
] as const)('asks by what happens, on a %s profile', (kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  let site: Site;
  let before: string[];
  beforeAll(async () => {
    site = await startSite();
    before = (await ctx.d.api<{ ask: string[] }>('GET', '/policy')).body.ask;
    const set = await ctx.d.api('POST', '/policy', {
      ask: [...new Set([...before, 'submit', 'new-site', 'download'])],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });
  afterAll(async () => {
    await ctx.d?.loosen({ ask: before });
    site?.close();
  });

  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);
  let sessions = 0;
  /** A new agent session (its own sites visited) on the page: its first load is allowed. */
  const open = async (path: string, fresh = false, session = `s${++sessions}`) => {
    // What reached the site from here on: a failed setup says it (a load made twice shows twice).
    const hitsFrom = site.hits.length;
    // The tab's current site counts as visited by a session that works there: for a new-site
    // case, start on this one (the last case may have left the tab on the other).
    // The last case's refused load may still be ending on its error page: the call waits for it
    // (relay/agent/actions/refused-loads.ts; before, on a loaded machine, a load here was
    // "interrupted by another navigation to chrome-error://", and one made again by the first).
    if (fresh) {
      const { answer: started } = await answering(true, () =>
        api('POST', '/navigate', { targetId: ctx.d.targetId, url: site.url('/start') }),
      );
      expect(started.status, JSON.stringify(started.body)).toBe(200);
    }
    const { answer: loaded } = await answering(true, () =>
      api('POST', '/navigate', { targetId: ctx.d.targetId, url: site.url(path), snapshot: 'full', session }),
    );
    // A setup that fails lets the tab go: the next cases fail for their own reasons, not tab_held.
    if (loaded.status !== 200) await release(session);
    const reached = site.hits.slice(hitsFrom).join('; ');
    expect(loaded.status, `${JSON.stringify(loaded.body)} (the site saw: ${reached})`).toBe(200);
    const refs = loaded.body.snapshot.refs as Record<string, { name: string }>;
    const ref = (name: string) => {
      const found = Object.entries(refs).find(([, r]) => r.name === name);
      if (!found) throw new Error(`no ref named ${name} in ${loaded.body.snapshot.snapshot}`);
      return found[0];
    };
    return Object.assign(ref, { session });
  };
  const release = (session: string) => api('DELETE', `/tabs/${ctx.d.targetId}/hold?session=${session}`);
  /** Runs the call while the person answers each question it raises; says which kinds were asked. */
  const answering = async <T = { status: number; body: any }>(
    allow: boolean,
    call: (asked: string[]) => Promise<T>,
  ) => {
    const questions = ctx.d.server.server.consent.questions;
    const asked: string[] = [];
    const decide = (q: Question) => {
      if (q.terminal) return undefined;
      asked.push(...q.kinds);
      return allow;
    };
    return { answer: await answeringWhile(questions, decide, call(asked)), asked };
  };
  let current = '';
  const act = (body: Record<string, unknown>) =>
    api('POST', '/act', { targetId: ctx.d.targetId, timeoutMs: 20_000, snapshot: 'none', session: current, ...body });
  const posts = () => site.hits.filter((h) => h.startsWith('POST'));
  const otherHits = () => site.hits.filter((h) => h.includes(' localhost '));
  /** The profile's tabs, by target id. */
  const tabs = async () =>
    (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs.map((t) => t.targetId);

  it.each([
    ['press "\\r" in a field', (ref: (n: string) => string) => act({ kind: 'press', ref: ref('Search'), key: '\r' })],
    ['press "\\n" in a field', (ref: (n: string) => string) => act({ kind: 'press', ref: ref('Search'), key: '\n' })],
    [
      'type slowly with "\\r"',
      // One key before the "\r": a slow type waits 75 ms after each key (relay/agent/actions/actions.ts).
      (ref: (n: string) => string) => act({ kind: 'type', ref: ref('Search'), text: 'k\r', slowly: true }),
    ],
    [
      'click the submit button’s label',
      (ref: (n: string) => string) => act({ kind: 'click', ref: ref('Label of buy') }),
    ],
  ])('asks before a form is sent by %s: Deny, the server sees nothing; Allow, once', async (_how, send) => {
    for (const allow of [false, true]) {
      site.hits.length = 0;
      const ref = await open('/form');
      current = ref.session;
      site.hits.length = 0;
      const { answer, asked } = await answering(allow, () => send(ref)).finally(() => release(ref.session));
      expect(asked, JSON.stringify(answer.body)).toContain('submit');
      if (allow) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(posts()).toEqual(['POST 127.0.0.1 /sent']);
      } else {
        expect(answer.body.error?.code, JSON.stringify(answer.body)).toBe('person_declined');
        await quiet(200);
        expect(posts()).toEqual([]);
      }
    }
  });

  it('asks before a form is sent on a page that overrides the element probe’s own methods', async () => {
    for (const allow of [false, true]) {
      site.hits.length = 0;
      const ref = await open('/form?closest=1');
      current = ref.session;
      site.hits.length = 0;
      const { answer, asked } = await answering(allow, () => act({ kind: 'click', ref: ref('Buy') })).finally(() =>
        release(ref.session),
      );
      expect(asked).toContain('submit');
      expect(posts()).toEqual(allow ? ['POST 127.0.0.1 /sent'] : []);
      expect(answer.status).toBe(allow ? 200 : 403);
    }
  });

  it.each([
    ['a link to another site', 'Other site', '/linked'],
    ['a link that redirects to another site', 'Redirected', '/redirected'],
  ])('asks before %s loads: Deny, the other site sees nothing; Allow, once', async (_how, name, path) => {
    for (const allow of [false, true]) {
      site.hits.length = 0;
      const ref = await open('/links', true);
      current = ref.session;
      site.hits.length = 0;
      try {
        const { answer, asked } = await answering(allow, () => act({ kind: 'click', ref: ref(name) }));
        expect(asked, JSON.stringify(answer.body)).toContain('new-site');
        await quiet(200);
        expect(otherHits()).toEqual(allow ? [`GET localhost ${path}`] : []);
        expect(answer.status, JSON.stringify(answer.body)).toBe(allow ? 200 : 403);
        // Once allowed, the session has been on that site: it is not asked again.
        if (allow) {
          const again = await answering(false, () =>
            api('POST', '/navigate', { targetId: ctx.d.targetId, url: site.url('/again', true), session: ref.session }),
          );
          expect(again.asked).toEqual([]);
        }
      } finally {
        await release(ref.session);
      }
    }
  });

  it('asks before a tab it opens on a site it has been on redirects to another: Deny, the other site sees nothing; Allow, once', async () => {
    for (const allow of [false, true]) {
      const ref = await open('/links', true);
      site.hits.length = 0;
      const opened: string[] = [];
      const before = await tabs();
      const others = async () => (await tabs()).filter((id) => !before.includes(id));
      try {
        // Its own site: nothing to ask before it opens; the redirect is asked about as it comes.
        const { answer, asked } = await answering(allow, () =>
          api('POST', '/tabs/open', { url: site.url('/redirect'), session: ref.session }),
        );
        // Refused, the call leaves no tab behind (closed as it answers: gone from the list a moment later).
        if (!allow) await until('the refused tab closed', async () => (await others()).length === 0).catch(() => {});
        opened.push(...(await others()));
        expect(asked, JSON.stringify(answer.body)).toEqual(['new-site']);
        await quiet(200);
        expect(otherHits()).toEqual(allow ? ['GET localhost /redirected'] : []);
        if (allow) expect(answer.body.url, JSON.stringify(answer.body)).toBe(site.url('/redirected', true));
        else expect(answer.body.error?.code, JSON.stringify(answer.body)).toBe('person_declined');
        // Allowed, the tab it answers is the one opened.
        expect(opened).toEqual(allow ? [answer.body.targetId] : []);
      } finally {
        await release(ref.session);
        for (const targetId of opened) await api('DELETE', `/tabs/${targetId}`);
      }
    }
  });

  // On the person's own tabs (the extension) a new tab's loads are held by the extension's rules
  // until its opener's watch is on it (relay/cdp/held-tabs.ts), and its first load is made again
  // then: a form sent into one cannot be, so it is not sent at all, nor asked about.
  it.each([
    ['a link opens another site in a new tab', 'New tab on another site', 'new-site', 'GET localhost /popped'],
    ['a script sends a form to a new tab', 'Send in a new tab', 'submit', 'POST 127.0.0.1 /sent'],
    ['a script opens another site in a window', 'Open a window', 'new-site', 'GET localhost /opened'],
    // Chrome loads a tab it opens for a held key before any debugger may pause it: held at the browser.
    ['a Ctrl-click opens a link in a new tab', 'Plain link', 'new-site', 'GET localhost /held', ['Control']],
    // A page turns a plain click into a Ctrl-click of its own making: Chrome opens a tab for it too.
    ['a plain click’s script Ctrl-clicks a link', 'Plain button', 'new-site', 'GET localhost /sneaked'],
    [
      'a script writes a form into a new window and sends it',
      'Write a form in a new window',
      'submit',
      'POST 127.0.0.1 /written',
    ],
  ] as Array<[string, string, string, string, string[]?]>)(
    'asks when %s: Deny, the site sees nothing; Allow, once',
    async (_how, name, askKind, hit, modifiers?: string[]) => {
      // On the person's own tabs a form sent into a new tab before its watch is on is not sent at
      // all (the hold cannot send it again), nor asked about; one sent once it is on is asked.
      const heldForm = kind === 'extension' && askKind === 'submit';
      for (const allow of [false, true]) {
        const ref = await open('/popups', true);
        current = ref.session;
        const before = await tabs();
        site.hits.length = 0;
        const reached = () => site.hits.filter((h) => h === hit);
        try {
          const { answer, asked } = await answering(allow, () =>
            act({ kind: 'click', ref: ref(name), ...(modifiers ? { modifiers } : {}) }),
          );
          const neverSent = heldForm && asked.length === 0;
          // (one sent as its watch came on and then refused by the hold goes to clawd's page, a new site too)
          // (what reached the site said too: a failure tells a load let through from one never made)
          const said = JSON.stringify({ answer: answer.body, hits: site.hits });
          if (heldForm && !neverSent) expect(asked, said).toContain('submit');
          else expect(asked, said).toEqual(neverSent ? [] : askKind.split(','));
          if (allow && !heldForm) await until(`${hit} reached the site`, () => reached().length > 0);
          else await quiet(300);
          // Allowed, a held form sent as its watch came on may still be refused by the hold: never sent unasked.
          if (!(allow && heldForm)) expect(reached()).toEqual(allow ? [hit] : []);
          expect(answer.status, JSON.stringify(answer.body)).toBe(allow || neverSent ? 200 : 403);
          if (!allow && !neverSent) expect(answer.body.error.code).toBe('person_declined');
        } finally {
          await release(ref.session);
          for (const opened of (await tabs()).filter((id) => !before.includes(id)))
            await api('DELETE', `/tabs/${opened}`);
        }
      }
    },
  );

  // While new tabs are held (a watched call ran), a tab the person opens themselves is theirs: its
  // first load, refused until Chrome says whose it is, is made again, once.
  it.runIf(kind === 'extension')('lets a tab the person opens load while new tabs are held', async () => {
    const ref = await open('/popups', true);
    await release(ref.session);
    site.hits.length = 0;
    const mine = await ctx.d.browser!.openTab(site.url('/mine', true));
    try {
      expect(site.hits).toEqual(['GET localhost /mine']);
      const tabs = (await api<{ tabs: Array<{ targetId: string }> }>('GET', '/tabs')).body.tabs;
      expect(tabs.map((t) => t.targetId)).not.toContain(mine.pageTargetId);
    } finally {
      await ctx.d.browser!.cdp.send('Target.closeTarget', { targetId: mine.pageTargetId });
    }
  });

  it('never lets a new tab load unasked when the page that opened it closes itself at once', async () => {
    // A page a script opened may close itself: the agent's tab opens one, then acts in it.
    const ref = await open('/popups', true);
    current = ref.session;
    const before = await tabs();
    try {
      const { answer: clicked } = await answering(true, () =>
        act({ kind: 'click', ref: ref('Open a page that leaves') }),
      );
      expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
      const [fleeing] = (await tabs()).filter((id) => !before.includes(id));
      const snap = await api('GET', `/snapshot?targetId=${fleeing}&session=${ref.session}`);
      const [leave] = Object.entries(snap.body.refs as Record<string, { name: string }>).find(
        ([, r]) => r.name === 'Open and leave',
      )!;
      site.hits.length = 0;
      // The person's answers heard past the call: Chrome loads a refused load's error page again
      // by itself after 1 s (on the person's tabs no flag turns that off), which asked again.
      const { asked } = await answering(false, async () => {
        const clickedAt = Date.now();
        await api('POST', '/act', {
          targetId: fleeing,
          kind: 'click',
          ref: leave,
          session: ref.session,
          timeoutMs: 20_000,
        });
        // Its page gone, no watch of it can hold the new tab any more: the call does not wait
        // the 6 s a new tab may take to be held (it did, on the person's tabs, where the new tab
        // shows only after its opener closed).
        expect(Date.now() - clickedAt).toBeLessThan(5_000);
        await until('the page that opened it closed', async () => !(await tabs()).includes(fleeing!));
        await quiet(2_000);
      });
      // Asked (and refused), or closed with no watch left to ask: never loaded unasked; asked once.
      expect(otherHits(), JSON.stringify(asked)).toEqual([]);
      expect(asked.length, JSON.stringify(asked)).toBeLessThanOrEqual(1);
    } finally {
      await release(ref.session);
      for (const id of (await tabs()).filter((id) => !before.includes(id))) await api('DELETE', `/tabs/${id}`);
    }
  });

  // On a managed profile: on the person's own tabs a pop-up is let go with its opener (the extension's rule).
  it.runIf(kind === 'managed')(
    'asks when a new tab sends a form after its opener was closed: Deny, the site sees nothing',
    async () => {
      // A tab of its own: the agent closes it.
      const session = `s${++sessions}`;
      const { answer: made } = await answering(true, () =>
        api<{ targetId: string }>('POST', '/tabs/open', { url: site.url('/start'), session }),
      );
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const opener = made.body.targetId;
      const { answer: loaded } = await answering(true, () =>
        api('POST', '/navigate', { targetId: opener, url: site.url('/popups'), snapshot: 'full', session }),
      );
      expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
      const [ref] = Object.entries(loaded.body.snapshot.refs as Record<string, { name: string }>).find(
        ([, r]) => r.name === 'Open a page that sends later',
      )!;
      const before = await tabs();
      site.hits.length = 0;
      const { answer, asked } = await answering(false, async (asked) => {
        const clicked = await api('POST', '/act', { targetId: opener, kind: 'click', ref, session, timeoutMs: 20_000 });
        const opened = (await tabs()).filter((id) => !before.includes(id));
        expect(opened).toHaveLength(1);
        // The agent closes the tab that opened it: what it opened is still judged.
        await api('DELETE', `/tabs/${opener}/hold?session=${session}`);
        const closed = await api('DELETE', `/tabs/${opener}`);
        expect(closed.status, JSON.stringify(closed.body)).toBe(200);
        await until('the person asked about the form', () => asked.includes('submit'), 10_000);
        await api('DELETE', `/tabs/${opened[0]}`);
        return clicked;
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(asked).toEqual(['submit', 'new-site']);
      await quiet(300);
      expect(site.hits.filter((h) => h.startsWith('POST'))).toEqual([]);
    },
  );

  it.each([
    ['a click’s script loads another site once its request answers', 'Pay', 'new-site', 'GET localhost /paid'],
    ['a timer a click set sends a form', 'Send later', 'submit', 'POST 127.0.0.1 /sent'],
  ])('asks when %s after the call answered: Deny, it never happens; Allow, once', async (_how, name, kind, hit) => {
    for (const allow of [false, true]) {
      const ref = await open('/later', true);
      current = ref.session;
      site.hits.length = 0;
      const reached = () => site.hits.filter((h) => h === hit);
      try {
        const { answer, asked } = await answering(allow, async (asked) => {
          const clicked = await act({ kind: 'click', ref: ref(name) });
          // The call is done before the load or the form goes: the tab's watch stays on after it,
          // even once the session lets the tab go.
          expect(asked).toEqual([]);
          expect((await release(ref.session)).status).toBe(200);
          await until(`the person asked about ${kind}`, () => asked.includes(kind), 10_000);
          return clicked;
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(asked).toEqual([kind]);
        if (allow) await until(`${hit} reached the site`, () => reached().length > 0);
        else await quiet(300);
        expect(reached()).toEqual(allow ? [hit] : []);
      } finally {
        await release(ref.session);
      }
    }
  });

  it('asks before a script the agent runs loads another site (evaluate: on a managed profile)', async () => {
    for (const allow of [false, true]) {
      const ref = await open('/links', true);
      current = ref.session;
      site.hits.length = 0;
      const { answer, asked } = await answering(allow, () =>
        act({ kind: 'evaluate', fn: `() => { location.href = ${JSON.stringify(site.url('/scripted', true))}; }` }),
      ).finally(() => release(ref.session));
      if (kind === 'extension') {
        // The person's own browser runs no agent's code unless the person allows it.
        expect(answer.body.error?.code).toBe('evaluate_disabled');
        return;
      }
      expect(asked, JSON.stringify(answer.body)).toContain('new-site');
      await quiet(200);
      expect(otherHits()).toEqual(allow ? ['GET localhost /scripted'] : []);
      expect(answer.status, JSON.stringify(answer.body)).toBe(allow ? 200 : 403);
    }
  });

  it.each([
    ['an attachment', 'Report'],
    ['a file of a type the browser cannot show, which says no disposition', 'Archive'],
  ])(
    'asks before a download a click starts (%s): Deny refuses the call and stops it; Allow lets it go',
    async (_what, link) => {
      for (const allow of [false, true]) {
        site.hits.length = 0;
        const ref = await open('/links');
        current = ref.session;
        const { answer, asked } = await answering(allow, () => act({ kind: 'click', ref: ref(link) })).finally(() =>
          release(ref.session),
        );
        expect(asked, JSON.stringify(answer.body)).toContain('download');
        expect(answer.status, JSON.stringify(answer.body)).toBe(allow ? 200 : 403);
        if (!allow) expect(answer.body.error.code).toBe('person_declined');
      }
    },
  );

  // No document answer says these are downloads: the browser's word that one begins is judged
  // (relay/agent/actions/action-watch.ts `judgeDownload`), and Deny has Chrome cancel it.
  it.each([
    ['a link’s download attribute, to a page the browser would show', 'Saved copy', '/note'],
    ['a file the page makes itself (blob:)', 'Make a file', 'blob:'],
  ])(
    'asks before a download no answer says is one (%s): Deny, no file kept; Allow, saved',
    async (_what, name, url) => {
      const listed = async () =>
        (
          await api<{ downloads: Array<{ url: string; state: string; path: string | null }> }>(
            'GET',
            `/downloads?targetId=${ctx.d.targetId}`,
          )
        ).body.downloads.filter((d) => d.url.includes(url));
      const inChrome = () =>
        ctx.d.browser!.swEval<Array<{ state: string; exists: boolean }>>(
          `chrome.downloads.search({}).then((items) => items.filter((i) => i.url.includes(${JSON.stringify(url)})).map((i) => ({ state: i.state, exists: i.exists })))`,
        );
      for (const allow of [false, true]) {
        const before = (await listed()).length;
        const ref = await open('/links');
        current = ref.session;
        const { answer, asked } = await answering(allow, () => act({ kind: 'click', ref: ref(name) })).finally(() =>
          release(ref.session),
        );
        expect(asked, JSON.stringify(answer.body)).toEqual(['download']);
        expect(answer.status, JSON.stringify(answer.body)).toBe(allow ? 200 : 403);
        if (!allow) expect(answer.body.error.code).toBe('person_declined');
        await until(
          `the download ${allow ? 'saved' : 'cancelled'}`,
          async () => (await listed())[before]?.state !== 'in_progress' && (await listed()).length > before,
        );
        const entry = (await listed())[before]!;
        expect(entry.state).toBe(allow ? 'complete' : 'cancelled');
        if (allow) expect(existsSync(entry.path!)).toBe(true);
        else expect(entry.path).toBeNull();
        // The person's own browser keeps no file of a download they refused.
        if (kind === 'extension' && !allow)
          await until('Chrome cancelled it', async () =>
            (await inChrome()).every((d) => d.state !== 'complete' || !d.exists),
          ).catch(async (e: Error) => {
            throw new Error(`${e.message}: ${JSON.stringify(await inChrome())}`);
          });
      }
    },
  );

  // A raw CDP client — Playwright through the relay on the person's tab, or on the managed
  // profile's own port: what its input brings about is judged at the request as an agent call's
  // is (relay/cdp/raw-watches.ts, the gate of relay/cdp/client-gate.ts on both doors).
  describe(`a raw CDP client ${kind === 'extension' ? 'on the person’s tab' : 'on the profile’s port'}`, () => {
    let raw: Browser;
    let page: Page;
    let door: string;
    /** Refs of /links for an agent session that has been on the other site (before the client came). */
    let traveller: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      const been = await open('/links', true);
      await answering(true, () =>
        api('POST', '/navigate', { targetId: ctx.d.targetId, url: site.url('/there', true), session: been.session }),
      );
      traveller = await open('/links', false, been.session);
      door =
        kind === 'extension'
          ? ctx.d.server.server.relay.url
          : (await api<{ cdpUrl: string }>('POST', '/start')).body.cdpUrl;
      raw = await chromium.connectOverCDP(`${door}/?token=${ctx.d.server.token}`);
      // The driver's tab (on the person's browser, the one they handed over).
      page = await until('the raw client to see the tab', async () => {
        for (const candidate of raw.contexts()[0]?.pages() ?? []) {
          const cdp = await raw.contexts()[0]!.newCDPSession(candidate);
          const { targetInfo } = await cdp.send('Target.getTargetInfo');
          await cdp.detach();
          if (targetInfo.targetId === ctx.d.targetId) return candidate;
        }
        return undefined;
      });
    });
    /** Tabs the client's clicks opened: closed once it has gone (closed under it, its next command there raised a question of its own). */
    const leftOpen: string[] = [];
    afterAll(async () => {
      await raw?.close();
      for (const opened of leftOpen) await api('DELETE', `/tabs/${opened}`);
    });

    it('asks for the client about a load an agent’s call starts: one watch letting a request go is not enough', async () => {
      // The tab is watched for the client (its stay's first command that is not a read) …
      await page.evaluate('1');
      site.hits.length = 0;
      // … and an agent's click goes to a site its own session has been on, but the client has not.
      const { answer, asked } = await answering(false, () =>
        api('POST', '/act', {
          kind: 'click',
          ref: traveller('Other site'),
          targetId: ctx.d.targetId,
          session: traveller.session,
        }),
      );
      try {
        expect(asked, JSON.stringify(answer.body)).toEqual(['new-site']);
        // The load the call started was refused: the call says so.
        expect(answer.body.error?.code, JSON.stringify(answer.body)).toBe('person_declined');
        // Chrome loads a failed page again after 1 s while its tab shows (on the person's tabs no
        // flag turns that off): the refused page is stopped, so the person is not asked again.
        const again: string[] = [];
        const off = ctx.d.server.server.consent.questions.onChange(({ state, question }) => {
          if (state === 'asked') again.push(question.what);
        });
        await quiet(1_800).finally(off);
        expect(again).toEqual([]);
        expect(otherHits()).toEqual([]);
      } finally {
        await release(traveller.session);
      }
    });

    /** Runs the client's action while the person answers; waits for the question it must raise. */
    const rawly = async (allow: boolean, action: () => Promise<unknown>) =>
      (
        await answering(allow, async (asked) => {
          await action().catch(() => {}); // a denied load fails the client's navigation: that is the point
          await until('the person to be asked', () => asked.length > 0);
        })
      ).asked;

    it('asks before its Enter sends a form, and before its click loads another site', async () => {
      for (const allow of [false, true]) {
        const ref = await open('/form');
        await release(ref.session);
        site.hits.length = 0;
        const asked = await rawly(allow, () => page.getByLabel('Search').press('Enter'));
        expect(asked).toContain('submit');
        if (allow) await until('the form to reach the site', () => posts().length > 0);
        else await quiet(200);
        expect(posts()).toEqual(allow ? ['POST 127.0.0.1 /sent'] : []);
      }
      for (const allow of [false, true]) {
        const ref = await open('/links', true);
        await release(ref.session);
        site.hits.length = 0;
        const asked = await rawly(allow, () => page.getByText('Other site').click());
        expect(asked).toContain('new-site');
        if (allow) await until('the other site to be loaded', () => otherHits().length > 0);
        else await quiet(200);
        expect(otherHits()).toEqual(allow ? ['GET localhost /linked'] : []);
      }
    });

    it.runIf(kind === 'managed')(
      'asks when its Ctrl-click opens a link in a tab of the browser’s own: Deny, the other site sees nothing; Allow, once',
      async () => {
        for (const allow of [false, true]) {
          const ref = await open('/links', true);
          await release(ref.session);
          const before = await tabs();
          site.hits.length = 0;
          // One press and release with Control held (a locator's click would try again on a refusal).
          const box = (await page.getByText('Other site').boundingBox())!;
          const { asked } = await answering(allow, async (asked) => {
            await page.keyboard.down('Control');
            await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2).catch(() => {});
            await page.keyboard.up('Control');
            await until('the person to be asked', () => asked.length > 0);
            if (allow) await until('the other site to be loaded', () => otherHits().length > 0);
            else await quiet(300);
          });
          leftOpen.push(...(await tabs()).filter((id) => !before.includes(id)));
          expect(asked).toEqual(['new-site']);
          expect(otherHits()).toEqual(allow ? ['GET localhost /linked'] : []);
        }
      },
    );

    it('asks before /json/new opens a tab on another site: Deny, no tab and the site sees nothing; Allow, once', async () => {
      for (const allow of [false, true]) {
        site.hits.length = 0;
        const { answer: opened, asked } = await answering(allow, () =>
          fetch(`${door}/json/new?${site.url('/opened', true)}`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${ctx.d.server.token}` },
          }).then(async (r) => ({ status: r.status, body: await r.json() })),
        );
        expect(asked).toEqual(['new-site']);
        expect(opened.status, JSON.stringify(opened.body)).toBe(allow ? 200 : 403);
        if (allow) {
          // The connection the other cases share is shown the new tab and watches its loads too:
          // on a slow machine its question about the other site came after /json/new answered.
          const questions = ctx.d.server.server.consent.questions;
          await answeringWhile(
            questions,
            (q) => (q.terminal ? undefined : true),
            until('the other site to be loaded', () => otherHits().length > 0),
          );
          const closed = await fetch(`${door}/json/close/${opened.body.id}`, {
            headers: { authorization: `Bearer ${ctx.d.server.token}` },
          });
          expect(closed.status, await closed.text()).toBe(200);
          await until(
            'the tab /json/new opened to be gone',
            async () => !(await tabs()).includes(opened.body.id),
          ).catch((e: Error) => {
            const pending = questions.pending().map((q) => `${q.session}: ${q.what}`);
            throw new Error(`${e.message} (questions waiting: ${pending.join('; ') || 'none'})`);
          });
        } else {
          expect(opened.body.error.code).toBe('person_declined');
          await quiet(200);
        }
        expect(otherHits()).toEqual(allow ? ['GET localhost /opened'] : []);
      }
    });

    it.each(['Target.createTarget', 'Target.createTarget on a page’s session', '/json/new'])(
      'asks when a tab it opens with %s redirects to another site: Deny, the other site sees nothing; Allow, once',
      async (how) => {
        await release(traveller.session);
        // A new client is shown every tab, and a tab's site counts as one it has been on: the
        // tabs earlier cases left on the other site are closed first. The refused tab of the
        // first round stays for the second: its error page is no visit there.
        for (const opened of leftOpen.splice(0)) await api('DELETE', `/tabs/${opened}`);
        const rawUrl = `${door}/?token=${ctx.d.server.token}`;
        const questions = ctx.d.server.server.consent.questions;
        for (const allow of [false, true]) {
          const ref = await open('/links', true);
          await release(ref.session);
          // A client shown a tab on the other site has been there (its first commands there): an
          // earlier case's tab closed a moment ago (Chrome answers a close before the tab goes)
          // must be gone first. This case's refused tab is not (its error page is no visit).
          let lingering: Array<{ targetId: string; url: string }> = [];
          await until('no tab of an earlier case left on the other site', async () => {
            const all = (await api<{ tabs: Array<{ targetId: string; url: string }> }>('GET', '/tabs')).body.tabs;
            lingering = all.filter((t) => t.url.startsWith(site.url('/', true)) && !leftOpen.includes(t.targetId));
            return lingering.length === 0;
          }).catch((e: Error) => {
            throw new Error(`${e.message}: ${JSON.stringify(lingering)}`);
          });
          const before = await tabs();
          site.hits.length = 0;
          const asked: string[] = [];
          const everyone: string[] = [];
          // Its questions (the connection shared by the other cases may be asked too: it is
          // shown the new tab, and has not been on the other site when this case runs alone).
          const client = how === '/json/new' ? 'json-new' : `opener-${allow}-${how.length}`;
          const decide = (q: Question) => {
            if (q.terminal) return undefined;
            everyone.push(`${q.session ?? '-'}: ${q.kinds.join(',')} ${new URL(q.url ?? 'about:blank').hostname}`);
            // The person is asked for this client, or for the shared connection when its watch on
            // the new tab met the redirect first (seen on a loaded machine, Allow round): either
            // way the load waits for the answer, and nothing else may ask.
            if (q.session === client || q.session === undefined)
              asked.push(`${q.kinds.join(',')} ${new URL(q.url ?? 'about:blank').hostname}`);
            return q.url?.startsWith(site.url('/')) ? true : allow;
          };
          // A client of its own (this one has been on the other site already): the site it opens
          // is one it is asked about, or has been on (its tab's) — yes there; then the redirect.
          const named = { 'X-Clawd-Session': client };
          const fresh = how.startsWith('Target.')
            ? await chromium.connectOverCDP(rawUrl, { headers: named })
            : undefined;
          try {
            const session = async (browser: Browser) =>
              how === 'Target.createTarget'
                ? browser.newBrowserCDPSession()
                : browser.contexts()[0]!.newCDPSession(browser.contexts()[0]!.pages()[0]!);
            const opening = fresh
              ? session(fresh).then((cdp) => cdp.send('Target.createTarget', { url: site.url('/redirect') }))
              : fetch(`${door}/json/new?${site.url('/redirect')}`, {
                  method: 'PUT',
                  headers: { authorization: `Bearer ${ctx.d.server.token}`, ...named },
                }).then((r) => r.json());
            await answeringWhile(questions, decide, opening);
            // The new target is answered before its page loads: the question comes after.
            const redirectAsked = until('the person to be asked about the other site', () =>
              asked.some((a) => a.endsWith(' localhost')),
            ).catch((e: Error) => {
              throw new Error(
                `${e.message} (the ${allow ? 'Allow' : 'Deny'} round; asked: ${asked.join('; ')}; everyone was asked: ${everyone.join('; ')}; the site saw: ${site.hits.join('; ')})`,
              );
            });
            await answeringWhile(questions, decide, redirectAsked);
            if (allow) await until('the other site to be loaded', () => otherHits().length > 0);
            else if (how === 'Target.createTarget') {
              // Chrome loads a failed page again after 1 s while its tab shows: not in a managed
              // profile, where that load would ask the person about what they refused.
              const again: string[] = [];
              const off = questions.onChange(({ state, question }) => {
                if (state === 'asked') again.push(question.what);
              });
              await quiet(1_800).finally(off);
              expect(again).toEqual([]);
            } else await quiet(300);
          } finally {
            await fresh?.close();
            leftOpen.push(...(await tabs()).filter((id) => !before.includes(id)));
          }
          const aboutOther = asked.filter((a) => a.endsWith(' localhost'));
          expect(new Set(aboutOther), everyone.join('; ')).toEqual(new Set(['new-site localhost']));
          expect(otherHits()).toEqual(allow ? ['GET localhost /redirected'] : []);
        }
      },
    );

    it('refuses its own request interception while the tab’s requests are held for the person’s answer', async () => {
      const error = await page
        .route('**/*', (route) => route.continue())
        .then(
          () => page.reload().then(() => undefined),
          (e: Error) => e,
        );
      await page.unrouteAll().catch(() => {});
      expect(String(error)).toMatch(/request interception is refused/);
    });
  });

  it('clears the asks with policy-set --ask "" (a loosening: on the person’s yes where their browser is)', async () => {
    const questions = ctx.d.server.server.consent.questions;
    const cleared = await answeringWhile(
      questions,
      (q) => (q.terminal ? true : undefined),
      ctx.d.server.cli(['policy-set', '--ask', '', '--profile', ctx.d.profile]),
    );
    expect(cleared.code, cleared.stderr).toBe(0);
    expect((await api('GET', '/policy')).body.ask).toEqual([]);
    expect((await api('POST', '/policy', { ask: ['submit', 'new-site', 'download'] })).status).toBe(200);
  });
});
