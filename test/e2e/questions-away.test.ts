// Questions that reach the person when they are away from the side panel: an agent's submit they
// asked to be asked about raises a notification of their own browser, and the call answers at once
// `waiting_for_person` with the question's id instead of waiting out its bound; ask-wait hears the
// answer given with the notification's button (pressed through the extension's own API, as
// Chrome's notification center does), and the same call again goes through without a second
// question — once. Deny there is the same call's answer for a while. In the side panel, "Allow on
// this site for 30 minutes" lets the next submit there go unasked, a submit on another site is
// still asked, and Take back ends it. A code the site sent the person (`{{code:NAME}}`) is typed
// by them in the side panel, never seen by the agent.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../helpers/chromium';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

/** A shop whose server counts the orders it was sent. */
async function startShop(): Promise<{ url: string; posts: () => number; codes: string[]; close(): Promise<void> }> {
  let posts = 0;
  const codes: string[] = [];
  const server = http.createServer((req, res) => {
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${body}`);
    if (req.method === 'POST' && req.url === '/verify') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        codes.push(new URLSearchParams(body).get('otp') ?? '');
        html('<title>verified</title><p role="status">Verified</p>');
      });
      return;
    }
    if (req.url === '/verify')
      return void html(
        '<title>verify</title><p>We sent a code to your phone.</p><form method="post" action="/verify"><input name="otp" aria-label="Code"><button>Verify</button></form>',
      );
    if (req.method === 'POST') {
      posts += 1;
      req.resume();
      return void html('<title>ordered</title><h1>Thank you</h1><a href="/">Again</a>');
    }
    html('<title>shop</title><h1>Kettle</h1><form method="post" action="/buy"><button>Buy now</button></form>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    posts: () => posts,
    codes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('questions that reach the person away from the side panel', () => {
  let server: TestServer;
  let browser: TestBrowser;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let other: Awaited<ReturnType<typeof startShop>>;
  let targetId: string;
  const asked: string[] = [];
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
  const refOf = async (name: string) => {
    const snap = await api<{ snapshot: string }>('GET', `/snapshot?targetId=${targetId}`);
    const ref = snap.body.snapshot.match(new RegExp(`"${name}" \\[(e\\d+)\\]`))?.[1];
    if (!ref) throw new Error(`no ref for ${name} in ${snap.body.snapshot}`);
    return ref;
  };
  /** The agent's order: on the shop's page, a click on Buy now (which sends the form). */
  /** The agent's click on Buy now (which sends the form): the same call, made again, is the same ref. */
  const click = (ref: string) =>
    api('POST', '/act', { kind: 'click', targetId, ref, session: 'shopper', timeoutMs: 20_000, snapshot: 'none' });
  /** The agent's order from the shop's page: loaded, then Buy now clicked. */
  const buy = async (url = shop.url) => {
    await api('POST', '/navigate', { targetId, url, session: 'shopper' });
    const ref = await refOf('Buy now');
    return { ref, answer: await click(ref) };
  };
  const notifications = () => browser.swEval<Record<string, boolean>>('chrome.notifications.getAll()');
  /** What the page holds, read by the test's own connection (not the agent's). */
  const evaluateIn = async <T = unknown>(pageTargetId: string, expression: string): Promise<T> => {
    const session = await browser.pageSession(pageTargetId);
    try {
      return (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true }, session)).result
        .value as T;
    } finally {
      await browser.cdp.send('Target.detachFromTarget', { sessionId: session }).catch(() => {});
    }
  };
  const questionOf = (body: { error: { message: string } }) =>
    /\(question (q[0-9a-f]{12})\)/.exec(body.error.message)?.[1];

  beforeAll(async () => {
    [server, browser, shop, other] = await Promise.all([
      startTestServer(),
      TestBrowser.launch(),
      startShop(),
      startShop(),
    ]);
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
    const tab = await browser.openTab(shop.url);
    await browser.clickToolbar(tab);
    targetId = tab.pageTargetId;
    await until('the tab attached', () => server.server.relay.switchboard.tabs().some((t) => t.targetId === targetId));
    expect((await server.loosen({ ask: ['submit'] }, 'chrome')).body.ask).toEqual(['submit']);
    server.server.consent.questions.onChange((change) => {
      if (change.state === 'asked') asked.push(change.question.id);
    });
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), shop?.close(), other?.close()]);
  });

  it('notifies the question; the call answers waiting_for_person at once; the notification’s Allow lets the same call through, once', async () => {
    const started = Date.now();
    const { ref, answer: waiting } = await buy();
    expect(waiting.status).toBe(408);
    expect(waiting.body.error.code).toBe('waiting_for_person');
    // At once: long before the call's own bound of 20 s.
    expect(Date.now() - started).toBeLessThan(10_000);
    const id = questionOf(waiting.body);
    expect(id).toBeDefined();
    expect(asked).toEqual([id]);
    expect(shop.posts()).toBe(0);
    await until('the notification', async () => (await notifications())[id!] === true);

    // The same call again while it is open joins it: no second question.
    expect((await click(ref)).body.error.code).toBe('waiting_for_person');
    expect(asked).toEqual([id]);

    const answer = api('GET', `/asks/${id}/wait?timeoutMs=20000&session=shopper`);
    await browser.swEval(`chrome.notifications.onButtonClicked.dispatch(${JSON.stringify(id)}, 0)`);
    expect((await answer).body).toMatchObject({ id, answer: 'allowed' });
    await until('the notification cleared', async () => (await notifications())[id!] === undefined);

    const again = await click(ref);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(shop.posts()).toBe(1);
    expect(asked).toEqual([id]);
    // Once: the next is asked afresh.
    const { ref: nextRef, answer: next } = await buy();
    expect(next.body.error.code).toBe('waiting_for_person');
    expect(asked).toHaveLength(2);

    // Deny on the notification: ask-wait says so, and the same call is refused without asking again.
    const second = questionOf(next.body)!;
    await browser.swEval(`chrome.notifications.onButtonClicked.dispatch(${JSON.stringify(second)}, 1)`);
    expect((await api('GET', `/asks/${second}/wait?timeoutMs=5000&session=shopper`)).body).toMatchObject({
      answer: 'declined',
    });
    const refused = await click(nextRef);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('person_declined');
    expect(asked).toHaveLength(2);
    expect(shop.posts()).toBe(1);
    // A question nobody asked is none to wait for; another agent session's is not its to read.
    const unknown = await api('GET', `/asks/qffffffffffff/wait?timeoutMs=10&session=shopper`);
    expect(unknown.status).toBe(404);
    expect((await api('GET', `/asks/${second}/wait?timeoutMs=10&session=courier`)).status).toBe(404);
  });

  it('lets the next submit on the site go unasked for 30 minutes when the person says so in the side panel, not another site’s', async () => {
    const panel = await browser.openTab(`chrome-extension://${browser.extensionId}/panel.html`);
    const panelSession = await browser.pageSession(panel.pageTargetId);
    const inPanel = async <T = any>(expression: string): Promise<T> =>
      (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true }, panelSession)).result.value as T;
    try {
      const before = asked.length;
      // Another session (the shopper's Deny above stands for its own calls a while): the shopper's hold goes.
      expect((await api('DELETE', `/tabs/${targetId}/hold`)).status).toBe(200);
      // The panel is open: the call waits for the answer there, within its bound.
      const buyAs = async (session: string, url = shop.url) => {
        await api('POST', '/navigate', { targetId, url, session });
        return api('POST', '/act', {
          kind: 'click',
          targetId,
          ref: await refOf('Buy now'),
          session,
          timeoutMs: 20_000,
          snapshot: 'none',
        });
      };
      const shown = () =>
        until('the question in the panel', () =>
          inPanel<boolean>(`!!document.querySelector('#questions .question:not([data-answered]) .allow-minutes')`),
        );
      const first = buyAs('courier');
      await shown();
      expect(await inPanel<string>(`document.querySelector('#questions .allow-minutes').textContent`)).toBe(
        `Allow on ${new URL(shop.url).host} for 30 minutes`,
      );
      await inPanel(`document.querySelector('#questions .question:not([data-answered]) .allow-minutes').click()`);
      expect((await first).status).toBe(200);
      expect(asked).toHaveLength(before + 1);
      await until('the standing yes in the panel', () =>
        inPanel<boolean>(`!!document.querySelector('#approvals:not([hidden]) .revoke')`),
      );
      // Unasked on that site.
      expect((await buyAs('courier')).status).toBe(200);
      expect((await buyAs('courier')).status).toBe(200);
      expect(asked).toHaveLength(before + 1);
      expect(shop.posts()).toBe(4);
      // Another site is asked.
      const elsewhere = buyAs('courier', other.url);
      await until('the other site’s question', () => asked.length === before + 2);
      await shown();
      await inPanel(`document.querySelector('#questions .question:not([data-answered]) .deny').click()`);
      expect((await elsewhere).body.error.code).toBe('person_declined');
      expect(other.posts()).toBe(0);
      // Taken back: asked again.
      await inPanel(`document.querySelector('#approvals .revoke').click()`);
      await until('taken back', () => inPanel<boolean>(`document.getElementById('approvals').hidden`));
      const asking = buyAs('courier');
      await until('asked again', () => asked.length === before + 3);
      await shown();
      await inPanel(`document.querySelector('#questions .question:not([data-answered]) .allow').click()`);
      expect((await asking).status).toBe(200);
    } finally {
      await browser.cdp.send('Target.closeTarget', { targetId: panel.pageTargetId });
    }
  });

  it('asks the person for the code the site sent them: typed from the side panel, never seen by the agent', async () => {
    const CODE = '864209';
    expect((await api('DELETE', `/tabs/${targetId}/hold`)).status).toBe(200);
    const loaded = await api('POST', '/navigate', { targetId, url: `${shop.url}verify`, session: 'verifier' });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const field = await refOf('Code');
    const typeCode = () =>
      api('POST', '/act', {
        kind: 'type',
        targetId,
        ref: field,
        text: '{{code:sms}}',
        session: 'verifier',
        timeoutMs: 20_000,
        snapshot: 'full',
      });
    // The side panel closed: the call hears waiting_for_person at once; the notification says where to type it.
    const waiting = await typeCode();
    expect(waiting.body.error.code).toBe('waiting_for_person');
    const id = questionOf(waiting.body)!;
    await until('the notification', async () => (await notifications())[id] === true);
    const panel = await browser.openTab(`chrome-extension://${browser.extensionId}/panel.html`);
    const panelSession = await browser.pageSession(panel.pageTargetId);
    const inPanel = async <T = any>(expression: string): Promise<T> =>
      (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true }, panelSession)).result.value as T;
    try {
      await until('the code question in the panel', () =>
        inPanel<boolean>(`!!document.querySelector('#questions .question:not([data-answered]) input.code')`),
      );
      expect(await inPanel<string>(`document.querySelector('#questions .question h3').textContent`)).toContain(
        `${new URL(shop.url).host} asks for the code it sent you (the agent calls it “sms”)`,
      );
      // No standing yes for a code, and Allow without one is not an answer.
      expect(await inPanel<boolean>(`!!document.querySelector('#questions .allow-minutes')`)).toBe(false);
      const answer = api('GET', `/asks/${id}/wait?timeoutMs=20000&session=verifier`);
      await inPanel(
        `(() => { const q = document.querySelector('#questions .question:not([data-answered])'); q.querySelector('input.code').value = '${CODE}'; q.querySelector('.allow').click(); })()`,
      );
      expect((await answer).body).toMatchObject({ answer: 'allowed' });
      // The same call again types the code the person gave; the agent reads only the mask.
      const typed = await typeCode();
      expect(typed.status, JSON.stringify(typed.body)).toBe(200);
      expect(JSON.stringify(typed.body)).not.toContain(CODE);
      expect(await evaluateIn(targetId, `document.querySelector('input[name=otp]').value`)).toBe(CODE);
      const after = await api('GET', `/snapshot?targetId=${targetId}`);
      expect(JSON.stringify(after.body)).not.toContain(CODE);
      expect(JSON.stringify(after.body)).toContain('••••');
    } finally {
      await browser.cdp.send('Target.closeTarget', { targetId: panel.pageTargetId });
    }
  });
});
