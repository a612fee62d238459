// A browser that answers but will not let the relay's policy guard hold its targets (it refuses
// the guard's auto-attach, as an endpoint that limits what its clients may do) never runs an
// agent's call unguarded: the call answers 503 policy_not_enforced quoting what the browser said,
// and no other client is let onto it. Without a policy of the person's it is refused all the same:
// the guard also keeps the browser's pages off clawd's own addresses.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * A CDP endpoint that says where its browser is (`/json/version`), lets sockets open, refuses
 * Target.setAutoAttach and answers every other command with an empty result; `commands` lists
 * what was asked of it.
 */
async function refusingEndpoint(): Promise<{ url: string; commands: string[]; close(): Promise<void> }> {
  const commands: string[] = [];
  const server = http.createServer((req, res) => {
    const { port } = server.address() as AddressInfo;
    if (req.url === '/json/version')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          Browser: 'Chrome/156.0.0.0',
          'Protocol-Version': '1.3',
          webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/b1`,
        }),
      );
    if (req.url === '/json/list' || req.url === '/json') return res.writeHead(200).end('[]');
    res.writeHead(404).end();
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws) =>
    ws.on('message', (data) => {
      const { id, method } = JSON.parse(data.toString()) as { id: number; method: string };
      commands.push(method);
      ws.send(
        JSON.stringify(
          method === 'Target.setAutoAttach'
            ? { id, error: { code: -32000, message: 'auto-attach is not allowed on this endpoint' } }
            : { id, result: {} },
        ),
      );
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    commands,
    close: () => {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a browser the policy guard cannot hold', () => {
  let t: TestServer | undefined;
  let endpoint: Awaited<ReturnType<typeof refusingEndpoint>> | undefined;
  afterEach(async () => {
    await t?.close();
    await endpoint?.close();
    t = endpoint = undefined;
  });

  it('refuses the call with policy_not_enforced instead of running it unguarded', async () => {
    t = await startTestServer();
    endpoint = await refusingEndpoint();
    const created = await t.api('POST', '/profiles/create', {
      person: true,
      body: { name: 'far', cdpUrl: endpoint.url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const api = (method: string, route: string, body?: unknown) =>
      t!.api(method, route, { profile: 'far', ...(body !== undefined ? { body } : {}) });

    expect((await api('POST', '/policy', { allow: ['http://127.0.0.1:*'] })).status).toBe(200);
    endpoint.commands.length = 0;
    const refused = await api('POST', '/navigate', { url: 'http://127.0.0.1:1/', timeoutMs: 5_000 });
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.error).toMatchObject({
      code: 'policy_not_enforced',
      message: expect.stringMatching(
        /profile far's browser to its origin policy.*auto-attach is not allowed.*nothing was done/,
      ),
    });
    // Only the guard spoke to the browser: no client was let onto it once the guard was refused.
    expect(endpoint.commands).toEqual(['Target.setAutoAttach']);
    // A failed guard is not kept: the next call tries again, and is refused again.
    const again = await api('POST', '/navigate', { url: 'http://127.0.0.1:1/', timeoutMs: 5_000 });
    expect(again.body.error?.code).toBe('policy_not_enforced');
    expect(endpoint.commands).toEqual(['Target.setAutoAttach', 'Target.setAutoAttach']);

    // No policy of the person's: the guard is still needed (clawd's own addresses), and refused still.
    expect((await t.loosen({}, 'far')).status).toBe(200);
    const unguarded = await api('POST', '/navigate', { url: 'http://127.0.0.1:1/', timeoutMs: 5_000 });
    expect(unguarded.body.error?.code).toBe('policy_not_enforced');
  });
});
