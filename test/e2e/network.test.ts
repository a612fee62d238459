// What a tab asked of the network, as an agent debugging a web app reads it: a page that fetches
// a JSON API, posts JSON, shows a missing image and aborts a slow fetch; the list with status and
// type, the broken ones alone, one request's headers and body, HAR of the same, and the bound on
// what is kept when a page makes three times that many requests. On a managed profile, a person's attached tab,
// a remote browser and a Grid's, through the control API, and through the CLI.

import { describe, expect, it } from 'vitest';
import { type AgentDriver, driversToRun, EVERY_DRIVER, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { runCli } from '../helpers/cli';
import { until } from '../helpers/waits';
import { fenceLinesIn, unfenced } from '../helpers/fence';

interface Entry {
  id: string;
  url: string;
  method: string;
  type: string;
  status?: number;
  mimeType?: string;
  failed?: true;
  errorText?: string;
  pending?: true;
}

/** The control API as the tests call it, and the tab's requests as a list. */
function calls(ctx: { readonly d: AgentDriver }) {
  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);
  const list = async (query = '') => {
    const res = await api<{ requests: Entry[]; kept: number; seen: number }>(
      'GET',
      `/network?targetId=${ctx.d.targetId}${query}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  return { api, list };
}

const path = (e: Entry) => new URL(e.url).pathname + new URL(e.url).search;

describe.each(driversToRun(EVERY_DRIVER))('the network of a tab on a %s profile', (_kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  const { api, list } = calls(ctx);

  it(
    'lists the JSON API, the missing image and the aborted fetch; reads one body; keeps the broken ones; writes HAR',
    { timeout: 60_000 },
    async () => {
      expect((await api('POST', '/navigate', { url: ctx.pages.url('/netlog'), targetId: ctx.d.targetId })).status).toBe(
        200,
      );
      await until(
        'the page to have its data and its aborted fetch',
        async () =>
          (await ctx.d.inPage<string>(
            'document.getElementById("out").textContent + (document.getElementById("out").dataset.aborted ?? "")',
          )) === 'got 3yes',
        10_000,
      );
      await until(
        'every request of the page to be settled',
        async () => {
          // Not Chromium's own ask for the site's icon: twice in clean CI runs (2026-11-30, once on
          // 150, once on 156, never in a local run) it stayed pending past this bound with every
          // request of the page settled; the page's requests are what this test reads.
          const pending = (await list()).requests.filter((r) => r.pending && path(r) !== '/favicon.ico');
          // Said if it times out: which request the log still waits on.
          if (pending.length > 0)
            throw new Error(`pending: ${pending.map((r) => `${r.method} ${path(r)}`).join(', ')}`);
          return true;
        },
        15_000,
      );
      const { requests } = await list();
      const by = (p: string, method = 'GET') => requests.find((r) => path(r) === p && r.method === method);
      expect(by('/netlog')).toMatchObject({ type: 'document', status: 200, mimeType: 'text/html' });
      expect(by('/api/data.json')).toMatchObject({
        type: 'fetch',
        status: 200,
        mimeType: 'application/json',
        initiator: expect.stringMatching(/^script http:\/\/127\.0\.0\.1:\d+\/netlog:\d+$/),
      });
      expect(by('/api/data.json?saved=1', 'POST')).toMatchObject({ type: 'fetch', status: 200 });
      expect(by('/missing.png')).toMatchObject({ type: 'image', status: 404 });
      expect(by('/api/slow')).toMatchObject({ type: 'fetch', failed: true, errorText: 'net::ERR_ABORTED' });

      // One request: both sides' headers and the body, as text.
      const data = await api('GET', `/network/${by('/api/data.json')!.id}?targetId=${ctx.d.targetId}`);
      expect(data.status, JSON.stringify(data.body)).toBe(200);
      expect(data.body).toMatchObject({ body: '{"items":[1,2,3],"ok":true}', bodyEncoding: 'text', bodyBytes: 27 });
      expect(data.body.responseHeaders).toContainEqual({ name: 'content-type', value: 'application/json' });
      expect(data.body.requestHeaders.length).toBeGreaterThan(0);
      // The headers as the network stack sent them (a cookie by its count only), not only the page's own.
      expect(data.body.requestHeaders.map((h: { name: string }) => h.name.toLowerCase())).toContain('host');
      const posted = await api(
        'GET',
        `/network/${by('/api/data.json?saved=1', 'POST')!.id}?targetId=${ctx.d.targetId}`,
      );
      expect(posted.body.postData).toBe('{"hello":"world"}');
      const aborted = await api('GET', `/network/${by('/api/slow')!.id}?targetId=${ctx.d.targetId}`);
      expect(aborted.body.bodyError).toBe('the request failed (net::ERR_ABORTED): there is no body');

      // Only what is broken; only fetches.
      expect((await list('&failed=1')).requests.map(path).sort()).toEqual(['/api/slow', '/missing.png']);
      expect((await list('&type=fetch')).requests.map(path).sort()).toEqual([
        '/api/data.json',
        '/api/data.json?saved=1',
        '/api/slow',
      ]);
      expect((await list('&status=4xx')).requests.map(path)).toEqual(['/missing.png']);

      // HAR 1.2 of the same requests.
      const har = (await api('GET', `/network?targetId=${ctx.d.targetId}&format=har`)).body;
      expect(har.log).toMatchObject({ version: '1.2', creator: { name: 'clawd-browser' } });
      expect(har.log.entries).toHaveLength(requests.length);
      const inHar = (p: string) => har.log.entries.find((e: any) => new URL(e.request.url).pathname === p);
      expect(inHar('/api/data.json').response).toMatchObject({
        status: 200,
        content: { mimeType: 'application/json' },
      });
      expect(inHar('/api/slow').response).toMatchObject({ status: 0, _error: 'net::ERR_ABORTED' });
      const image = har.log.entries.find((e: any) => e.request.url.endsWith('/missing.png'));
      expect(image).toMatchObject({
        request: { method: 'GET', httpVersion: expect.any(String), headers: expect.any(Array), queryString: [] },
        response: { status: 404, content: { mimeType: expect.any(String) } },
        timings: { send: 0, wait: expect.any(Number), receive: 0 },
      });
      const post = har.log.entries.find((e: any) => e.request.method === 'POST');
      expect(post.request.postData).toEqual({ mimeType: 'application/json', text: '{"hello":"world"}' });

      // Bad ids, said clearly.
      expect(await api('GET', `/network/n999999?targetId=${ctx.d.targetId}`)).toMatchObject({
        status: 404,
        body: { error: { code: 'request_unknown' } },
      });
      expect((await api('GET', `/network/x1?targetId=${ctx.d.targetId}`)).status).toBe(400);
      expect((await api('GET', `/network?targetId=${ctx.d.targetId}&status=600`)).status).toBe(400);

      // A new page starts a new list; all=1 keeps the earlier page's too.
      expect((await api('POST', '/navigate', { url: ctx.pages.url('/form'), targetId: ctx.d.targetId })).status).toBe(
        200,
      );
      const now = (await list()).requests.map(path);
      expect(now).toContain('/form');
      expect(now).not.toContain('/netlog');
      expect(now).not.toContain('/missing.png');
      expect((await list('&all=1')).requests.map(path)).toEqual(
        expect.arrayContaining(['/netlog', '/missing.png', '/form']),
      );
    },
  );
});

// The same on any driver; run where it costs least (a managed profile).
describe('the network of a tab, on the CLI and under a flood', () => {
  const ctx = useAgentDriver(managedDriver);
  const { api, list } = calls(ctx);

  it('prints the list and one request on the CLI', { timeout: 60_000 }, async () => {
    expect((await api('POST', '/navigate', { url: ctx.pages.url('/netlog'), targetId: ctx.d.targetId })).status).toBe(
      200,
    );
    await until('the aborted fetch', async () => (await list('&failed=1')).requests.length === 2, 10_000);
    const home = ['--home', ctx.d.server.home, '--profile', ctx.d.profile];
    const failed = await runCli(['network', '--failed', '--target', ctx.d.targetId, ...home]);
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(/^n\d+ GET 404 image http:\/\/127\.0\.0\.1:\d+\/missing\.png/m);
    expect(failed.stdout).toMatch(/^n\d+ GET failed net::ERR_ABORTED fetch http:\/\/127\.0\.0\.1:\d+\/api\/slow/m);
    const id = (await list('&type=fetch')).requests.find(
      (r) => r.method === 'GET' && r.url.endsWith('/api/data.json'),
    )!.id;
    const one = await runCli(['network', id, '--target', ctx.d.targetId, ...home]);
    expect(one.code, one.stderr).toBe(0);
    // All of it the page's and its server's: fenced.
    expect(fenceLinesIn(one.stdout)).toHaveLength(2);
    const detail = unfenced(one.stdout);
    expect(detail).toMatch(new RegExp(`^${id} GET 200 fetch .*/api/data.json`));
    expect(detail).toContain('< content-type: application/json');
    expect(detail.trim().endsWith('{"items":[1,2,3],"ok":true}')).toBe(true);
  });

  // Twice what is kept proves the ring; the 10,000-request memory figure is the bench's
  // (network-flood): a flood that size here would starve the other files' browsers on 2 cores.
  it('keeps the last 1,000 of a page that makes 2,000 requests', { timeout: 120_000 }, async () => {
    const before = (await list()).seen;
    expect((await api('POST', '/navigate', { url: ctx.pages.url('/netflood'), targetId: ctx.d.targetId })).status).toBe(
      200,
    );
    await until('2,000 requests', async () => (await ctx.d.inPage<string>('document.title')) === 'done', 90_000);
    // The page, then its 2,000 fetches (the tab's earlier requests counted before).
    await until('the last to be recorded', async () => (await list('&limit=1000')).seen >= before + 2_001, 10_000);
    const all = await list('&all=1&limit=1000');
    expect(all.kept).toBe(1_000);
    expect(all.requests).toHaveLength(1_000);
    expect(path(all.requests.at(-1)!)).toBe('/api/data.json?i=1999');
    // The oldest went: of the page's fetches, nothing kept from the first thousand or so.
    const fetched = all.requests
      .map((r) => new URL(r.url).searchParams.get('i'))
      .filter((i) => i !== null)
      .map(Number);
    expect(fetched.length).toBeGreaterThan(990);
    expect(Math.min(...fetched)).toBeGreaterThanOrEqual(990);
  });
});
