// The three ways the agent API reaches a page, set up for the contract suite: a managed profile
// (our Chromium), an extension-attached tab (the user's browser, through the relay) and a remote
// profile (a browser someone else started, attached by its CDP URL). Each gives the same handle:
// the control API scoped to its profile, and an independent way for the test to read the page
// back (its own CDP session, not the API under test).

import { afterAll, beforeAll } from 'vitest';
import { CdpClient } from './cdp-client';
import { TestBrowser } from './chromium';
import { until } from './waits';
import { startPageServer, type PageServer } from './pages';
import { startTestServer, type TestServer } from './server';

export interface AgentDriver {
  name: 'managed' | 'extension' | 'remote';
  profile: string;
  server: TestServer;
  /** The tab the suite works in. */
  targetId: string;
  api<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The person's browser and the tab in it (extension driver only): for the toolbar and badge. */
  browser?: TestBrowser;
  tab?: { tabTargetId: string; pageTargetId: string };
  /** Evaluates in the page through the harness's own CDP session. */
  inPage<T = any>(expression: string): Promise<T>;
  close(): Promise<void>;
}

async function harness(cdp: CdpClient, targetId: string) {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  return async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await cdp.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      sessionId,
    );
    if (exceptionDetails)
      throw new Error(`in page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  };
}

function scoped(server: TestServer, profile: string) {
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
  const version = await (await fetch(`${started.body.cdpUrl}/json/version`)).json();
  const cdp = await CdpClient.connect(version.webSocketDebuggerUrl);
  return {
    name: 'managed',
    profile: 'clawd',
    server,
    targetId: opened.body.targetId,
    api,
    inPage: await harness(cdp, opened.body.targetId),
    async close() {
      await cdp.close();
      await server.close();
    },
  };
}

export async function extensionDriver(
  pages: PageServer,
  options: { evaluateEnabled?: boolean } = {},
): Promise<AgentDriver> {
  const server = await startTestServer({ ...(options.evaluateEnabled ? { evaluateEnabled: true } : {}) });
  const browser = await TestBrowser.launch();
  await browser.configureExtension(server.server.relay.port, server.token);
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
    inPage: await harness(browser.cdp, tab.pageTargetId),
    async close() {
      await server.close();
      await browser.close();
    },
  };
}

/** A remote profile: a Chromium this test starts itself, which clawd only attaches to by its CDP URL. */
export async function remoteDriver(pages: PageServer): Promise<AgentDriver> {
  const server = await startTestServer();
  const browser = await TestBrowser.launch({ extension: false });
  const cdpUrl = `http://${new URL(browser.wsEndpoint).host}`;
  const created = await server.api('POST', '/profiles/create', { body: { name: 'far', cdpUrl } });
  if (created.status !== 201) throw new Error(`creating the remote profile: ${JSON.stringify(created.body)}`);
  const api = scoped(server, 'far');
  const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/') });
  return {
    name: 'remote',
    profile: 'far',
    server,
    targetId: opened.body.targetId,
    api,
    browser,
    inPage: await harness(browser.cdp, opened.body.targetId),
    async close() {
      await server.close();
      await browser.close();
    },
  };
}

/** A driver and the test pages, for one describe block: made before its tests, closed after. */
export interface DriverContext {
  readonly pages: PageServer;
  readonly d: AgentDriver;
}

export function useAgentDriver(make: (pages: PageServer) => Promise<AgentDriver>): DriverContext {
  let pages: PageServer | undefined;
  let driver: AgentDriver | undefined;
  beforeAll(async () => {
    pages = await startPageServer();
    driver = await make(pages);
  });
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
