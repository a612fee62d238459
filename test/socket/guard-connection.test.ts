// The policy guard's own connection to a browser clawd serves says it is the guard's (`?clawd=guard`
// with clawd's key), on a one-browser profile and on each browser of a pool alike: the port holds
// clawd's other connections' first commands in a new target until the guard has set it up, and
// held there too, the guard's own set-up waited for itself (a pool's every new browser took 5 s
// more). A browser whose port is Chrome's (no key: remote, Grid) is asked as it is. A policy
// change makes a new guard that holds new targets before the old one goes. A browser clawd serves
// itself is reached on its known socket, without a readiness ask first.

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
async function answeringBrowser(): Promise<{
  ws(name: string): string;
  opened: string[];
  steps: string[];
  close(): Promise<void>;
}> {
  const opened: string[] = [];
  /** Each connection's auto-attach at the root and its close, in order. */
  const steps: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws, req) => {
    opened.push(req.url ?? '');
    const n = opened.length;
    ws.on('message', (data) => {
      const { id, method, sessionId } = JSON.parse(data.toString()) as {
        id: number;
        method: string;
        sessionId?: string;
      };
      if (method === 'Target.setAutoAttach' && sessionId === undefined) steps.push(`guard ${n} holds new targets`);
      ws.send(JSON.stringify({ id, result: {} }));
    });
    ws.on('close', () => steps.push(`guard ${n} closed`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ws: (name) => `ws://127.0.0.1:${port}/devtools/browser/${name}`,
    opened,
    steps,
    close: () => {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const OWN = { [AGENT_KEY_HEADER]: 'clawd-own-key' };

/** A one-browser profile on clawd's own port (a managed profile's: its key in the headers). */
function oneBrowser(url: string): ProfileDriver {
  return {
    policyEnforcement: 'interception',
    playwright: { url: 'http://127.0.0.1:1', headers: OWN },
    cdp: { isReady: async () => ({ webSocketDebuggerUrl: url }) },
  } as unknown as ProfileDriver;
}

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
    const driver = oneBrowser(browser.ws('one'));
    await guards.hold('clawd', driver);
    expect(browser.opened).toEqual(['/devtools/browser/one?clawd=guard']);
  });

  it('goes straight to the socket clawd serves for its own browser, never asking the endpoint first', async () => {
    // The endpoint's readiness ask is a round trip over the browser's pipe; with eight browsers
    // starting it outlasted its bound and the guard refused to start (bench many-profiles).
    const { browser, guards } = await start();
    const driver = {
      ...oneBrowser(browser.ws('unused')),
      cdp: { isReady: async () => undefined },
      ownSocket: () => ({ url: browser.ws('own'), headers: OWN }),
    } as unknown as ProfileDriver;
    await guards.hold('clawd', driver);
    expect(browser.opened).toEqual(['/devtools/browser/own?clawd=guard']);
  });

  it('makes the new guard hold new targets before the old one goes, when a policy changes', async () => {
    const { browser, guards } = await start();
    const driver = oneBrowser(browser.ws('one'));
    await guards.hold('clawd', driver);
    await guards.renew(() => guards.hold('clawd', driver));
    await expect
      .poll(() => browser.steps)
      .toEqual(['guard 1 holds new targets', 'guard 2 holds new targets', 'guard 1 closed']);
  });
});
