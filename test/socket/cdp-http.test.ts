// The HTTP face of a CDP endpoint, against a server that is there but slow and a port where
// nothing listens: a slow browser is busy (command_timeout), not gone (not_running).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpHttp } from '../../relay/browser/cdp-http';

let slow: http.Server;
let base = '';
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  slow = http.createServer((_req, res) => void held.push(res)); // answers nothing
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  slow.closeAllConnections();
  await new Promise((resolve) => slow.close(resolve));
});

describe('CdpHttp bounds', () => {
  it('a browser that does not answer in time is busy, with the call and the bound named', async () => {
    const cdp = new CdpHttp(base, {}, 100, 300);
    await expect(cdp.version()).rejects.toMatchObject({
      code: 'command_timeout',
      message: expect.stringContaining('did not answer GET /json/version within 0.1 s'),
    });
    const started = Date.now();
    await expect(cdp.open('https://example.com/?q=1')).rejects.toMatchObject({
      code: 'command_timeout',
      message: expect.stringMatching(/did not answer PUT \/json\/new within 0\.3 s \(it is running, but busy\)$/),
    });
    // Tab calls wait their own, longer bound.
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('a port where nothing listens is not running', async () => {
    // A port that was just free: listened on, then closed.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const cdp = new CdpHttp(`http://127.0.0.1:${port}`, {}, 1_000);
    await expect(cdp.list()).rejects.toMatchObject({
      code: 'not_running',
      message: expect.stringContaining('nothing answers CDP at'),
    });
  });
});
