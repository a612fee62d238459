// Both listeners keep an idle keep-alive connection open longer than clients do: a client that
// reuses its socket after 6 s idle (past Node's default 5 s server limit) gets its answer, never
// "other side closed".

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quiet } from '../helpers/waits';
import { startTestServer, type TestServer } from '../helpers/server';

function get(agent: http.Agent, url: string, token: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

describe('keep-alive connections', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => t?.close());

  it(
    'answers a request on a socket reused after 6 s idle, on the relay and on the control API',
    { timeout: 20_000 },
    async () => {
      const urls = [`${t.server.relay.url}/json/version`, `${t.controlUrl}/profiles`];
      const agents = urls.map(() => new http.Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 1_000 }));
      try {
        const first = await Promise.all(urls.map((url, i) => get(agents[i]!, url, t.token)));
        expect(first.map((r) => r.status)).toEqual([200, 200]);
        await quiet(6_000); // idle past Node's default keepAliveTimeout (5 s)
        const again = await Promise.all(urls.map((url, i) => get(agents[i]!, url, t.token)));
        expect(again).toEqual([
          { status: 200, reused: true },
          { status: 200, reused: true },
        ]);
      } finally {
        for (const agent of agents) agent.destroy();
      }
    },
  );
});
