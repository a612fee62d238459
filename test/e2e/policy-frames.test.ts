// A managed profile's guard and a cross-site frame of an agent's tab, once a new policy made a new
// guard while clawd's own connection held the tab: Chrome tells a page's sessions of a new
// out-of-process frame one at a time, in the order they asked to auto-attach there, each holding
// the frame until its word. clawd's own connection asked first, and its word to run the frame
// waits for the guard, so the guard heard of the frame only once that wait gave up (3 s, twice:
// the frame's first command and its word). The guard now attaches to such a frame itself: no wait
// for it gives up (the guard's log says when one does), and its own requests are still held to
// the policy.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../relay/log';
import { managedDriver, type AgentDriver } from '../helpers/agent-drivers';
import { startPageServer, type PageServer } from '../helpers/pages';
import { quiet, until } from '../helpers/waits';

/** The guard's lines: a wait for a target it had not heard of that gave up says so there. */
const guardLines: string[] = [];
const guardLog: Logger = {
  debug: (line) => void (line.startsWith('policy guard') && guardLines.push(line)),
  info: () => {},
  warn: (line) => void guardLines.push(line),
  error: (line) => void guardLines.push(line),
};

describe('a cross-site frame of an agent’s tab on a managed profile, under a renewed guard', () => {
  let pages: PageServer;
  let d: AgentDriver;
  let top: http.Server;
  let framed: http.Server;
  /** What reached the blocked origin (localhost). */
  const blockedHits: string[] = [];
  const port = (server: http.Server) => (server.address() as AddressInfo).port;

  beforeAll(async () => {
    // 127.0.0.1 (the tab's site) and localhost (blocked) on one server; the framed site on 127.0.0.2.
    top = http.createServer((req, res) => {
      if (req.headers.host?.startsWith('localhost')) blockedHits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>top</title>
        <script>addEventListener('message', (e) => (window.said = e.data));</script>
        <iframe src="http://127.0.0.2:${port(framed)}/frame"></iframe>`);
    });
    // The frame's own request to the blocked origin: only the guard's interception in the frame stops it.
    framed = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>frame</title>
        <img src="http://localhost:${port(top)}/from-frame"
          onload="parent.postMessage('loaded', '*')" onerror="parent.postMessage('failed', '*')">`),
    );
    await new Promise<void>((resolve) => top.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => framed.listen(0, '127.0.0.2', resolve));
    pages = await startPageServer();
    d = await managedDriver(pages, { log: guardLog });
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    for (const server of [top, framed]) {
      server?.closeAllConnections();
      server?.close();
    }
    await pages?.close();
  });

  it(
    'is set up by the guard without waiting for it, its own requests still held to the policy',
    { timeout: 60_000 },
    async () => {
      const blocked = 'http://localhost:*';
      expect((await d.api('POST', '/policy', { block: [blocked] })).status).toBe(200);
      // clawd's own connection holds the tab (auto-attached there) before the next guard is made.
      expect((await d.api('POST', '/navigate', { targetId: d.targetId, url: pages.url('/') })).status).toBe(200);
      expect((await d.api('POST', '/policy', { block: [blocked, 'http://127.0.0.9:*'] })).status).toBe(200);

      guardLines.length = 0;
      const loaded = await d.api('POST', '/navigate', {
        targetId: d.targetId,
        url: `http://127.0.0.1:${port(top)}/top`,
      });
      expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
      expect(
        await until('the frame to say how its image went', () => d.inPage<string | undefined>('window.said')),
      ).toBe('failed');
      // Before, both waits for the frame gave up (the guard had not heard of it yet).
      expect(guardLines.filter((line) => /iframe \S+ not heard of within/.test(line))).toEqual([]);
      await quiet(300); // anything that slipped through would have reached the server by now
      expect(blockedHits).toEqual([]);
    },
  );
});
