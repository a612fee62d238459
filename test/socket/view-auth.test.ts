// Who may open the live view: the page and its code exchange are open; its tab list, socket and
// /view/events need the token or the view session (a cookie got once for a one-time code); only
// the control API's own origin is let in, and only on those routes. The token never shows in a
// link, a page or the server's log.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../relay/log';
import { rawRequest, upgradeStatus } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';

describe('live view access', () => {
  let t: TestServer;
  let port: number;
  const logged: string[] = [];
  const self = () => `http://127.0.0.1:${port}`;
  const host = () => `127.0.0.1:${port}`;

  /** A view session cookie, got the way the page gets it. */
  async function signIn(): Promise<string> {
    const { code } = (await t.api('POST', '/view/codes', { person: true })).body as { code: string };
    const res = await rawRequest(port, '/view/login', {
      method: 'POST',
      headers: { host: host(), origin: self(), 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(res.status).toBe(200);
    return String(res.headers['set-cookie']).split(';')[0]!;
  }

  beforeAll(async () => {
    t = await startTestServer({ log: createLogger('debug', (line) => logged.push(line)) });
    port = Number(new URL(t.controlUrl).port);
  });
  afterAll(async () => t?.close());

  it('serves the page to anyone on loopback, with a policy that keeps it self-contained and unframed', async () => {
    const page = await rawRequest(port, '/view', { headers: { host: host() } });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const script = await rawRequest(port, '/view/app.js', { headers: { host: host() } });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(page.body + script.body).not.toContain(t.token);
    expect((await rawRequest(port, '/view', { headers: { host: `evil.example:${port}` } })).status).toBe(403);
  });

  it('trades a one-time code for an HttpOnly, SameSite=Strict cookie, once', async () => {
    expect((await t.api('POST', '/view/codes', { token: null })).status).toBe(401);
    // The agent's token alone does not open a view that answers and acts: that is `clawd view`, the person's.
    const agents = await t.api('POST', '/view/codes');
    expect(agents.status).toBe(403);
    expect(agents.body.error.code).toBe('person_only');
    const { code, url } = (await t.api('POST', '/view/codes', { person: true })).body as { code: string; url: string };
    expect(url).toBe(`${self()}/view#code=${code}`);
    expect(url).not.toContain(t.token);
    const login = (origin: string) =>
      rawRequest(port, '/view/login', {
        method: 'POST',
        headers: { host: host(), origin, 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    expect((await login('https://evil.example')).status).toBe(403); // and the code is not spent by it
    const first = await login(self());
    expect(first.status).toBe(200);
    // Named after this server's port: browsers send a host's cookies to every port of it.
    expect(String(first.headers['set-cookie'])).toMatch(
      new RegExp(`^clawd_view_${port}=[\\w-]+; HttpOnly; SameSite=Strict; Path=/view; Max-Age=\\d+$`),
    );
    const again = await login(self());
    expect(again.status).toBe(401);
    expect(again.json().error.message).toContain('clawd view');
  });

  it("lets only a view from the person's own link answer the questions agents ask, never a hand-over's link or the token", async () => {
    const answer = (headers: Record<string, string>) =>
      rawRequest(port, '/view/api/answer', {
        method: 'POST',
        headers: { host: host(), origin: self(), 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: 'q-none', allow: true }),
      });
    // The token (an agent's as much as the person's) does not answer.
    const withToken = await answer({ authorization: `Bearer ${t.token}` });
    expect(withToken.status).toBe(401);
    expect(withToken.json().error.message).toContain('a hand-over');
    // `clawd view`'s link: it may (there is no such question here, so nothing was answered).
    // (A hand-over's link may not: test/unit/view-auth.test.ts.)
    const cookie = await signIn();
    expect((await rawRequest(port, '/view/api/questions', { headers: { host: host(), cookie } })).json()).toEqual({
      questions: [],
      mayAnswer: true,
    });
    const answered = await answer({ cookie });
    expect(answered.status).toBe(200);
    expect(answered.json()).toEqual({ answered: false });
  });

  it('opens the tab list, events and the socket to the view session or the token, and to no one else', async () => {
    const cookie = await signIn();
    const asView = { host: host(), origin: self(), cookie };
    expect((await rawRequest(port, '/view/api/tabs', { headers: asView })).status).toBe(200);
    expect((await rawRequest(port, '/view/api/tabs', { headers: { host: host(), origin: self() } })).status).toBe(401);
    expect(
      (await rawRequest(port, '/view/api/tabs', { headers: { host: host(), cookie: `clawd_view_${port}=forged` } }))
        .status,
    ).toBe(401);
    expect(
      (await rawRequest(port, '/view/api/tabs', { headers: { ...asView, origin: 'https://evil.example' } })).status,
    ).toBe(403);

    // The view reads events at /view/events (where its cookie is sent); /events is the token's.
    expect((await rawRequest(port, '/view/events', { headers: asView, headersOnly: true })).status).toBe(200);
    expect((await rawRequest(port, '/view/events', { headers: { host: host() }, headersOnly: true })).status).toBe(401);
    expect((await rawRequest(port, '/events', { headers: asView, headersOnly: true })).status).toBe(403); // a web origin
    expect(
      (
        await rawRequest(port, '/events', {
          headers: { host: host(), authorization: `Bearer ${t.token}`, origin: 'https://evil.example' },
          headersOnly: true,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await rawRequest(port, '/events', {
          headers: { host: host(), authorization: `Bearer ${t.token}` },
          headersOnly: true,
        })
      ).status,
    ).toBe(200);

    const socket = `ws://${host()}/view/ws`;
    expect(await upgradeStatus(socket)).toBe(401);
    expect(await upgradeStatus(socket, { cookie: `clawd_view_${port}=forged` }, self())).toBe(401);
    expect(await upgradeStatus(socket, { cookie }, 'https://evil.example')).toBe(403);
    expect(await upgradeStatus(socket, { cookie, host: `evil.example:${port}` }, self())).toBe(403); // DNS rebinding
    expect(await upgradeStatus(socket, { cookie }, self())).toBe(101);
    expect(await upgradeStatus(socket, { authorization: `Bearer ${t.token}` })).toBe(101);
    expect(await upgradeStatus(`ws://${host()}/elsewhere`, { cookie }, self())).toBe(404);
  });

  it('lets the view origin in on its own routes only, and the view session opens nothing else', async () => {
    const cookie = await signIn();
    const start = await rawRequest(port, '/start', {
      method: 'POST',
      headers: { host: host(), origin: self(), authorization: `Bearer ${t.token}` },
    });
    expect(start.status).toBe(403);
    expect((await rawRequest(port, '/tabs', { headers: { host: host(), cookie } })).status).toBe(401);
    expect(
      (await rawRequest(port, '/view/codes', { method: 'POST', headers: { host: host(), origin: self(), cookie } }))
        .status,
    ).toBe(403);
  });

  it('keeps the token and the view session out of the log, `clawd view` included', async () => {
    const printed = await t.cli(['view']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/view#code=[\w-]+$/);
    expect(printed.stdout + printed.stderr).not.toContain(t.token);
    const cookie = await signIn();
    await rawRequest(port, '/view/api/tabs', { headers: { host: host(), cookie } });
    expect(logged.length).toBeGreaterThan(0);
    const log = logged.join('\n');
    expect(log).not.toContain(t.token);
    expect(log).not.toContain(cookie.split('=')[1]!);
  });
});
