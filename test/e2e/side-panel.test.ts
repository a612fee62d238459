// The person's say over their own browser, used as they would: the side panel (its page opened as
// a tab, read and clicked in the real browser) lists the tabs handed over, shows an agent's click
// as it happens, asks before a form is sent (Deny: the site never sees the POST and the call
// answers person_declined; Allow: one POST) and before an export of their cookies, and Stop takes
// every tab back. The test's own connection to the browser plays the person's hands: while they
// type in a tab, an agent's click waits until they have been idle, and lands after their last key;
// a key of theirs is seen while an agent's keys are on their way.

import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../helpers/chromium';
import { CdpClient } from '../helpers/cdp-client';
import { CLAWD_BIN } from '../helpers/cli';
import { FakeExtension } from '../helpers/fake-extension';
import { startTestServer, type TestServer } from '../helpers/server';
import { quiet, until } from '../helpers/waits';

/** A shop whose server counts the orders it was sent, and a page to type in. */
async function startShop(): Promise<{ url(path: string): string; posts: string[]; close(): Promise<void> }> {
  const posts: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${body}`);
    if (req.method === 'POST') {
      posts.push(path);
      req.resume();
      return void html('<title>ordered</title><h1>Thank you</h1>');
    }
    if (path === '/shop')
      return void html(
        '<title>shop</title><h1>Kettle</h1><button type="button" onclick="this.textContent = \'Said hello\'">Hello</button><form method="post" action="/buy"><input name="qty" value="1" aria-label="Quantity"><button>Buy now</button></form>',
      );
    if (path === '/typing') {
      return void html(`<title>typing</title><input id="field" aria-label="Notes"><button id="go" onclick="window.clickedAt = Date.now()">Go</button>
        <script>addEventListener('keydown', () => { window.lastKeyAt = Date.now(); }, true);</script>`);
    }
    html('<title>home</title><p>home</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    posts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("the side panel and the person's say", () => {
  let server: TestServer;
  let browser: TestBrowser;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let tab: { tabTargetId: string; pageTargetId: string };
  let panelSession: string;
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
  /** Evaluates in the side panel's page, as the person sees it. */
  const inPanel = async <T = any>(expression: string): Promise<T> =>
    (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, panelSession))
      .result.value as T;
  const refOf = async (name: string) => {
    const snap = await api<{ snapshot: string }>('GET', `/snapshot?targetId=${tab.pageTargetId}`);
    const ref = snap.body.snapshot.match(new RegExp(`"${name}" \\[(e\\d+)\\]`))?.[1];
    if (!ref) throw new Error(`no ref for ${name} in ${snap.body.snapshot}`);
    return ref;
  };

  beforeAll(async () => {
    [server, browser, shop] = await Promise.all([
      startTestServer({ personIdleMs: 1_500 }),
      TestBrowser.launch(),
      startShop(),
    ]);
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
    tab = await browser.openTab(shop.url('/shop'));
    await browser.clickToolbar(tab);
    await until('the tab attached', () =>
      server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
    );
    const panel = await browser.openTab(`chrome-extension://${browser.extensionId}/panel.html`);
    panelSession = await browser.pageSession(panel.pageTargetId);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), shop?.close()]);
  });

  it('lists the tabs handed over, and shows an agent’s click within a second', async () => {
    await until('the tab in the panel', async () =>
      (await inPanel<string>(`document.getElementById('tabs').textContent`)).includes('shop'),
    );
    expect(await inPanel<string>(`document.getElementById('status').textContent`)).toMatch(
      /1 tab\(s\) handed to your agents/,
    );
    const hello = await refOf('Hello');
    const clicked = await api('POST', '/act', {
      kind: 'click',
      targetId: tab.pageTargetId,
      ref: hello,
      session: 'shopper',
    });
    expect(clicked.status).toBe(200);
    const line = await until(
      'the click in the panel',
      async () =>
        [
          ...(await inPanel<string[]>(`[...document.querySelectorAll('#actions li')].map((li) => li.textContent)`)),
        ].find((text) => text.includes(`click ${hello} button "Hello"`)),
      1_000,
      25,
    );
    expect(line).toContain('shopper: ');
    expect(await inPanel<string>(`document.getElementById('tabs').textContent`)).toContain('held by shopper');
  });

  it("loosens the rules only on the person's yes in the side panel; the agent's token cannot, tightening is at once", async () => {
    const asked = async () => (await api<{ ask: string[] }>('GET', '/policy')).body.ask.slice().sort();
    // Tightening is anyone's, at once: the agent's token adds an ask.
    expect((await api('POST', '/policy', { ask: ['storage', 'submit'] })).body.ask).toEqual(['storage', 'submit']);
    // Loosening with the agent's token alone: refused, nothing changed, nothing asked.
    for (const body of [{ ask: ['storage'] }, { ask: [] }]) {
      const refused = await api('POST', '/policy', body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body.error.code).toBe('person_only');
    }
    expect(await asked()).toEqual(['storage', 'submit']);
    expect(server.server.consent.questions.pending()).toEqual([]);

    // From the person's terminal it waits for their yes in the panel, and says so meanwhile.
    const loosen = (ask: string) => {
      const cli = spawn(process.execPath, [CLAWD_BIN, 'policy-set', '--profile', 'chrome', '--ask', ask], {
        env: { ...process.env, CLAWD_HOME: server.home },
      });
      let stderr = '';
      cli.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
      return { exited, stderr: () => stderr };
    };
    const question = async () =>
      until('the terminal’s question in the panel', async () =>
        inPanel<string | undefined>(`document.querySelector('#questions .question:not([data-answered])')?.textContent`),
      );
    const denied = loosen('storage');
    expect(await question()).toMatch(/Your terminal asks to loosen your rules.*stop asking before sending a form/);
    expect(await asked()).toEqual(['storage', 'submit']); // not before the yes
    await inPanel(`document.querySelector('#questions .question:not([data-answered]) .deny').click()`);
    expect(await denied.exited).not.toBe(0);
    expect(denied.stderr()).toMatch(/waiting for your yes in clawd's side panel/);
    expect(denied.stderr()).toMatch(/declined/);
    expect(await asked()).toEqual(['storage', 'submit']);

    const allowed = loosen('storage');
    await question();
    await inPanel(`document.querySelector('#questions .question:not([data-answered]) .allow').click()`);
    expect(await allowed.exited).toBe(0);
    expect(await asked()).toEqual(['storage']);
  });

  it('asks before a form is sent: Deny and the site never sees it, Allow and it sees it once', async () => {
    expect((await server.loosen({ ask: ['submit'] }, 'chrome')).body.ask).toEqual(['submit']);
    await until(
      'the panel’s ask boxes',
      async () =>
        (await inPanel<string[]>(`[...document.querySelectorAll('#ask input:checked')].map((b) => b.value)`)).join() ===
        'submit',
    );
    const buy = await refOf('Buy now');
    const call = () =>
      fetch(`${server.controlUrl}/act?profile=chrome`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          kind: 'click',
          targetId: tab.pageTargetId,
          ref: buy,
          session: 'shopper',
          timeoutMs: 20_000,
        }),
      });
    const answerIn = async (button: 'allow' | 'deny', ref = buy) => {
      const question = await until('the question in the panel', async () =>
        inPanel<string | undefined>(`document.querySelector('#questions .question:not([data-answered])')?.textContent`),
      );
      expect(question).toContain('sending a form');
      expect(question).toContain(`click ${ref} button Buy now`);
      // The element's name is the page's: set apart as its quote.
      expect(
        await inPanel<string>(
          `document.querySelector('#questions .question:not([data-answered]) .what q.page-words')?.textContent`,
        ),
      ).toBe('Buy now');
      await inPanel(`document.querySelector('#questions .question:not([data-answered]) .${button}').click()`);
    };

    const denied = call();
    await answerIn('deny');
    const refused = await denied;
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('person_declined');
    // As a header: ASCII, the page's words between their marks (written \uXXXX).
    expect(refused.headers.get('x-clawd-note')).toMatch(
      /^waiting for the person to allow: submit on tab \w+ \(click e\d+ button \\ue000Buy now\\ue001\)$/,
    );
    expect(shop.posts).toEqual([]);

    const allowed = call();
    await answerIn('allow');
    expect((await allowed).status).toBe(200);
    await until('the order at the shop', () => shop.posts.length === 1);
    expect(shop.posts).toEqual(['/buy']);
    const log = (await api<{ entries: Array<{ kind: string; outcome: string }> }>('GET', '/log?limit=50')).body.entries
      .filter((e) => e.kind === 'ask')
      .map((e) => e.outcome);
    expect(log).toEqual(['asked', 'person_declined', 'asked', 'allowed']);

    // The CLI says it waits for the person on stderr at once, while it waits.
    await api('POST', '/navigate', { targetId: tab.pageTargetId, url: shop.url('/shop'), session: 'shopper' });
    const again = await refOf('Buy now');
    const cli = spawn(
      process.execPath,
      [
        CLAWD_BIN,
        'click',
        again,
        '--target',
        tab.pageTargetId,
        '--session',
        'shopper',
        '--timeout',
        '20000',
        '--profile',
        'chrome',
      ],
      { env: { ...process.env, CLAWD_HOME: server.home } },
    );
    let stderr = '';
    cli.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    await until(
      'the note on stderr before any answer',
      () => /waiting for the person to allow: submit on tab/.test(stderr),
      15_000,
    );
    // The CLI fences the element's name, the page's words, as it fences any answer's.
    await until('the fenced name', () => /‹page \w+›\nBuy now\n‹\/page \w+›/.test(stderr), 5_000);
    await answerIn('deny', again);
    expect(await exited).not.toBe(0);
    // The refusal names the element too: its name fenced like the note's, on lines of their own.
    expect(stderr).toMatch(/\nclawd: the person declined [^\n]*\n‹page \w+›\nBuy now\n‹\/page \w+›/);
    expect(shop.posts).toEqual(['/buy']);
    await server.loosen({ ask: ['storage'] }, 'chrome');
  });

  it('asks before an export of the person’s cookies, by default', async () => {
    const exporting = api('GET', `/storage-state?targetId=${tab.pageTargetId}`);
    await until('the question in the panel', async () =>
      (await inPanel<string>(`document.getElementById('questions').textContent`)).includes('exporting your cookies'),
    );
    await inPanel(`document.querySelector('#questions .question:not([data-answered]) .allow').click()`);
    expect((await exporting).status).toBe(200);
  });

  it('keeps an agent from answering its own question: each door it has is refused, and only the panel answers', async () => {
    const exporting = api('GET', `/storage-state?targetId=${tab.pageTargetId}`);
    // The agent knows the question's id (it is on /events, which the token opens).
    const question = await until('the question asked', () => server.server.consent.questions.pending()[0]);
    await until('the question in the panel', async () =>
      (
        await inPanel<string>(`document.querySelector('#questions .question:not([data-answered])')?.textContent ?? ''`)
      ).includes('exporting your cookies'),
    );
    const port = Number(new URL(server.controlUrl).port);
    const answer = (headers: Record<string, string>) =>
      fetch(`${server.controlUrl}/view/api/answer`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ id: question!.id, allow: true }),
      });
    // The token on the answer route; a view it mints; a hand-over's link, redeemed as the agent would.
    expect((await answer({ Authorization: `Bearer ${server.token}` })).status).toBe(401);
    expect((await api('POST', '/view/codes')).body.error.code).toBe('person_only');
    const handed = await api('POST', '/handoff', { targetId: tab.pageTargetId, reason: 'a moment' });
    const code = new URLSearchParams(new URL(handed.body.viewUrl).hash.slice(1)).get('code')!;
    const login = await fetch(`${server.controlUrl}/view/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie).toMatch(new RegExp(`^clawd_view_${port}=`));
    expect((await answer({ cookie })).status).toBe(401);
    await api('DELETE', `/handoff?targetId=${tab.pageTargetId}`);
    // Being the extension (and saying Allow from its "side panel"): our extension's Origin, forged,
    // with the token as the key — closed, and the person's extension is not pushed aside.
    const impostor = await FakeExtension.open(server.server.relay.port, server.token);
    expect(await impostor.relayProved()).toBe(false);
    await impostor.hello().catch(() => {});
    expect((await impostor.closed).code).toBe(4003);
    // Turning the ask off instead, or pairing a browser of its own: the person's.
    expect((await api('POST', '/policy', { ask: [] })).body.error.code).toBe('person_only');
    expect((await api('POST', '/pair/codes')).body.error.code).toBe('person_only');
    expect((await api('POST', '/token/rotate')).body.error.code).toBe('person_only');
    // Still waiting for the person; their extension still the one connected.
    expect(server.server.consent.questions.pending().map((q) => q.id)).toEqual([question!.id]);
    expect(server.server.relay.switchboard.extensionConnected).toBe(true);
    await inPanel(`document.querySelector('#questions .question:not([data-answered]) .allow').click()`);
    expect((await exporting).status).toBe(200);
  });

  it("opens the person's own live view of a tab an agent handed them in clawd's browser, and it acts", async () => {
    const opened = await server.api('POST', '/tabs/open', { profile: 'clawd', body: { url: shop.url('/shop') } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const targetId = opened.body.targetId as string;
    const handed = await server.api('POST', '/handoff', { profile: 'clawd', body: { targetId, reason: 'pay for me' } });
    expect(handed.status).toBe(200);
    const holder = async () =>
      (
        (await server.api('GET', '/tabs', { profile: 'clawd' })).body.tabs as Array<{
          targetId: string;
          holder?: { kind: string };
        }>
      ).find((t) => t.targetId === targetId)?.holder;
    try {
      await until('the hand-over in the panel', async () =>
        (await inPanel<string>(`document.getElementById('handoffs').textContent`)).includes('pay for me'),
      );
      const before = new Set((await browser.targets('page')).map((t) => t.targetId));
      await inPanel(`document.querySelector('#handoffs .open-view').click()`);
      const view = await until('the live view in a tab of the person', async () =>
        (await browser.targets('page')).find((t) => !before.has(t.targetId) && /:\d+\/view/.test(t.url)),
      );
      const session = await browser.pageSession(view.targetId);
      const inView = async <T = any>(expression: string): Promise<T> =>
        (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, session))
          .result.value as T;
      // A view that acts (the person's own, not the agent's watching link): Done gives the tab back.
      await until(
        'Done offered',
        async () => (await inView<boolean>(`!document.getElementById('done').hidden`)) === true,
      );
      expect(await inView<string>(`document.getElementById('tab').value`)).toBe(`clawd|${targetId}`);
      await inView(`document.getElementById('done').click()`);
      await until('the tab given back', async () => (await holder()) === undefined);
      // It is the person's tab, not handed to an agent.
      expect(server.server.relay.switchboard.tabs().some((t) => t.targetId === view.targetId)).toBe(false);
      await browser.cdp.send('Target.closeTarget', { targetId: view.targetId });
    } finally {
      await server.api('DELETE', `/handoff?targetId=${targetId}`, { profile: 'clawd' });
      await server.api('DELETE', `/tabs/${targetId}`, { profile: 'clawd' });
    }
  });

  it("holds an agent's click while the person types in the tab, and lands it after their last key", async () => {
    expect(
      (await api('POST', '/navigate', { targetId: tab.pageTargetId, url: shop.url('/typing'), session: 'shopper' }))
        .status,
    ).toBe(200);
    const go = await refOf('Go');
    // The person's own hands, through the test's own connection to the browser (not the relay).
    const hands = await browser.pageSession(tab.pageTargetId);
    const press = async (key: string) => {
      await browser.cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key, text: key }, hands);
      await browser.cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key }, hands);
    };
    const page = async <T>(expression: string): Promise<T> =>
      (await browser.cdp.send('Runtime.evaluate', { expression, returnByValue: true }, hands)).result.value as T;
    await page(`document.getElementById('field').focus()`);
    // The person keeps typing until the panel says the tab is theirs (it stays so while they type).
    await until('the person active on the tab', async () => {
      await press('a');
      return (await inPanel<string>(`document.getElementById('tabs').textContent`)).includes('yours while you use it');
    });
    const clicking = api('POST', '/act', {
      kind: 'click',
      targetId: tab.pageTargetId,
      ref: go,
      session: 'shopper',
      timeoutMs: 15_000,
    });
    for (let i = 0; i < 8; i++) {
      await quiet(150); // the person's rhythm: a key every 150 ms
      await press('b');
    }
    const clicked = await clicking;
    const [lastKeyAt, clickedAt] = await Promise.all([
      page<number>('window.lastKeyAt'),
      page<number>('window.clickedAt'),
    ]);
    expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
    expect(clickedAt).toBeGreaterThan(lastKeyAt);
    expect(await page<string>(`document.getElementById('field').value`)).toMatch(/^a+b{8}$/);
    await browser.cdp.send('Target.detachFromTarget', { sessionId: hands });
  });

  it('sees the person’s key while an agent types in the same tab', async () => {
    await until(
      'the tab idle again',
      async () =>
        !(await inPanel<string>(`document.getElementById('tabs').textContent`)).includes('yours while you use it'),
    );
    const hands = await browser.pageSession(tab.pageTargetId);
    await browser.cdp.send(
      'Runtime.evaluate',
      { expression: `document.getElementById('field').value = ''; document.getElementById('field').focus()` },
      hands,
    );
    // An agent types through the relay as a raw CDP client, fast: twenty keys at a time, more than
    // the page's watch says in one message within its 200 ms (the person's key must not be pushed
    // out by the agent's after it).
    const version = await (
      await fetch(`${server.server.relay.url}/json/version`, { headers: { Authorization: `Bearer ${server.token}` } })
    ).json();
    const agent = await CdpClient.connect(`${version.webSocketDebuggerUrl}&session=typist`);
    const { sessionId } = await agent.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true });
    let typing = true;
    const typed = (async () => {
      while (typing)
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            await agent.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'z', text: 'z' }, sessionId);
            await agent.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'z' }, sessionId);
          }),
        );
    })();
    try {
      await until('the agent typing', async () =>
        (
          (
            await browser.cdp.send(
              'Runtime.evaluate',
              { expression: `document.getElementById('field').value`, returnByValue: true },
              hands,
            )
          ).result.value as string
        ).includes('zz'),
      );
      // The person presses one key of their own while the agent's keys keep coming.
      await browser.cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'x', text: 'x' }, hands);
      await browser.cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'x' }, hands);
      await until(
        'the panel says the tab is theirs',
        async () =>
          (await inPanel<string>(`document.getElementById('tabs').textContent`)).includes('yours while you use it'),
        3_000,
      );
    } finally {
      typing = false;
      await typed;
      await agent.close();
      await browser.cdp.send('Target.detachFromTarget', { sessionId: hands });
    }
  });

  it('changes what the person is asked about, and blocks the site of the tab beside it', async () => {
    await inPanel(`document.querySelector('#ask input[value="download"]').click()`);
    await until('the ask in force', async () =>
      (await api<{ ask: string[] }>('GET', '/policy')).body.ask.includes('download'),
    );
    expect((await api<{ ask: string[] }>('GET', '/policy')).body.ask.sort()).toEqual(['download', 'storage']);
    // The person looks at their shop tab with the panel beside it.
    await browser.cdp.send('Target.activateTarget', { targetId: tab.pageTargetId });
    const host = new URL(shop.url('/')).host;
    await until(
      'the block button for the shop',
      async () =>
        (await inPanel<string>(
          `document.getElementById('block').hidden ? '' : document.getElementById('block').textContent`,
        )) === `Block ${host}`,
    );
    await inPanel(`document.getElementById('block').click()`);
    await until('the site blocked', async () =>
      ((await api<{ block?: string[] }>('GET', '/policy')).body.block ?? []).includes(`http://${host}`),
    );
    const refused = await api('POST', '/navigate', {
      targetId: tab.pageTargetId,
      url: shop.url('/shop'),
      session: 'shopper',
    });
    expect(refused.body.error.code).toBe('origin_blocked');
    await until('the panel shows the rule', async () =>
      (await inPanel<string>(`document.getElementById('policy').textContent`)).includes(`Never: http://${host}`),
    );
    await server.loosen({}, 'chrome');
  });

  it('takes every tab back on Stop', async () => {
    const second = await browser.openTab(shop.url('/'));
    await browser.clickToolbar(second);
    await until('two tabs attached', () => server.server.relay.switchboard.tabs().length === 2);
    await until(
      'both in the panel',
      async () => (await inPanel<number>(`document.querySelectorAll('#tabs li').length`)) === 2,
    );
    await inPanel(`document.getElementById('stop').click()`);
    await until('no tab attached', () => server.server.relay.switchboard.tabs().length === 0);
    await until(
      'the panel says so',
      async () => (await inPanel<number>(`document.querySelectorAll('#tabs li').length`)) === 0,
    );
    const tabId = await browser.tabIdOf(tab.pageTargetId);
    await until('the badge cleared', async () => (await browser.badge(tabId)).text === '');
    expect(await browser.swEval<string[]>('chrome.tabGroups.query({}).then((gs) => gs.map((g) => g.title))')).toEqual(
      [],
    );
    const log = (await api<{ entries: Array<{ kind: string }> }>('GET', '/log?limit=5')).body.entries.map(
      (e) => e.kind,
    );
    expect(log).toContain('stop');
    // An agent running on cannot come back by opening a tab of its own until the person lets it.
    await until(
      'the panel shows agents kept out',
      async () => !(await inPanel<boolean>(`document.getElementById('may-open').checked`)),
    );
    const refused = await api('POST', '/tabs/open', { url: shop.url('/') });
    expect(refused.body.error).toMatchObject({ code: 'tab_open_refused', message: expect.stringContaining('Stop') });
    await inPanel(`document.getElementById('may-open').click()`);
    await until(
      'agents let in again',
      async () => (await api('POST', '/tabs/open', { url: shop.url('/') })).status === 200,
    );
  });
});
