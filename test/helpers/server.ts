// A whole `clawd serve` (relay + control API) on free ports with a temp home, for socket and e2e
// tests; managed CDP ports come from a free range chosen for this test process.

import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, updateConfig } from '../../relay/home/config-store';
import { loadKeys } from '../../relay/home/home-keys';
import { createLogger, silentLogger, type Logger } from '../../relay/log';
import type { DriverKind } from '../../relay/profiles/driver-kinds';
import { startServer, type RunningServer } from '../../relay/server';
import { runCli, type CliResult } from './cli';
import { answeringWhile } from './waits';

/**
 * A block of ports that were free a moment ago, well apart from the usual ones and below Linux's
 * ephemeral range (32768 up): a block within it could lose a port to any outgoing connection
 * before the browser binds it (a managed start in a clean-clone CI run failed so, once).
 */
async function freePortBlock(size: number): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (32_768 - 20_000 - size));
    const free = await Promise.all(
      Array.from(
        { length: size },
        (_, i) =>
          new Promise<boolean>((resolve) => {
            const s = net.createServer();
            s.once('error', () => resolve(false));
            s.listen(base + i, '127.0.0.1', () => s.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return `${base}-${base + size - 1}`;
  }
  throw new Error('no free block of ports found');
}

export interface TestServer {
  server: RunningServer;
  home: string;
  token: string;
  /** The person's key (keys.json): what the person's terminal adds to the token (`personKey` of api's options). */
  personKey: string;
  /** What pairing gives the extension (configureExtension takes it). */
  extensionKey: string;
  controlUrl: string;
  /** Calls the control API (with the token unless `token: null`; as the person's terminal with `person: true`). */
  api<T = any>(
    method: string,
    path: string,
    options?: {
      profile?: string;
      body?: unknown;
      token?: string | null;
      person?: boolean;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; body: T }>;
  /**
   * POST /policy as the person's terminal; a loosening that waits for their yes (their browser is
   * connected) is answered as the side panel would (side-panel.test.ts clicks the real panel).
   */
  loosen<T = any>(body: Record<string, unknown>, profile?: string): Promise<{ status: number; body: T }>;
  /** Runs the built `clawd` CLI against this server. */
  cli(args: string[], timeoutMs?: number): Promise<CliResult>;
  /** Stops the server (keeps the home, for restart tests). */
  stop(): Promise<void>;
  /** Stops the server and removes the home. */
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    home?: string;
    evaluateEnabled?: boolean;
    downloadLimitMb?: number;
    autoStart?: boolean;
    personIdleMs?: number;
    log?: Logger;
    takeoverGraceMs?: number;
    /** browser.extraArgs: more flags for the managed browsers (a test's host names). */
    extraArgs?: string[];
    /** The kinds of profile it runs (default: clawd's own): a test's own kind joins here. */
    kinds?: readonly DriverKind[];
    /** config.json `extension.idleDetachMs`: how long a handed-over tab stays attached unused. */
    idleDetachMs?: number;
  } = {},
): Promise<TestServer> {
  process.env.CLAWD_CDP_PORTS ??= await freePortBlock(24);
  const home = options.home ?? path.join(mkdtempSync(path.join(os.tmpdir(), 'clawd-serve-')), 'home');
  if (
    options.evaluateEnabled !== undefined ||
    options.downloadLimitMb !== undefined ||
    options.autoStart !== undefined ||
    options.personIdleMs !== undefined ||
    options.extraArgs !== undefined
  ) {
    await loadConfig(home);
    const changes = {
      ...(options.evaluateEnabled !== undefined ? { evaluateEnabled: options.evaluateEnabled } : {}),
      ...(options.downloadLimitMb !== undefined ? { downloadLimitMb: options.downloadLimitMb } : {}),
      ...(options.autoStart !== undefined ? { autoStart: options.autoStart } : {}),
      ...(options.personIdleMs !== undefined ? { personIdleMs: options.personIdleMs } : {}),
      ...(options.extraArgs !== undefined ? { extraArgs: options.extraArgs } : {}),
    };
    await updateConfig(home, (config) => ({ ...config, browser: { ...config.browser, ...changes } }));
  }
  if (options.idleDetachMs !== undefined) {
    const idleDetachMs = options.idleDetachMs;
    await loadConfig(home);
    await updateConfig(home, (config) => ({ ...config, extension: { idleDetachMs } }));
  }
  const log = options.log ?? (process.env.CLAWD_TEST_LOG ? createLogger('debug') : silentLogger);
  const server = await startServer({
    home,
    relayPort: 0,
    controlPort: 0,
    log,
    ...(options.takeoverGraceMs !== undefined ? { takeoverGraceMs: options.takeoverGraceMs } : {}),
    ...(options.kinds ? { kinds: options.kinds } : {}),
  });
  const controlUrl = server.control.url;
  const keys = await loadKeys(home);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
  };
  const api: TestServer['api'] = async (method, route, opts = {}) => {
    const url = new URL(controlUrl + route);
    if (opts.profile) url.searchParams.set('profile', opts.profile);
    const token = opts.token === undefined ? server.token : opts.token;
    const response = await fetch(url, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(opts.person ? { 'X-Clawd-Person': keys.person } : {}),
        ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined
        ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }
        : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    server,
    home,
    token: server.token,
    personKey: keys.person,
    extensionKey: keys.extension,
    controlUrl,
    api,
    async loosen(body, profile) {
      const call = api('POST', '/policy', { person: true, body, ...(profile ? { profile } : {}) });
      return answeringWhile(server.consent.questions, (question) => (question.terminal ? true : undefined), call);
    },
    cli: (args, timeoutMs) => runCli(args, { CLAWD_HOME: home }, timeoutMs),
    stop,
    async close() {
      await stop();
      rmSync(path.dirname(home), { recursive: true, force: true });
    },
  };
}

/** A debug logger that keeps its last `limit` lines: a failing test says what the server did last. */
export function keptLogger(limit = 150): Logger & { lines(): string[] } {
  const kept: string[] = [];
  const log = createLogger('debug', (line) => {
    kept.push(line);
    if (kept.length > limit) kept.shift();
  });
  return { ...log, lines: () => [...kept] };
}
