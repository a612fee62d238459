// The policy guard's own connection to a browser clawd serves says it is the guard's (`?clawd=guard`
// with clawd's key), on a one-browser profile and on each browser of a pool alike: the port holds
// clawd's other connections' first commands in a new target until the guard has set it up, and
// held there too, the guard's own set-up waited for itself (a pool's every new browser took 5 s
// more). A browser whose port is Chrome's (no key: remote, Grid) is asked as it is.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { AGENT_KEY_HEADER } from '../../relay/browser/cdp-endpoint';
import { silentLogger } from '../../relay/log';
import { PolicyGuards } from '../../relay/profiles/policy-guards';
import type { BrowserEndpoint, ProfileDriver } from '../../relay/profiles/profile-driver';
import { OriginPolicy } from '../../shared/origin-policy';

/** A browser socket that answers every command with an empty result; `opened` lists each upgrade's path and query. */
async function answeringBrowser(): Promise<{ ws(name: string): string; opened: string[]; close(): Promise<void> }> {
  const opened: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws, req) => {
    opened.push(req.url ?? '');
    ws.on('message', (data) =>
      ws.send(JSON.stringify({ id: (JSON.parse(data.toString()) as { id: number }).id, result: {} })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ws: (name) => `ws://127.0.0.1:${port}/devtools/browser/${name}`,
    opened,
    close: () => {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const OWN = { [AGENT_KEY_HEADER]: 'clawd-own-key' };

describe("the policy guard's own connection", () => {
  let browser: Awaited<ReturnType<typeof answeringBrowser>> | undefined;
  let guards: PolicyGuards | undefined;
  afterEach(async () => {
    guards?.close();
    await browser?.close();
    browser = guards = undefined;
  });
  const start = async () => {
    browser = await answeringBrowser();
    const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
    guards = new PolicyGuards(
      () => policy,
      silentLogger,
      () => {},
    );
    return { browser, guards };
  };

  it("says it is the guard's to each browser of a pool clawd serves, and nothing to a port that is Chrome's", async () => {
    const { browser, guards } = await start();
    const pooled: BrowserEndpoint[] = [
      { url: browser.ws('warm'), headers: OWN },
      { url: browser.ws('held'), headers: OWN },
      { url: browser.ws('grid-node'), headers: { authorization: 'Basic Z3JpZDpncmlk' } },
    ];
    const driver = { policyEnforcement: 'interception', guardedBrowsers: () => pooled } as unknown as ProfileDriver;
    await guards.hold('fast', driver, pooled[1]!.url);
    expect([...browser.opened].sort()).toEqual([
      '/devtools/browser/grid-node',
      '/devtools/browser/held?clawd=guard',
      '/devtools/browser/warm?clawd=guard',
    ]);
  });

  it("says it on a one-browser profile's port too", async () => {
    const { browser, guards } = await start();
    const driver = {
      policyEnforcement: 'interception',
      playwright: { url: 'http://127.0.0.1:1', headers: OWN },
      cdp: { isReady: async () => ({ webSocketDebuggerUrl: browser.ws('one') }) },
    } as unknown as ProfileDriver;
    await guards.hold('clawd', driver);
    expect(browser.opened).toEqual(['/devtools/browser/one?clawd=guard']);
  });
});
