// The peer relay the bench measures clawd's beside (#50): Playwriter, from its npm package (a dev
// dependency, pinned), run as its users run it — its relay in a process of its own, its MV3
// extension in a Chromium of its own, a tab handed over by a toolbar click. Its extension dials a
// port baked into its worker (19988); the bench runs a copy with a free port put in instead, so it
// never takes a fixed port. Its logs (it writes every CDP message to a file, as it does for its
// users) go to a temporary folder removed on close.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from '../../test/helpers/waits';
import { endOnExit, freePort } from './fixture';

/** The id its manifest's key gives its extension (the only id its relay takes an extension socket from). */
export const PLAYWRITER_EXTENSION_ID = 'pebbngnfojnignonigcnkdilknapkgid';
const BAKED_PORT = 'const RELAY_PORT = Number("19988")';

export interface PeerRelay {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Its extension, the port put in: load it with --load-extension. */
  extensionDir: string;
  version: string;
  /** A raw CDP client's or Playwright's WebSocket: each client names itself in the path. */
  cdpUrl(client: string): string;
  extensionConnected(): Promise<boolean>;
  /** Whether the relay lists the page (its tab handed over). */
  lists(pageTargetId: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function startPlaywriter(root: string): Promise<PeerRelay> {
  const dir = path.join(root, 'node_modules', 'playwriter');
  const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-playwriter-'));
  const port = await freePort();
  const extensionDir = path.join(scratch, 'extension');
  cpSync(path.join(dir, 'dist', 'extension'), extensionDir, { recursive: true });
  const worker = path.join(extensionDir, 'background.js');
  const source = readFileSync(worker, 'utf8');
  if (!source.includes(BAKED_PORT)) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`playwriter ${version}: its extension's relay port was not found`);
  }
  writeFileSync(worker, source.replace(BAKED_PORT, `const RELAY_PORT = Number("${port}")`));
  // The two calls its own relay daemon (dist/start-relay-server.js) makes, on our port.
  const start = `const { startPlayWriterCDPRelayServer } = await import(${JSON.stringify(path.join(dir, 'dist', 'cdp-relay.js'))});
    const { createFileLogger } = await import(${JSON.stringify(path.join(dir, 'dist', 'create-logger.js'))});
    const server = await startPlayWriterCDPRelayServer({ port: ${port}, host: '127.0.0.1', logger: createFileLogger() });
    process.on('SIGTERM', () => { server.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', start], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      HOME: scratch,
      PLAYWRITER_LOG_FILE_PATH: path.join(scratch, 'relay-server.log'),
      PLAYWRITER_CDP_LOG_FILE_PATH: path.join(scratch, 'cdp.jsonl'),
    },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const unlist = endOnExit(() => {
    child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    unlist();
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      until('Playwriter’s relay to answer', async () => (await fetch(`${url}/version`)).ok, 15_000),
      exited.then(() => {
        throw new Error(`Playwriter's relay exited: ${stderr.slice(-2_000)}`);
      }),
    ]);
  } catch (error) {
    await close();
    throw error;
  }
  const json = async <T>(route: string): Promise<T> => (await (await fetch(url + route)).json()) as T;
  return {
    url,
    extensionDir,
    version,
    cdpUrl: (client) => `ws://127.0.0.1:${port}/cdp/${client}`,
    extensionConnected: async () => (await json<{ connected: boolean }>('/extension/status')).connected,
    lists: async (pageTargetId) => (await json<Array<{ id: string }>>('/json/list')).some((t) => t.id === pageTargetId),
    close,
  };
}
