// The ways the agent API reaches a page, set up for the contract suite: a managed profile (our
// Chromium), an extension-attached tab (the user's browser, through the relay), a remote profile
// (a browser someone else started, attached by its CDP URL) and a grid profile (a browser from a
// Selenium Grid on loopback, driven over its se:cdp). Each gives the same handle:
// the control API scoped to its profile, and an independent way for the test to read the page
// back (its own CDP session, not the API under test). The extension and remote drivers' browsers
// are their test worker's kept ones (worker-browsers.ts): leased at the start, given back reset.

import { afterAll, beforeAll } from 'vitest';
import type { Logger } from '../../relay/log';
import { CdpClient } from './cdp-client';
import type { TestBrowser } from './chromium';
import { until } from './waits';
import { startPageServer, type PageServer } from './pages';
import { sharedGrid } from './shared-grid';
import { startTestServer, type TestServer } from './server';
import { giveBack, leaseBrowser } from './worker-browsers';

export interface AgentDriver {
  /** managed, extension, remote, grid, or a kind of the tests' own (launched-kind/). */
  name: string;
  profile: string;
  server: TestServer;
  /** The tab the suite works in. */
  targetId: string;
  api<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** POST /policy as the person, a loosening confirmed as their side panel would (TestServer.loosen). */
  loosen<T = any>(body: Record<string, unknown>): Promise<{ status: number; body: T }>;
  /** The person's browser and the tab in it (extension driver only): for the toolbar and badge. */
  browser?: TestBrowser;
  tab?: { tabTargetId: string; pageTargetId: string };
  /** Evaluates in the page through the harness's own CDP session. */
  inPage<T = any>(expression: string): Promise<T>;
  /** Runs the page's garbage collector (what the page no longer holds goes, as it may at any time). */
  collectGarbage(): Promise<void>;
  close(): Promise<void>;
}

export async function harness(
  cdp: CdpClient,
  targetId: string,
): Promise<Pick<AgentDriver, 'inPage' | 'collectGarbage'>> {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  return {
    inPage: async <T>(expression: string): Promise<T> => {
      const { result, exceptionDetails } = await cdp.send(
        'Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: true },
        sessionId,
      );
      if (exceptionDetails)
        throw new Error(`in page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value as T;
    },
    collectGarbage: async () => {
      await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    },
  };
}

export function scoped(server: TestServer, profile: string) {
  return <T>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile, ...(body !== undefined ? { body } : {}) });
}

export async function managedDriver(
  pages: PageServer,
  serverOptions: Parameters<typeof startTestServer>[0] = {},
): Promise<AgentDriver> {
  const server = await startTestServer(serverOptions);
  const api = scoped(server, 'clawd');
  const started = await api<{ cdpUrl: string }>('POST', '/start');
  if (started.status !== 200) throw new Error(`starting the managed profile: ${JSON.stringify(started.body)}`);
  const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/') });
  // The profile's port is clawd's: the token opens it (the WebSocket URL it answers carries it).
  const version = await (await fetch(`${started.body.cdpUrl}/json/version?token=${server.token}`)).json();
  // The test's own eyes, not an agent: clawd's own key keeps it out of the person's asks (a raw
  // client that runs a script on a tab has the tab's loads asked about for it while it stays).
  const cdp = await CdpClient.connect(version.webSocketDebuggerUrl, {
    headers: { 'x-clawd-agent': server.server.relay.agentKey },
  });
  return {
    name: 'managed',
    profile: 'clawd',
    server,
    targetId: opened.body.targetId,
    api,
    loosen: (body) => server.loosen(body, 'clawd'),
    ...(await harness(cdp, opened.body.targetId)),
    async close() {
      await cdp.close();
      await server.close();
    },
  };
}

export async function extensionDriver(
  pages: PageServer,
  options: { evaluateEnabled?: boolean; log?: Logger } = {},
): Promise<AgentDriver> {
  const server = await startTestServer({
    ...(options.evaluateEnabled ? { evaluateEnabled: true } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const browser = await leaseBrowser({ extension: true });
  await browser.configureExtension(server.server.relay.port, server.extensionKey);
  await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
  const tab = await browser.openTab(pages.url('/'));
  await browser.clickToolbar(tab);
  await until('the tab to be attached', () =>
    server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
  );
  return {
    name: 'extension',
    profile: 'chrome',
    server,
    targetId: tab.pageTargetId,
    browser,
    tab,
    api: scoped(server, 'chrome'),
    loosen: (body) => server.loosen(body, 'chrome'),
    ...(await harness(browser.cdp, tab.pageTargetId)),
    async close() {
      await server.close();
      await giveBack(browser, { extension: true });
    },
  };
}

/** A remote profile: a Chromium this test starts itself, which clawd only attaches to by its CDP URL. */
export async function remoteDriver(pages: PageServer): Promise<AgentDriver> {
  const server = await startTestServer();
  const browser = await leaseBrowser({ extension: false });
  const cdpUrl = `http://${new URL(browser.wsEndpoint).host}`;
  const created = await server.api('POST', '/profiles/create', {
    person: true,
    body: { name: 'far', cdpUrl },
  });
  if (created.status !== 201) throw new Error(`creating the remote profile: ${JSON.stringify(created.body)}`);
  const api = scoped(server, 'far');
  const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/') });
  return {
    name: 'remote',
    profile: 'far',
    server,
    targetId: opened.body.targetId,
    api,
    loosen: (body) => server.loosen(body, 'far'),
    browser,
    ...(await harness(browser.cdp, opened.body.targetId)),
    async close() {
      await server.close();
      await giveBack(browser, { extension: false });
    },
  };
}

/**
 * A grid profile on the run's Grid (shared-grid.ts): calls without a session share the profile's
 * browser, asked of the Grid by the first call; the harness reads it back over the Grid session's
 * se:cdp, not through clawd. Closing the server stops the profile, which gives its browsers back.
 */
export async function gridDriver(pages: PageServer): Promise<AgentDriver> {
  const [server, grid] = await Promise.all([startTestServer(), sharedGrid()]);
  try {
    const created = await server.api('POST', '/profiles/create', {
      person: true,
      body: { name: 'pool', gridUrl: grid.url, capabilities: grid.capabilities },
    });
    if (created.status !== 201) throw new Error(`creating the grid profile: ${JSON.stringify(created.body)}`);
    const api = scoped(server, 'pool');
    const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/'), timeoutMs: 60_000 });
    if (opened.status !== 200) throw new Error(`opening a tab on the Grid: ${JSON.stringify(opened.body)}`);
    const status = await api<{ browsers: Array<{ gridSession: string }> }>('GET', '/');
    const gridSession = status.body.browsers[0]!.gridSession;
    const cdp = await CdpClient.connect(`${grid.url.replace('http', 'ws')}/session/${gridSession}/se/cdp`);
    return {
      name: 'grid',
      profile: 'pool',
      server,
      targetId: opened.body.targetId,
      api,
      loosen: (body) => server.loosen(body, 'pool'),
      ...(await harness(cdp, opened.body.targetId)),
      async close() {
        await cdp.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * The drivers a suite runs on: every one it lists, or those `CLAWD_TEST_DRIVERS` names (comma
 * separated; .ci/run's older-Chromium run names its own, and says why). A name no suite knows
 * fails; a suite listing none of the names has no test, and vitest says "No test found" for it.
 */
export function driversToRun<T extends readonly [string, (pages: PageServer) => Promise<AgentDriver>]>(
  all: readonly T[],
): T[] {
  const wanted = process.env.CLAWD_TEST_DRIVERS?.split(',').map((name) => name.trim());
  if (!wanted) return [...all];
  const known = ['managed', 'extension', 'remote', 'grid', ...all.map(([name]) => name)];
  const unknown = wanted.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new Error(`CLAWD_TEST_DRIVERS names ${unknown.join(', ')}: known are ${known.join(', ')}`);
  return all.filter(([name]) => wanted.includes(name));
}

/** Every driver, for the suites that run on all of them (through driversToRun). */
export const EVERY_DRIVER = [
  ['managed', managedDriver],
  ['extension', extensionDriver],
  ['remote', remoteDriver],
  ['grid', gridDriver],
] as const;

/** A driver and the test pages, for one describe block: made before its tests, closed after. */
export interface DriverContext {
  readonly pages: PageServer;
  readonly d: AgentDriver;
}

export function useAgentDriver(make: (pages: PageServer) => Promise<AgentDriver>): DriverContext {
  let pages: PageServer | undefined;
  let driver: AgentDriver | undefined;
  // The run's Grid may take two minutes to come up beside a whole test run.
  beforeAll(async () => {
    pages = await startPageServer();
    driver = await make(pages);
  }, 150_000);
  afterAll(async () => {
    await driver?.close();
    await pages?.close();
  });
  return {
    get pages() {
      if (!pages) throw new Error('the page server is made in beforeAll');
      return pages;
    },
    get d() {
      if (!driver) throw new Error('the driver is made in beforeAll');
      return driver;
    },
  };
}
