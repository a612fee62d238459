import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { rawRequest, upgradeStatus } from '../helpers/http';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { PROTOCOL_VERSION } from '../../shared/protocol';

describe('the relay refuses what it must', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  beforeAll(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(1)]);
  });
  afterAll(async () => {
    await ext?.close();
    await t?.close();
  });

  /** After every refusal a well-behaved client is still served. */
  afterEach(async () => {
    const client = await CdpClient.connect(t.cdpWsUrl);
    expect((await client.send('Browser.getVersion')).product).toBe('Chrome/156.0.1.2');
    await client.close();
    expect(t.relay.switchboard.extensionConnected).toBe(true);
  });

  const ws = (path: string, query = `token=${'x'}`) => `ws://127.0.0.1:${t.port}${path}?${query}`;

  it('answers the health check without a token and without secrets', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await rawRequest(t.port, '/', { method, headers: { host: `127.0.0.1:${t.port}` } });
      expect(res.status).toBe(200);
      if (method === 'GET') {
        expect(res.json()).toEqual({
          ok: true,
          name: 'clawd-browser',
          version: expect.any(String),
          protocol: PROTOCOL_VERSION,
          extensionConnected: true,
        });
        expect(res.body).not.toContain(t.token);
      }
    }
  });

  it('refuses /json routes and /cdp without a token or with a wrong one (401)', async () => {
    for (const path of ['/json/version', '/json/list', '/json', '/extension/status']) {
      expect((await rawRequest(t.port, path, { headers: { host: `127.0.0.1:${t.port}` } })).status).toBe(401);
      const wrong = await rawRequest(t.port, path, {
        headers: { host: `127.0.0.1:${t.port}`, authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json().error.code).toBe('unauthorized');
    }
    expect(await upgradeStatus(`ws://127.0.0.1:${t.port}/cdp`)).toBe(401);
    expect(await upgradeStatus(ws('/cdp', 'token=wrong'))).toBe(401);
  });

  it('accepts the token as a Bearer header or a query parameter', async () => {
    const header = await rawRequest(t.port, '/json/list', {
      headers: { host: `127.0.0.1:${t.port}`, authorization: `Bearer ${t.token}` },
    });
    const query = await rawRequest(t.port, `/json/list?token=${t.token}`, { headers: { host: `localhost:${t.port}` } });
    expect(header.status).toBe(200);
    expect(query.status).toBe(200);
    expect(header.json()[0].id).toBe(fakeTab(1).targetInfo.targetId);
    expect(await upgradeStatus(`ws://127.0.0.1:${t.port}/cdp`, { authorization: `Bearer ${t.token}` })).toBe(101);
  });

  it('refuses a /cdp upgrade from a web page (403), even with the token', async () => {
    expect(await upgradeStatus(ws('/cdp', `token=${t.token}`), {}, 'https://evil.example')).toBe(403);
    expect(await upgradeStatus(ws('/cdp', `token=${t.token}`), {}, 'null')).toBe(403);
  });

  it('refuses /extension from any origin but the pinned extension (403)', async () => {
    for (const origin of [
      'https://evil.example',
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
      'http://127.0.0.1',
    ]) {
      expect(await upgradeStatus(ws('/extension', `token=${t.token}`), {}, origin)).toBe(403);
    }
    expect(await upgradeStatus(ws('/extension', `token=${t.token}`))).toBe(403);
    // The real extension is still the connected one.
    expect(t.relay.switchboard.extensionConnected).toBe(true);
  });

  it("takes neither the agent's token nor a forged extension Origin for the extension key", async () => {
    // What an agent holds (the token) and any program can send (our extension's Origin header).
    expect(await upgradeStatus(ws('/extension', `token=${t.token}`), {}, EXTENSION_ORIGIN)).toBe(400); // no nonce
    const impostor = await FakeExtension.open(t.port, t.token);
    expect(await impostor.relayProved()).toBe(false); // the relay's proof says nothing about the token
    await impostor.hello([fakeTab(9)]).catch(() => {});
    expect(await impostor.closed).toEqual({ code: 4003, reason: expect.stringMatching(/not paired.*clawd pair/) });
    // A hello with no proof at all: the same.
    const bare = await FakeExtension.open(t.port, t.token);
    await bare.challenge;
    bare.send({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      extensionVersion: 'x',
      browser: { product: 'Chrome/1', userAgent: 'x', protocolVersion: '1.3' },
      tabs: [fakeTab(9)],
    });
    expect((await bare.closed).code).toBe(4003);
    // The paired extension was never pushed aside, and no tab of theirs was announced.
    expect(ext.ws.readyState).toBe(ext.ws.OPEN);
    expect(t.relay.switchboard.tabs().map((tab) => tab.tabId)).toEqual([1]);
  });

  it('refuses a Host that is not loopback with our port (DNS rebinding), for HTTP and upgrades', async () => {
    for (const host of ['evil.example', `evil.example:${t.port}`, '127.0.0.1:1', `127.0.0.1.nip.io:${t.port}`]) {
      const res = await rawRequest(t.port, `/json/version?token=${t.token}`, { headers: { host } });
      expect(res.status).toBe(403);
      expect(res.json().error.code).toBe('host_not_allowed');
      expect((await rawRequest(t.port, '/', { headers: { host } })).status).toBe(403);
      expect(await upgradeStatus(ws('/cdp', `token=${t.token}`), { host })).toBe(403);
    }
  });

  it('refuses a mutating request from a web page (403)', async () => {
    const res = await rawRequest(
      t.port,
      `/json/new?url=${encodeURIComponent('https://example.test/')}&token=${t.token}`,
      {
        method: 'PUT',
        headers: { host: `127.0.0.1:${t.port}`, origin: 'https://evil.example' },
      },
    );
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBe('origin_not_allowed');
    expect(ext.requests.some((r) => r.op === 'createTab')).toBe(false);
  });

  it('accepts the extension origin on HTTP routes (the options page checks the token that way)', async () => {
    const res = await rawRequest(t.port, '/extension/status', {
      headers: { host: `127.0.0.1:${t.port}`, origin: EXTENSION_ORIGIN, authorization: `Bearer ${t.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ connected: true, attachedTabs: 1, browser: 'Chrome/156.0.1.2' });
  });

  it('answers malformed JSON on /cdp with a CDP error and keeps serving that client', async () => {
    const client = await CdpClient.connect(t.cdpWsUrl);
    client.sendRaw('{ this is not json');
    const parseError = await client.waitForNext((m) => !!m.error);
    expect(parseError.error!.code).toBe(-32700);
    client.sendRaw(JSON.stringify({ id: 'seven', method: 'Browser.getVersion' }));
    expect((await client.waitForNext((m) => !!m.error)).error!.code).toBe(-32600);
    client.sendRaw(JSON.stringify({ id: 8, params: {} }));
    const missingMethod = await client.waitForNext((m) => m.id === 8);
    expect(missingMethod.error!.code).toBe(-32600);
    client.sendRaw(JSON.stringify([1, 2, 3]));
    expect((await client.waitForNext((m) => !!m.error)).error!.code).toBe(-32600);
    expect((await client.send('Target.getBrowserContexts')).browserContextIds).toEqual([]);
    await client.close();
  });

  it('closes a /cdp client that sends an oversized frame (1009) and serves others', async () => {
    const small = await startTestRelay();
    try {
      const client = await CdpClient.connect(small.cdpWsUrl);
      client.sendRaw(
        JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: 'x'.repeat(65 * 1024 * 1024) } }),
      );
      expect((await client.closed).code).toBe(1009);
      const other = await CdpClient.connect(small.cdpWsUrl);
      expect((await other.send('Target.getBrowserContexts')).browserContextIds).toEqual([]);
      await other.close();
    } finally {
      await small.close();
    }
  });
});
