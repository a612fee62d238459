// A client of the control API (the CLI, a `clawd mcp` running for hours) sends nothing until the
// server proved it knows the token (and, for the person's commands, the person's key) for a nonce
// the client chose: a program holding the port is told nothing. After `clawd token --rotate` the
// server proves the new token; the client reads the home's token again and goes on — it never
// needs a restart.

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, updateConfig } from '../../relay/home/config-store';
import { loadKeys } from '../../relay/home/home-keys';
import { writeServeState } from '../../relay/home/serve-state';
import { keyProofSync } from '../../relay/http/key-proofs';
import { ControlClient } from '../../relay/operations/control-client';

/** What reached the server: each request's path and the credentials it carried. */
interface Seen {
  path: string;
  authorization?: string;
  person?: string;
}

/** A control API stand-in that proves what `knows` says it knows, and answers /tabs to the token it wants. */
async function standIn(home: string, knows: { token: () => string; person?: () => string }) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({
      path: url.pathname,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(typeof req.headers['x-clawd-person'] === 'string' ? { person: req.headers['x-clawd-person'] } : {}),
    });
    const port = (server.address() as AddressInfo).port;
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/proof') {
      const nonce = url.searchParams.get('nonce') ?? '';
      return json(200, {
        port,
        agent: keyProofSync(knows.token(), 'agent', port, nonce),
        person: keyProofSync(knows.person?.() ?? 'not-the-person-key-0123456789', 'person', port, nonce),
      });
    }
    if (url.pathname !== '/tabs') return json(200, {}); // the health check
    const ok = req.headers.authorization === `Bearer ${knows.token()}`;
    json(ok ? 200 : 401, ok ? { fine: true } : { error: { code: 'unauthorized', message: 'The token is wrong' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeServeState(home, { pid: process.pid, version: '0', controlUrl: url, relayUrl: url });
  return { seen, server, credentials: () => seen.filter((s) => s.authorization || s.person) };
}

describe('a control API client', () => {
  let home: string;
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.close();
    server = undefined;
    await rm(home, { recursive: true, force: true });
  });

  it('reads the home’s token again when the server proves another, and goes on with it', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-token-'));
    const old = (await loadConfig(home)).token;
    let current = old;
    const stand = await standIn(home, { token: () => current });
    server = stand.server;
    const client = await ControlClient.locate(home, {});
    expect(await client.call('GET', '/tabs')).toEqual({ fine: true });

    // Rotated behind the client's back: the home's config has the new token, the server proves it.
    current = (await updateConfig(home, (config) => ({ ...config, token: 'rotated-token-0123456789ab' }))).token;
    expect(await client.call('GET', '/tabs')).toEqual({ fine: true });
    expect(client.token).toBe(current);
    expect(stand.credentials().map((s) => s.authorization)).toEqual([`Bearer ${old}`, `Bearer ${current}`]);

    // A server that knows a token this home does not have is told nothing, once.
    current = 'another-token-0123456789ab';
    await expect(client.call('GET', '/tabs')).rejects.toMatchObject({
      code: 'not_running',
      message: expect.stringMatching(/could not prove it knows the token.*nothing was sent to it/),
    });
    expect(stand.credentials()).toHaveLength(2);
  });

  it('sends no token and no person’s key to a program on the port that cannot prove them', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-token-'));
    const { token } = await loadConfig(home);
    const keys = await loadKeys(home);
    // Knows nothing: answers /proof with its own guesses (what a squatter can do).
    const squatter = await standIn(home, { token: () => 'a-squatters-guess-0123456789' });
    server = squatter.server;
    const agent = await ControlClient.locate(home, {});
    await expect(agent.call('GET', '/tabs')).rejects.toMatchObject({ code: 'not_running' });
    const person = await ControlClient.locate(home, {}, { person: true });
    await expect(person.call('POST', '/token/rotate')).rejects.toMatchObject({ code: 'not_running' });
    expect(squatter.credentials()).toEqual([]);
    expect(JSON.stringify(squatter.seen)).not.toContain(token);
    expect(JSON.stringify(squatter.seen)).not.toContain(keys.person);
    squatter.server.close();

    // Knows the token but not the person's key: the agent's calls go, the person's key never does.
    const halfway = await standIn(home, { token: () => token });
    server = halfway.server;
    const again = await ControlClient.locate(home, {}, { person: true });
    await expect(again.call('GET', '/tabs')).rejects.toMatchObject({
      code: 'not_running',
      message: expect.stringContaining("the person's key"),
    });
    expect(JSON.stringify(halfway.seen)).not.toContain(keys.person);
    // With both, both go.
    halfway.server.close();
    const real = await standIn(home, { token: () => token, person: () => keys.person });
    server = real.server;
    const proven = await ControlClient.locate(home, {}, { person: true });
    expect(await proven.call('GET', '/tabs')).toEqual({ fine: true });
    expect(real.credentials()).toEqual([{ path: '/tabs', authorization: `Bearer ${token}`, person: keys.person }]);
  });
});
