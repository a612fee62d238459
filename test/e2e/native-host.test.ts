// Chrome starts clawd: after `clawd install --user-data-dir DIR`, a Chromium started on DIR with
// the extension finds (or starts) the home's server through the native messaging host and
// connects with no pairing and no token set by anyone; the server outlives the browser, and the
// browser started again finds the same one. Real Chromium, the real built extension, the real bin.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';
import { TestBrowser } from '../helpers/chromium';
import { runCli } from '../helpers/cli';
import { startPageServer } from '../helpers/pages';
import { serveStateOf, stopServerOf } from '../helpers/serve-state';
import { until } from '../helpers/waits';

interface ServeJson {
  pid: number;
  relayUrl: string;
  controlUrl: string;
}

const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-native-'));
const home = path.join(root, 'home');
const userDataDir = path.join(root, 'browser');
const serveJson = () => serveStateOf<ServeJson>(home);
const token = () => (JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as { token: string }).token;

/** What the host and the server it started wrote: said when the extension does not connect. */
function logs(): string {
  return ['native-host.log', 'serve.log']
    .map((name) => path.join(home, 'log', name))
    .map((file) => `${file}:\n${existsSync(file) ? readFileSync(file, 'utf8').slice(-3000) : '(none)'}`)
    .join('\n');
}

async function connected(state: ServeJson, what: string, browser: TestBrowser): Promise<void> {
  try {
    await until(what, () => extensionConnected(state), 15_000);
  } catch (error) {
    const status = await browser
      .swEval<string>(
        'chrome.storage.local.get(null).then((s) => JSON.stringify({ ...s, extensionKey: s.extensionKey ? "(set)" : "" }))',
      )
      .catch((e: Error) => e.message);
    throw new Error(`${(error as Error).message}\nthe extension's storage: ${status}\n${logs()}`);
  }
}

async function extensionStatus(state: ServeJson): Promise<{ connected?: boolean; connectedAt?: string | null }> {
  return fetch(`${state.relayUrl}/extension/status?token=${token()}`).then(
    (r) => r.json() as Promise<{ connected?: boolean; connectedAt?: string | null }>,
    () => ({ connected: false }),
  );
}

async function extensionConnected(state: ServeJson): Promise<boolean> {
  return (await extensionStatus(state)).connected === true;
}

afterAll(async () => {
  await stopServerOf(home);
  rmSync(root, { recursive: true, force: true });
});

describe('Chrome starts clawd (clawd install, native messaging)', () => {
  it('installs the host for a browser started on its own user data folder, and only for that one', async () => {
    // Free ports for the server the host starts: a test never takes the usual ones.
    const result = await runCli([
      'install',
      '--home',
      home,
      '--user-data-dir',
      userDataDir,
      '--relay-port',
      '0',
      '--control-port',
      '0',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const manifestPath = path.join(userDataDir, 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`);
    expect(result.stdout).toContain(manifestPath);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: NATIVE_HOST_NAME,
      type: 'stdio',
      allowed_origins: [`${EXTENSION_ORIGIN}/`],
    });
    expect(path.dirname(manifest.path as string)).toBe(path.join(home, 'native-host'));
    expect(serveJson()).toBeUndefined(); // installing starts nothing
  });

  it('a browser started with no server running connects by itself; the server outlives it and is found again', async () => {
    const pages = await startPageServer();
    let browser = await TestBrowser.launch({ userDataDir });
    try {
      // No pairing, no token: the worker asked the host, which started the home's server.
      const started = Date.now();
      const state = await until('the host to start a server', () => serveJson(), 15_000);
      await connected(state, 'the extension to connect', browser);
      console.log(`native host: the extension connected ${Date.now() - started} ms after the worker started`);
      // What the host gave it is the extension key, never the agents' token.
      expect(await browser.swEval('chrome.storage.local.get("extensionKey").then((s) => s.extensionKey)')).toBe(
        (JSON.parse(readFileSync(path.join(home, 'keys.json'), 'utf8')) as { extension: string }).extension,
      );
      expect(JSON.stringify(await browser.swEval('chrome.storage.local.get(null)'))).not.toContain(token());

      // A toolbar hand-over, then Playwright through the relay drives the tab.
      const tab = await browser.openTab(pages.url('/form'));
      await browser.clickToolbar(tab);
      const playwright = await chromium.connectOverCDP(`${state.relayUrl}/?token=${token()}`);
      try {
        const page = await until('the handed-over page', () =>
          playwright
            .contexts()[0]
            ?.pages()
            .find((p) => p.url().endsWith('/form')),
        );
        expect(await page.evaluate(() => 6 * 7)).toBe(42);
      } finally {
        await playwright.close();
      }

      // The browser closes; the server stays (agents may still use managed profiles).
      await browser.close();
      expect(serveJson()?.pid).toBe(state.pid);
      await until('the relay to see the extension go', async () => !(await extensionConnected(state)), 10_000);

      // Started again, it finds the same server.
      browser = await TestBrowser.launch({ userDataDir });
      await connected(state, 'the extension to connect again', browser);
      expect(serveJson()?.pid).toBe(state.pid);

      // Its worker stopped: the next event starts a fresh one, which reconnects with the tab still handed over.
      const again = await browser.openTab(pages.url('/console'));
      await browser.clickToolbar(again);
      const listed = async () =>
        ((await (await fetch(`${state.relayUrl}/json/list?token=${token()}`)).json()) as Array<{ id: string }>).some(
          (t) => t.id === again.pageTargetId,
        );
      await until('the tab handed over', listed);
      // A client with Runtime on: the page's console events are what wake a stopped worker.
      const watching = await chromium.connectOverCDP(`${state.relayUrl}/?token=${token()}`);
      await until('the page through the relay', () =>
        watching
          .contexts()[0]
          ?.pages()
          .find((p) => p.url().endsWith('/console')),
      );
      // The old worker's connection is told from the fresh one's by when it said hello: under
      // load the fresh worker's hello can reach the relay before the old socket's close does.
      const before = (await extensionStatus(state)).connectedAt;
      expect(before).toBeTruthy();
      await browser.terminateWorker();
      const harness = await browser.pageSession(again.pageTargetId);
      await browser.cdp.send('Runtime.evaluate', { expression: 'console.log("wake up")' }, harness);
      await until('a fresh worker', () => browser.workerTarget());
      const woke = Date.now();
      await until(
        'the fresh worker to reconnect',
        async () => {
          const now = await extensionStatus(state);
          return now.connected === true && now.connectedAt !== before;
        },
        10_000,
      );
      console.log(`native host: a fresh worker reconnected ${Date.now() - woke} ms after it started`);
      expect(await listed()).toBe(true);
      expect(serveJson()?.pid).toBe(state.pid);
      await watching.close();

      // A rotation replaces the extension key too: the extension is dropped, asks the host, and is
      // back with the new key by itself, its tab still handed over.
      const keyOf = () =>
        (JSON.parse(readFileSync(path.join(home, 'keys.json'), 'utf8')) as { extension: string }).extension;
      const oldKey = keyOf();
      const rotated = await runCli(['token', '--rotate', '--home', home]);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(keyOf()).not.toBe(oldKey);
      await until(
        'the extension back with the new key',
        async () =>
          (await browser.swEval('chrome.storage.local.get("extensionKey").then((s) => s.extensionKey)')) === keyOf() &&
          (await extensionConnected(state)),
        20_000,
      );
      expect(await listed()).toBe(true);
    } finally {
      await browser.close();
      await pages.close();
    }
  });

  it('uninstall takes the manifest away and leaves the server running', async () => {
    const result = await runCli(['uninstall', '--home', home, '--user-data-dir', userDataDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('uninstalled from the browser of');
    expect(existsSync(path.join(userDataDir, 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`))).toBe(false);
    expect(serveJson()).toBeDefined();
  });
});
