import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyProofSync } from '../../relay/http/key-proofs';
import { rawRequest } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';

describe('the control API', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers the bare health check without a token, and the status with it', async () => {
    t = await startTestServer();
    const health = await t.api('GET', '/', { token: null });
    // Which home it serves, so a client of another home never takes it for its own.
    expect(health).toEqual({
      status: 200,
      body: { ok: true, name: 'clawd-browser', version: expect.any(String), home: t.home },
    });
    const status = await t.api('GET', '/');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      enabled: true,
      profile: 'clawd',
      driver: 'managed',
      running: false,
      cdpReady: false,
      pid: null,
      cdpPort: expect.any(Number),
      color: '#FF4500',
    });
    expect(status.body.userDataDir).toBe(path.join(t.home, 'profiles', 'clawd', 'user-data'));
    const chrome = await t.api('GET', '/', { profile: 'chrome' });
    expect(chrome.body).toMatchObject({
      driver: 'extension',
      running: false,
      attachedTabs: 0,
      cdpUrl: t.server.relay.url,
      hint: expect.stringContaining('extension is not connected'),
    });
  });

  it('refuses every other route without the token (401) and a cross-site POST (403)', async () => {
    t = await startTestServer();
    for (const [method, route] of [
      ['GET', '/tabs'],
      ['POST', '/start'],
      ['GET', '/profiles'],
      ['POST', '/profiles/create'],
      ['DELETE', '/tabs/x'],
      ['POST', '/mcp'],
    ] as const) {
      const res = await t.api(method, route, { token: null });
      expect(res.status, `${method} ${route}`).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const port = new URL(t.controlUrl).port;
    const evil = await rawRequest(Number(port), '/start', {
      method: 'POST',
      headers: { host: `127.0.0.1:${port}`, origin: 'https://evil.example', authorization: `Bearer ${t.token}` },
    });
    expect(evil.status).toBe(403);
    const evilMcp = await rawRequest(Number(port), '/mcp', {
      method: 'POST',
      headers: { host: `127.0.0.1:${port}`, origin: 'https://evil.example', authorization: `Bearer ${t.token}` },
    });
    expect(evilMcp.status).toBe(403);
    const crossSite = await rawRequest(Number(port), '/profiles/create', {
      method: 'POST',
      headers: { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', authorization: `Bearer ${t.token}` },
    });
    expect(crossSite.status).toBe(403);
    expect((await rawRequest(Number(port), '/', { headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await t.api('GET', '/')).body.running).toBe(false); // nothing was started
  });

  it("keeps the person's routes from the agent's token: profiles, pairing, rotation, the answering view, loosening", async () => {
    t = await startTestServer();
    // Tightening is the token's: a site blocked everywhere (lifting it is tried below).
    expect((await t.api('POST', '/policy', { body: { global: true, block: ['https://bank.test'] } })).status).toBe(200);
    const tokenBefore = t.token;
    const configBefore = readFileSync(path.join(t.home, 'config.json'), 'utf8');
    for (const [method, route, body] of [
      ['POST', '/profiles/create', { name: 'mine' }],
      ['DELETE', '/profiles/clawd', undefined],
      ['POST', '/reset-profile', undefined],
      ['POST', '/pair/codes', undefined],
      ['POST', '/token/rotate', undefined],
      ['POST', '/view/codes', undefined],
      ['POST', '/policy', { ask: [] }], // the person's browser is asked before storage by default
      ['POST', '/policy', { global: true, block: [] }],
    ] as const) {
      const res = await t.api(method, route, { ...(body ? { body } : {}), profile: 'chrome' });
      expect(res.status, `${method} ${route}`).toBe(403);
      expect(res.body.error.code, `${method} ${route}`).toBe('person_only');
      // A person's key that is wrong is the token alone.
      const wrong = await t.api(method, route, {
        ...(body ? { body } : {}),
        profile: 'chrome',
        headers: { 'X-Clawd-Person': t.token },
      });
      expect(wrong.status, `${method} ${route} with the token as the person's key`).toBe(403);
    }
    expect(t.server.token).toBe(tokenBefore);
    expect(readFileSync(path.join(t.home, 'config.json'), 'utf8')).toBe(configBefore);
    // Tightening is the token's: an ask added.
    expect((await t.api('POST', '/policy', { profile: 'chrome', body: { ask: ['storage', 'submit'] } })).status).toBe(
      200,
    );
    // The person's terminal, with no browser of theirs connected, is taken at its word (and told so).
    const res = await fetch(`${t.controlUrl}/policy?profile=chrome`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.token}`,
        'X-Clawd-Person': t.personKey,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ ask: [] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-clawd-note')).toMatch(/terminal's word was taken/);
  });

  it('proves the token and the person’s key for the nonce a client chose, on its own port', async () => {
    t = await startTestServer();
    const port = Number(new URL(t.controlUrl).port);
    const nonce = 'a-nonce-of-the-client-0123';
    const proof = await t.api('GET', `/proof?nonce=${nonce}`, { token: null });
    expect(proof.status).toBe(200);
    expect(proof.body).toEqual({
      port,
      agent: keyProofSync(t.token, 'agent', port, nonce),
      person: keyProofSync(t.personKey, 'person', port, nonce),
    });
    expect(JSON.stringify(proof.body)).not.toContain(t.token);
    expect(JSON.stringify(proof.body)).not.toContain(t.personKey);
    expect((await t.api('GET', '/proof?nonce=short', { token: null })).status).toBe(400);
  });

  it('creates a profile on the first free port, keeps it across a restart, and deletes only its folder', async () => {
    t = await startTestServer();
    const clawdPort = (await t.api('GET', '/')).body.cdpPort as number;
    const created = await t.api('POST', '/profiles/create', { person: true, body: { name: 'work' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      profile: 'work',
      driver: 'managed',
      cdpPort: clawdPort + 1,
      color: '#0066CC',
    });
    expect((await t.api('POST', '/profiles/create', { person: true, body: { name: 'work' } })).status).toBe(409);

    const home = t.home;
    await t.stop();
    t = await startTestServer({ home });
    const profiles = (await t.api('GET', '/profiles')).body.profiles as Array<{ profile: string; cdpPort: number }>;
    expect(profiles.find((p) => p.profile === 'work')?.cdpPort).toBe(clawdPort + 1);

    // A neighbour's folder and a file beside the profiles survive the delete.
    const workDir = path.join(home, 'profiles', 'work');
    mkdirSync(path.join(workDir, 'user-data'), { recursive: true });
    writeFileSync(path.join(workDir, 'user-data', 'x'), 'x');
    mkdirSync(path.join(home, 'profiles', 'clawd', 'user-data'), { recursive: true });
    writeFileSync(path.join(home, 'profiles', 'keep.txt'), 'keep');
    const deleted = await t.api('DELETE', '/profiles/work', { person: true });
    expect(deleted).toEqual({ status: 200, body: { deleted: 'work', removed: workDir } });
    expect(existsSync(workDir)).toBe(false);
    expect(existsSync(path.join(home, 'profiles', 'clawd', 'user-data'))).toBe(true);
    expect(readFileSync(path.join(home, 'profiles', 'keep.txt'), 'utf8')).toBe('keep');
    expect((await t.api('GET', '/profiles')).body.profiles.map((p: { profile: string }) => p.profile)).toEqual([
      'clawd',
      'chrome',
    ]);
    expect((await t.api('DELETE', '/profiles/work', { person: true })).status).toBe(404);
  });

  it.each([['../x'], ['A'], ['-x'], ['a'.repeat(65)], ['']])(
    'refuses the profile name %j with 400 naming the rule',
    async (name) => {
      t = await startTestServer();
      const res = await t.api('POST', '/profiles/create', { person: true, body: { name } });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_profile',
        message: expect.stringContaining(
          'use lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters',
        ),
      });
    },
  );

  it('refuses bad bodies, unknown profiles, and tabs of a stopped browser (browser.autoStart off), each with a clear error', async () => {
    t = await startTestServer({ autoStart: false });
    expect((await t.api('POST', '/tabs/open', { body: '{nope' })).body.error.code).toBe('bad_request');
    expect(await t.api('GET', '/tabs', { profile: 'nope' })).toMatchObject({
      status: 404,
      body: {
        error: { code: 'profile_not_found', message: expect.stringContaining('the profiles are clawd, chrome') },
      },
    });
    expect(await t.api('GET', '/tabs')).toMatchObject({
      status: 409,
      body: {
        error: {
          code: 'not_running',
          message: expect.stringContaining(
            'browser.autoStart is false: start it first (POST /start, clawd start --profile clawd)',
          ),
        },
      },
    });
    expect(
      (await t.api('POST', '/profiles/create', { person: true, body: { name: 'r', cdpUrl: 'ftp://x' } })).status,
    ).toBe(400);
    const remote = await t.api('POST', '/profiles/create', {
      person: true,
      body: { name: 'remote', cdpUrl: 'http://10.255.255.1:9222' },
    });
    expect(remote.body).toMatchObject({ driver: 'remote', cdpUrl: 'http://10.255.255.1:9222', running: false });
    const start = await t.api('POST', '/start', { profile: 'remote' });
    expect(start).toMatchObject({ status: 409, body: { error: { code: 'attach_only' } } });
    expect((await t.api('DELETE', '/profiles/clawd', { person: true })).body.error.message).toMatch(/default profile/);
  });

  it('answers 503 "Browser disabled in settings" when the browser is disabled', async () => {
    t = await startTestServer();
    const home = t.home;
    await t.stop();
    const file = path.join(home, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.browser.enabled = false;
    writeFileSync(file, JSON.stringify(config));
    t = await startTestServer({ home });
    for (const route of ['/tabs', '/profiles']) {
      const res = await t.api('GET', route);
      expect(res).toEqual({
        status: 503,
        body: { error: { code: 'browser_disabled', message: expect.stringMatching(/^Browser disabled in settings/) } },
      });
    }
  });

  it("reports a failed launch with the tail of the browser's stderr and a hint", async () => {
    t = await startTestServer();
    const home = t.home;
    await t.stop();
    // A stand-in browser that fails the way Chromium does as root without --no-sandbox.
    const fake = path.join(path.dirname(home), 'fake-chrome');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "[1:1:ERROR:zygote_host_impl_linux.cc(100)] Running as root without --no-sandbox is not supported." >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const file = path.join(home, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.browser.executablePath = fake;
    writeFileSync(file, JSON.stringify(config));
    t = await startTestServer({ home });
    const start = await t.api('POST', '/start');
    expect(start.status).toBe(500);
    expect(start.body.error.code).toBe('launch_failed');
    expect(start.body.error.message).toMatch(
      /^could not start clawd: Chromium exited \(1\) before it answered over its pipe\. Chromium needs --no-sandbox here: set "noSandbox": true/,
    );
    expect(start.body.error.message).toContain(
      'Chromium said:\n[1:1:ERROR:zygote_host_impl_linux.cc(100)] Running as root without --no-sandbox is not supported.',
    );
    expect((await t.api('GET', '/')).body.running).toBe(false);
    const cli = await t.cli(['start']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /^starting the browser …\nclawd: could not start clawd: Chromium exited \(1\) before it answered over its pipe\. Chromium needs --no-sandbox/,
    );
  });

  it('creates and deletes profiles through the CLI', async () => {
    t = await startTestServer();
    const created = await t.cli(['create-profile', '--name', 'work', '--color', '#123abc']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created work\nwork \(managed\): not running/);
    expect(created.stdout).toContain('color      #123ABC');
    const duplicate = await t.cli(['create-profile', '--name', 'work']);
    expect(duplicate).toMatchObject({ code: 1, stderr: 'clawd: a profile named work already exists\n' });
    const bad = await t.cli(['create-profile', '--name', 'A']);
    expect(bad.stderr).toMatch(/^clawd: invalid profile name "A": use lowercase letters/);
    expect((await t.cli(['profiles'])).stdout).toMatch(/^\* clawd .*\n {2}chrome .*\n {2}work {13}managed {3}stopped/);
    expect((await t.cli(['delete-profile', '--name', 'work'])).stdout).toMatch(/^deleted work/);
    expect((await t.cli(['delete-profile'])).stderr).toBe(
      'clawd: delete-profile needs --name NAME. See clawd delete-profile --help\n',
    );
  });

  it('refuses to start on a port another program holds, naming it, and reset-profile leaves that program alone', async () => {
    t = await startTestServer();
    const port = (await t.api('GET', '/')).body.cdpPort as number;
    const squatter = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const start = await t.api('POST', '/start');
      expect(start.status).toBe(500);
      expect(start.body.error).toEqual({
        code: 'port_in_use',
        message: expect.stringMatching(
          new RegExp(`^CDP port ${port} of profile clawd is in use by another program \\(pid ${process.pid}\\)`),
        ),
      });
      const reset = await t.api('POST', '/reset-profile', { person: true });
      expect(reset.body).toEqual({
        profile: 'clawd',
        stopped: [],
        portFree: false,
        note: `CDP port ${port} is held by another program (pid ${process.pid}); clawd left it alone`,
      });
      expect(squatter.listening).toBe(true);
    } finally {
      squatter.close();
    }
  });
});
