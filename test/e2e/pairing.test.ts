// Pairing without a token to copy, in real Chromium with the extension: `clawd pair` prints a
// link; opened in the browser it shows the extension's own page, where the person presses Pair;
// the extension then connects and a toolbar click attaches a tab. A link works once, a code
// never issued does nothing, and no web page can pair or learn the token.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { TestBrowser } from '../helpers/chromium';
import { rawRequest } from '../helpers/http';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

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
        new RegExp(`^${EXTENSION_ORIGIN}/pair\\.html#port=${server.server.relay.port}&code=[\\w-]+$`),
      );
      expect(link).not.toContain(server.token);

      const page = await openLink(link);
      const port = server.server.relay.port;
      await until('the question', async () => (await page.text('question')) === `Pair with clawd on port ${port}?`);
      expect(await page.evaluate<string>('location.href')).not.toContain('code='); // it leaves the address bar
      expect(server.server.relay.switchboard.extensionConnected).toBe(false); // nothing before the person confirms
      await page.click('pair');
      await until('paired', async () => (await page.text('result')).startsWith(`Paired with clawd on port ${port}`));
      await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);

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
    const { code } = (await server.api('POST', '/pair/codes')).body as { code: string };
    for (const origin of [
      'https://evil.example',
      'http://127.0.0.1:8080',
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
      undefined,
    ]) {
      const refused = await claim(origin, code);
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.body).not.toContain(server.token);
    }
    // Those attempts did not spend it: the extension's origin still gets the token, once.
    const good = await claim(EXTENSION_ORIGIN, code);
    expect(good.json()).toEqual({ token: server.token, relayPort: server.server.relay.port });
    expect((await claim(EXTENSION_ORIGIN, code)).status).toBe(401);
  });

  it('rotates the token: the old one is refused, the extension follows with the tab still handed over, the CLI reads the new one', async () => {
    const old = server.token;
    const tabs = server.server.relay.switchboard.tabs().map((t) => t.targetId);
    expect(tabs).toHaveLength(1);
    const rotated = await server.cli(['token', '--rotate']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const token = rotated.stdout.trim();
    expect(token).toMatch(/^[\w-]{32}$/);
    expect(token).not.toBe(old);
    expect(server.server.token).toBe(token);
    expect((await server.cli(['token'])).stdout.trim()).toBe(token);

    const tabsWith = (t: string) =>
      fetch(`${server.controlUrl}/tabs?profile=chrome`, { headers: { Authorization: `Bearer ${t}` } });
    expect((await tabsWith(old)).status).toBe(401);
    expect((await tabsWith(token)).status).toBe(200);
    // The extension keeps the new token and is connected with it; the tab it had stays handed over.
    await until(
      'the extension keeps the new token',
      async () => (await browser.swEval(`chrome.storage.local.get('token').then((s) => s.token)`)) === token,
    );
    await until('the extension connected again', () => server.server.relay.switchboard.extensionConnected, 10_000);
    expect(server.server.relay.switchboard.tabs().map((t) => t.targetId)).toEqual(tabs);
    const listed = await server.cli(['tabs', '--profile', 'chrome']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(tabs[0]!.slice(0, 8));
  });
});
