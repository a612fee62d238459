// What every relay case needs: the real `clawd serve` in its own process (so its memory and
// latency are the product's), Chromium with the built extension, a tab handed over by a real
// toolbar click, and raw CDP sessions to that page through the relay and directly.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { CdpClient } from '../../test/helpers/cdp-client';
import { TestBrowser } from '../../test/helpers/chromium';
import { until } from '../../test/helpers/waits';

export interface RelayProcess {
  child: ChildProcess;
  /** The serve's home (the CLI finds the server through it). */
  home: string;
  url: string;
  controlUrl: string;
  port: number;
  token: string;
  /** The home's keys: the extension's (configureExtension takes it) and the person's (profile admin). */
  extensionKey: string;
  personKey: string;
  cdpWsUrl: string;
  /** Resident and peak resident memory of the relay process, in MB (Linux). */
  memory(): { rssMb: number; peakMb: number };
  close(): Promise<void>;
}

/**
 * What the bench started that would outlive it, ended as the bench's process exits however it
 * does (a case past its bound, SIGTERM from the smoke test): synchronous, as an exit hook must be.
 */
const leftOnExit = new Set<() => void>();
process.on('exit', () => {
  for (const end of leftOnExit) end();
});

/** `end` runs when the bench's process exits unless the returned function is called first. */
export function endOnExit(end: () => void): () => void {
  const once = () => {
    leftOnExit.delete(once);
    end();
  };
  leftOnExit.add(once);
  return () => leftOnExit.delete(once);
}

/** How long a server has to stop before it is killed. */
const RELAY_STOP_MS = 10_000;

const DIST = path.dirname(fileURLToPath(import.meta.url));
/** The checkout the bench runs from (dist/bench.js is in its dist/). */
export const ROOT = path.dirname(DIST);

/**
 * `env`: more of the server's environment (CLAWD_BENCH_SEE_ALL=1 for the snapshot cases' "before"
 * side); `config`: config.json's keys besides a fresh token (many-tabs: `extension.idleDetachMs`).
 */
export async function startRelayProcess(
  env: Record<string, string> = {},
  config?: Record<string, unknown>,
): Promise<RelayProcess> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-'));
  if (config)
    writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ token: randomBytes(24).toString('base64url'), ...config }),
      { mode: 0o600 },
    );
  const child = spawn(
    process.execPath,
    [path.join(DIST, 'clawd.js'), 'serve', '--relay-port', '0', '--control-port', '0', '--home', home],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CLAWD_LOG: 'warn', ...env } },
  );
  const unlist = endOnExit(() => {
    child.kill('SIGKILL'); // its browsers (over their pipes) end with it
    rmSync(home, { recursive: true, force: true });
  });
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`clawd serve did not start:\n${out}`)), 15_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(
        /Relay \(CDP\)\s+(http:\/\/127\.0\.0\.1:(\d+))[\s\S]*Control API\s+(\S+)[\s\S]*Token\s+(\S+)/,
      );
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => reject(new Error(`clawd serve exited (${code}):\n${out}`)));
  });
  const [, url, port, controlUrl, token] = match as unknown as [string, string, string, string, string];
  const keys = JSON.parse(readFileSync(path.join(home, 'keys.json'), 'utf8')) as { person: string; extension: string };
  return {
    extensionKey: keys.extension,
    personKey: keys.person,
    child,
    home,
    url,
    controlUrl,
    port: Number(port),
    token,
    cdpWsUrl: `ws://127.0.0.1:${port}/cdp?token=${token}`,
    memory() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? NaN);
      return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
    },
    async close() {
      unlist();
      // Bounded: a server that died already (what makes a case hang) or does not stop is killed.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), RELAY_STOP_MS);
        await exited;
        clearTimeout(killer);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A call to a server's control API as the person running the bench (token and person's key), answering its JSON or throwing with what it said. */
export type ControlCall = (method: string, route: string, body?: unknown) => Promise<any>;

export function controlApi(server: RelayProcess): ControlCall {
  return async (method, route, body) => {
    const response = await fetch(server.controlUrl + route, {
      method,
      headers: {
        Authorization: `Bearer ${server.token}`,
        'X-Clawd-Person': server.personKey,
        'Content-Type': 'application/json',
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${await response.text()}`);
    return response.json();
  };
}

/** A loopback port the system gave as free (for what cannot listen on port 0 itself). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A CLAWD_CDP_PORTS range of one port the system gave as free. */
export async function systemPickedPorts(): Promise<string> {
  const port = await freePort();
  return `${port}-${port}`;
}

/** A local page server for the bench's pages. */
export async function startBenchPages(
  pages: Record<string, string>,
): Promise<{ url(p: string): string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html' }).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface BenchTab {
  relay: RelayProcess;
  browser: TestBrowser;
  pageTargetId: string;
  /** A raw CDP client through the relay, attached to the page. */
  viaRelay: { client: CdpClient; sessionId: string };
  /** A raw CDP client straight to the browser's own port, attached to the same page. */
  direct: { client: CdpClient; sessionId: string };
  close(): Promise<void>;
}

/** Chromium with the extension, one tab at `url` handed over by a toolbar click, two raw clients. */
export async function openBenchTab(relay: RelayProcess, url: string): Promise<BenchTab> {
  // A 1920×1080 window, so every session captures the same frame (an emulation override set on
  // one CDP session does not apply to the extension's session).
  const browser = await TestBrowser.launch({ args: ['--window-size=1920,1080'] });
  await browser.configureExtension(relay.port, relay.extensionKey);
  const tab = await browser.openTab(url);
  const json = async () =>
    (await (await fetch(`${relay.url}/json/list?token=${relay.token}`)).json()) as Array<{ id: string }>;
  await until(
    'the extension to connect',
    async () =>
      ((await (await fetch(`${relay.url}/extension/status?token=${relay.token}`)).json()) as { connected: boolean })
        .connected,
    15_000,
  );
  await browser.clickToolbar(tab);
  await until('the tab to be attached', async () => (await json()).some((t) => t.id === tab.pageTargetId));
  const relayClient = await CdpClient.connect(relay.cdpWsUrl);
  const relaySession = (await relayClient.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true }))
    .sessionId;
  const directClient = await CdpClient.connect(browser.wsEndpoint);
  const directSession = (
    await directClient.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true })
  ).sessionId;
  return {
    relay,
    browser,
    pageTargetId: tab.pageTargetId,
    viaRelay: { client: relayClient, sessionId: relaySession },
    direct: { client: directClient, sessionId: directSession },
    async close() {
      await relayClient.close();
      await directClient.close();
      await browser.close();
    },
  };
}

/** The page at `url` in a browser Playwright connected to, once it shows it. */
export function pageAt(browser: Browser, url: string): Promise<Page> {
  return until('the page in Playwright', () =>
    browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url() === url),
  );
}
