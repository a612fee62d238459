// Pairing without a secret to copy, in real Chromium with the extension: `clawd pair` (the
// person's command) prints a link; opened in the browser it shows the extension's own page, where
// the person presses Pair; the extension gets its own key (never the agents' token) and checks it
// against the link, then connects, and a toolbar click attaches a tab. A link works once, a code
// never issued does nothing, no web page can pair, an agent's token cannot mint a link, and a
// program holding clawd's ports while clawd is down hears no key or token from the extension, the
// CLI or `clawd mcp`.

import { spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { PROTOCOL_VERSION } from '../../shared/protocol';
import { TestBrowser } from '../helpers/chromium';
import { rawRequest } from '../helpers/http';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { CLAWD_BIN, runCli } from '../helpers/cli';
import { until } from '../helpers/waits';
import { loadKeys } from '../../relay/home/home-keys';

describe('pairing the extension', () => {
  let server: TestServer;
  let browser: TestBrowser;
  let pages: PageServer;
  beforeAll(async () => {
    server = await startTestServer();
    pages = await startPageServer();
    browser = await TestBrowser.launch(); // not configured: no port, no token
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await server?.close();
  });

  /** Opens a pairing link as a person would, and gives a way to read and click in the page. */
  async function openLink(link: string) {
    const { pageTargetId } = await browser.openTab(link);
    const session = await browser.pageSession(pageTargetId);
    const evaluate = async <T>(expression: string) =>
      (
        await browser.cdp.send<{ result: { value: T } }>(
          'Runtime.evaluate',
          { expression, returnByValue: true, awaitPromise: true },
          session,
        )
      ).result.value;
    const text = (id: string) => evaluate<string>(`document.getElementById(${JSON.stringify(id)})?.textContent ?? ''`);
    const click = async (id: string) => {
      const box = await evaluate<{ x: number; y: number }>(
        `(() => { const r = document.getElementById(${JSON.stringify(id)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
      );
      for (const type of ['mousePressed', 'mouseReleased'])
        await browser.cdp.send(
          'Input.dispatchMouseEvent',
          { type, x: box.x, y: box.y, button: 'left', clickCount: 1 },
          session,
        );
    };
    return { text, click, evaluate };
  }

  it(
    "pairs on the person's confirmation; the extension connects and a click attaches a tab",
    { timeout: 60_000 },
    async () => {
      const printed = await server.cli(['pair']);
      expect(printed.code, printed.stderr).toBe(0);
      const link = printed.stdout
        .trim()
        .split('\n')
        .find((l) => l.startsWith(EXTENSION_ORIGIN))!;
      expect(link).toMatch(
        new RegExp(`^${EXTENSION_ORIGIN}/pair\\.html#port=${server.server.relay.port}&code=[\\w-]+&check=[\\w-]+$`),
      );
      expect(link).not.toContain(server.token);
      expect(link).not.toContain(server.extensionKey);

      const page = await openLink(link);
      const port = server.server.relay.port;
      await until('the question', async () => (await page.text('question')) === `Pair with clawd on port ${port}?`);
      expect(await page.evaluate<string>('location.href')).not.toContain('code='); // it leaves the address bar
      expect(server.server.relay.switchboard.extensionConnected).toBe(false); // nothing before the person confirms
      await page.click('pair');
      await until('paired', async () => (await page.text('result')).startsWith(`Paired with clawd on port ${port}`));
      await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
      // What it keeps is its own key, not the token agents are given.
      expect(await browser.swEval(`chrome.storage.local.get(null)`)).toMatchObject({
        relayPort: port,
        extensionKey: server.extensionKey,
      });
      expect(JSON.stringify(await browser.swEval(`chrome.storage.local.get(null)`))).not.toContain(server.token);

      const tab = await browser.openTab(pages.url('/form'));
      await browser.clickToolbar(tab);
      await until('the tab attached', () =>
        server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
      );

      // The same link again: refused, and nothing changes.
      const again = await openLink(link);
      await until('the question', async () => (await again.text('question')).startsWith('Pair with clawd'));
      await again.click('pair');
      await until('the refusal', async () =>
        (await again.text('result')).includes('was used already, is older than 10 minutes, or was never issued'),
      );
    },
  );

  it('refuses a code never issued, and a web page (its origin) even with a good code', async () => {
    const claim = (origin: string | undefined, code: string) =>
      rawRequest(server.server.relay.port, '/pair/claim', {
        method: 'POST',
        headers: {
          host: `127.0.0.1:${server.server.relay.port}`,
          'content-type': 'application/json',
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify({ code }),
      });
    const never = await claim(EXTENSION_ORIGIN, 'never-issued-code');
    expect(never.status).toBe(401);
    expect(never.json().error.code).toBe('unauthorized');
    // The agent's token cannot mint a pairing code (else an agent could pair a browser of its own).
    const minted = await server.api('POST', '/pair/codes');
    expect(minted.status).toBe(403);
    expect(minted.body.error.code).toBe('person_only');
    const { code } = (await server.api('POST', '/pair/codes', { person: true })).body as { code: string };
    for (const origin of [
      'https://evil.example',
      'http://127.0.0.1:8080',
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
      undefined,
    ]) {
      const refused = await claim(origin, code);
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.body).not.toContain(server.extensionKey);
    }
    // Those attempts did not spend it: the extension's origin still gets the key, once.
    const good = await claim(EXTENSION_ORIGIN, code);
    expect(good.json()).toEqual({ key: server.extensionKey, relayPort: server.server.relay.port });
    expect((await claim(EXTENSION_ORIGIN, code)).status).toBe(401);
  });

  it('keeps no key that does not match the link: something else on the port cannot pair the browser with itself', async () => {
    const { links } = (await server.api('POST', '/pair/codes', { person: true })).body as { links: string[] };
    const fragment = new URLSearchParams(new URL(links[0]!).hash.slice(1));
    // A program on another port answers the claim with a key of its own (for the link's real code and check).
    const claims: string[] = [];
    const impostor = http.createServer((req, res) => {
      claims.push(req.url ?? '');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ key: 'the-impostors-own-key-0123456789abc', relayPort: 1 }));
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      fragment.set('port', String((impostor.address() as import('node:net').AddressInfo).port));
      const before = await browser.swEval(`chrome.storage.local.get(['relayPort', 'extensionKey'])`);
      const page = await openLink(`${EXTENSION_ORIGIN}/pair.html#${fragment}`);
      await until('the question', async () => (await page.text('question')).startsWith('Pair with clawd'));
      await page.click('pair');
      await until('the refusal', async () =>
        (await page.text('result')).includes('is not the clawd server that printed this link'),
      );
      expect(claims).toEqual(['/pair/claim']);
      expect(await browser.swEval(`chrome.storage.local.get(['relayPort', 'extensionKey'])`)).toEqual(before);
    } finally {
      impostor.close();
    }
  });

  it('rotates the token and the extension key: the old ones are refused, a new pairing brings the extension back with its tab', async () => {
    const old = server.token;
    const oldKey = server.extensionKey;
    const tabs = server.server.relay.switchboard.tabs().map((t) => t.targetId);
    expect(tabs).toHaveLength(1);
    // The agent's token cannot rotate itself (nor lock the person out).
    expect((await server.api('POST', '/token/rotate')).body.error?.code).toBe('person_only');
    const rotated = await server.cli(['token', '--rotate']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const token = rotated.stdout.trim();
    expect(token).toMatch(/^[\w-]{32}$/);
    expect(token).not.toBe(old);
    expect(server.server.token).toBe(token);
    expect((await server.cli(['token'])).stdout.trim()).toBe(token);
    expect(rotated.stderr).toMatch(/extension key was replaced too/);

    const tabsWith = (t: string) =>
      fetch(`${server.controlUrl}/tabs?profile=chrome`, { headers: { Authorization: `Bearer ${t}` } });
    expect((await tabsWith(old)).status).toBe(401);
    expect((await tabsWith(token)).status).not.toBe(401); // 503 while the extension is away
    // The extension was dropped, and its old key is refused: no native host here, so it waits for a pairing.
    await until('the extension dropped', () => !server.server.relay.switchboard.extensionConnected);
    expect(await browser.swEval(`chrome.storage.local.get('extensionKey').then((s) => s.extensionKey)`)).toBe(oldKey);
    const newKey = (await loadKeys(server.home)).extension;
    expect(newKey).not.toBe(oldKey);

    const printed = await server.cli(['pair']);
    const page = await openLink(printed.stdout.trim().split('\n')[0]!);
    await until('the question', async () => (await page.text('question')).startsWith('Pair with clawd'));
    await page.click('pair');
    await until('the extension connected again', () => server.server.relay.switchboard.extensionConnected, 15_000);
    expect(await browser.swEval(`chrome.storage.local.get('extensionKey').then((s) => s.extensionKey)`)).toBe(newKey);
    expect(server.server.relay.switchboard.tabs().map((t) => t.targetId)).toEqual(tabs);
    const listed = await server.cli(['tabs', '--profile', 'chrome']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(tabs[0]!.slice(0, 8));
  });

  it(
    'tells a program holding its ports while clawd is down nothing: not the extension, the CLI or clawd mcp',
    { timeout: 60_000 },
    async () => {
      const relayPort = server.server.relay.port;
      const controlPort = Number(new URL(server.controlUrl).port);
      const key = (await loadKeys(server.home)).extension;
      const token = server.server.token;
      const person = (await loadKeys(server.home)).person;
      await server.stop();
      // The squatter: clawd's two ports, everything it is sent recorded; it plays clawd as far as it can.
      const heard: string[] = [];
      const squat = (port: number) => {
        const web = http.createServer((req, res) => {
          heard.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
          req.on('data', (chunk) => heard.push(String(chunk)));
          const path = new URL(req.url ?? '/', 'http://x').pathname;
          const body =
            path === '/'
              ? { ok: true, name: 'clawd-browser', version: '0.1.0', protocol: PROTOCOL_VERSION, home: server.home }
              : path === '/proof'
                ? { port, agent: 'A'.repeat(43), person: 'B'.repeat(43) }
                : { fine: true };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        });
        const sockets = new WebSocketServer({ server: web });
        sockets.on('connection', (ws, req) => {
          heard.push(`upgrade ${req.url} ${JSON.stringify(req.headers)}`);
          ws.on('message', (data) => heard.push(String(data)));
          ws.send(JSON.stringify({ type: 'challenge', proof: 'C'.repeat(43), nonce: 'squatters-nonce-0123456789' }));
        });
        return new Promise<http.Server>((resolve) => web.listen(port, '127.0.0.1', () => resolve(web)));
      };
      const squatters = [await squat(relayPort), await squat(controlPort)];
      try {
        // The extension keeps trying the relay's port: it gets there, and says nothing.
        await until(
          'the extension to try the port',
          () => heard.some((h) => h.startsWith('upgrade /extension?nonce=')),
          20_000,
        );
        // And says why on its options page, as the person sees it.
        await until('the options page to say why', async () =>
          /could not prove it is the clawd server/.test(await browser.optionsStatus()),
        );
        // The CLI and `clawd mcp`, sent to the squatter's control port.
        const env = { CLAWD_HOME: server.home, CLAWD_CONTROL_URL: `http://127.0.0.1:${controlPort}` };
        const tabs = await runCli(['tabs'], env);
        expect(tabs.code).not.toBe(0);
        expect(tabs.stderr).toMatch(/nothing was sent to it/);
        expect((await runCli(['policy-set', '--ask', ''], env)).code).not.toBe(0);
        expect((await runCli(['view'], env)).code).not.toBe(0);
        const mcp = spawn(process.execPath, [CLAWD_BIN, 'mcp'], { env: { ...process.env, ...env } });
        const said = new Promise<string>((resolve) => {
          let out = '';
          mcp.stdout.on('data', (d) => {
            out += d;
            if (out.includes('"id":2')) resolve(out);
          });
        });
        const send = (message: object) => mcp.stdin.write(`${JSON.stringify(message)}\n`);
        send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
        });
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tabs', arguments: {} } });
        expect(await said).toMatch(/nothing was sent to it/);
        mcp.kill();
        const everything = heard.join('\n');
        for (const secret of [key, token, person]) expect(everything).not.toContain(secret);
        expect(everything).not.toMatch(/"type":"hello"/);
      } finally {
        for (const squatter of squatters) squatter.close();
      }
    },
  );
});
