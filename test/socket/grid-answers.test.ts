// What a grid profile says when its Selenium Grid cannot give a browser, on the wire as a Grid
// speaks it (W3C WebDriver over HTTP): a Grid that is down is not_running naming its URL; a
// request that waits in the Grid's queue past the call's timeoutMs, or that the Grid gives up on,
// is 503 grid_busy with the Grid's words. (The Grid giving browsers is e2e: grid.test.ts.)

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

/** A Grid of the test's own: ready, one node up, and `onSession` for every new-session request. */
async function grid(onSession: (res: http.ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/status') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          value: {
            ready: true,
            message: 'Selenium Grid ready.',
            nodes: [{ uri: 'http://node-1:5555', availability: 'UP', slots: [] }],
          },
        }),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/session') return onSession(res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a grid profile whose Grid has no browser for it', () => {
  let t: TestServer | undefined;
  let fake: { url: string; close(): Promise<void> } | undefined;
  afterEach(async () => {
    await t?.close();
    await fake?.close();
    t = fake = undefined;
  });

  it('says a Grid that is down is not running, naming its URL', async () => {
    t = await startTestServer();
    const closed = await grid(() => {});
    const url = closed.url;
    await closed.close();
    const created = await t.api('POST', '/profiles/create', { person: true, body: { name: 'pool', gridUrl: url } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ driver: 'grid', running: false, hint: expect.stringContaining(url) });
    const call = await t.api('POST', '/navigate', { profile: 'pool', body: { url: 'about:blank', session: 'ada' } });
    expect(call.status).toBe(409);
    expect(call.body.error).toMatchObject({ code: 'not_running', message: expect.stringContaining(url) });
  });

  it('answers grid_busy within the call’s bound while the request waits in the Grid’s queue', async () => {
    t = await startTestServer();
    fake = await grid(() => {}); // queued: never answered
    expect(
      (await t.api('POST', '/profiles/create', { person: true, body: { name: 'pool', gridUrl: fake.url } })).status,
    ).toBe(201);
    const began = Date.now();
    const call = await t.api('POST', '/navigate', {
      profile: 'pool',
      body: { url: 'about:blank', session: 'ada', timeoutMs: 1_500 },
    });
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(call.status).toBe(503);
    expect(call.body.error).toMatchObject({
      code: 'grid_busy',
      // What is left of the call's bound when the request goes to the Grid (a moment went before it).
      message: expect.stringMatching(/no free browser within 1\.[45] s/),
    });
  });

  it('answers grid_busy with the Grid’s words when it gives up on the request', async () => {
    t = await startTestServer();
    fake = await grid((res) =>
      res.writeHead(500, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          value: {
            error: 'session not created',
            message: 'Could not start a new session. New session request timed out\nHost info: …',
          },
        }),
      ),
    );
    expect(
      (await t.api('POST', '/profiles/create', { person: true, body: { name: 'pool', gridUrl: fake.url } })).status,
    ).toBe(201);
    const call = await t.api('POST', '/navigate', { profile: 'pool', body: { url: 'about:blank', session: 'ada' } });
    expect(call.status).toBe(503);
    expect(call.body.error).toMatchObject({
      code: 'grid_busy',
      message: expect.stringContaining('Could not start a new session. New session request timed out'),
    });
    expect(call.body.error.message).not.toContain('Host info');
  });
});
