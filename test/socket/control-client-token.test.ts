// A long-lived client of the control API (a `clawd mcp` running for hours) presents the token it
// read at start; after `clawd token --rotate` the server answers 401, and the client reads the
// home's token again and repeats the call once — it never needs a restart.

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, updateConfig } from '../../relay/home/config-store';
import { writeServeState } from '../../relay/home/serve-state';
import { ControlClient } from '../../relay/operations/control-client';
import '../../relay/profiles/kinds'; // the profile kinds, known to config parsing

describe('a control API client after the token was rotated', () => {
  let home: string;
  let server: http.Server;
  afterEach(async () => {
    server?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('reads the home’s token again on 401 and repeats the call once', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-token-'));
    const old = (await loadConfig(home)).token;
    let current = old;
    const seen: string[] = [];
    server = http.createServer((req, res) => {
      if (req.url !== '/tabs') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); // the health check
      seen.push(req.headers.authorization ?? '');
      const ok = req.headers.authorization === `Bearer ${current}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { fine: true } : { error: { code: 'unauthorized', message: 'The token is wrong' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await writeServeState(home, { pid: process.pid, version: '0', controlUrl: url, relayUrl: url });
    const client = await ControlClient.locate(home, {});
    expect(await client.call('GET', '/tabs')).toEqual({ fine: true });

    // Rotated behind the client's back: the home's config has the new token, the server wants it.
    current = (await updateConfig(home, (config) => ({ ...config, token: 'rotated-token-0123456789ab' }))).token;
    expect(await client.call('GET', '/tabs')).toEqual({ fine: true });
    expect(client.token).toBe(current);
    expect(seen).toEqual([`Bearer ${old}`, `Bearer ${old}`, `Bearer ${current}`]);

    // A token that is wrong for good is said once, not tried in a loop.
    current = 'another-token-0123456789ab';
    await expect(client.call('GET', '/tabs')).rejects.toMatchObject({ code: 'unauthorized' });
    expect(seen).toHaveLength(4);
  });
});
