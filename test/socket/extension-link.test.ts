import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE, PROTOCOL_VERSION } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { quiet, until } from '../helpers/waits';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';

describe('the /extension socket', () => {
  let t: TestRelay;
  afterEach(() => t?.close());

  it('takes the browser version and tabs from hello and serves them on /json', async () => {
    t = await startTestRelay();
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [
      fakeTab(7, { title: 'Seven', url: 'https://seven.test/' }),
    ]);
    expect(ext.welcome).toMatchObject({
      type: 'welcome',
      protocol: PROTOCOL_VERSION,
      sessions: [{ tabId: 7, sessionId: expect.stringMatching(/^[0-9A-F]{32}$/) }],
    });

    for (const path of ['/json/version', '/json/version/']) {
      const version = await (await fetch(`${t.relay.url}${path}?token=${t.token}`)).json();
      expect(version).toMatchObject({
        Browser: 'Chrome/156.0.1.2',
        'Protocol-Version': '1.3',
        'User-Agent': 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
      });
      expect(version.webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${t.port}/cdp?token=${t.token}`);
    }
    const list = await (await fetch(`${t.relay.url}/json/list?token=${t.token}`)).json();
    expect(list).toEqual([
      {
        description: '',
        devtoolsFrontendUrl: '',
        id: fakeTab(7).targetInfo.targetId,
        title: 'Seven',
        type: 'page',
        url: 'https://seven.test/',
        webSocketDebuggerUrl: `ws://127.0.0.1:${t.port}/devtools/page/${fakeTab(7).targetInfo.targetId}?token=${t.token}`,
      },
    ]);
    const status = await (await fetch(`${t.relay.url}/extension/status?token=${t.token}`)).json();
    expect(status).toEqual({
      connected: true,
      connectedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      extensionVersion: '0.0.0-test',
      browser: 'Chrome/156.0.1.2',
      attachedTabs: 1,
      clients: 0,
    });
    await ext.close();
  });

  it('closes with 1008 on a frame before hello', async () => {
    t = await startTestRelay();
    const ext = await FakeExtension.open(t.port, t.extensionKey);
    ext.send({ type: 'ping' });
    expect(await ext.closed).toEqual({ code: CLOSE.helloRequired, reason: 'expected hello, got ping' });
  });

  it('closes with 1007 on malformed JSON, an unknown frame type, or a frame of the wrong shape', async () => {
    t = await startTestRelay();
    for (const bad of [
      '{not json',
      JSON.stringify({ type: 'teleport' }),
      JSON.stringify({ type: 'event', tabId: 'one', method: 'X.y' }),
      JSON.stringify([1]),
    ]) {
      const ext = await FakeExtension.connect(t.port, t.extensionKey);
      ext.sendRaw(bad);
      const closed = await ext.closed;
      expect(closed.code).toBe(CLOSE.invalidFrame);
      expect(closed.reason.length).toBeGreaterThan(0);
    }
    // The relay is still up and takes the next extension.
    const ok = await FakeExtension.connect(t.port, t.extensionKey);
    expect(t.relay.switchboard.extensionConnected).toBe(true);
    await ok.close();
  });

  it('closes with 4001 when the hello speaks another protocol version', async () => {
    t = await startTestRelay();
    const ext = await FakeExtension.open(t.port, t.extensionKey);
    ext.send({
      type: 'hello',
      protocol: 99,
      extensionVersion: '9',
      browser: { product: 'Chrome/1', userAgent: 'x', protocolVersion: '1.3' },
      tabs: [],
    });
    const closed = await ext.closed;
    expect(closed.code).toBe(CLOSE.versionMismatch);
    expect(closed.reason).toBe(`version mismatch: relay speaks protocol ${PROTOCOL_VERSION}, extension 99`);
  });

  it('closes a socket that never says hello', async () => {
    t = await startTestRelay({ timeouts: { helloMs: 200 } });
    const ext = await FakeExtension.open(t.port, t.extensionKey);
    expect((await ext.closed).code).toBe(CLOSE.helloRequired);
  });

  it('answers the keepalive ping with pong', async () => {
    t = await startTestRelay();
    const ext = await FakeExtension.connect(t.port, t.extensionKey);
    const pong = ext.next((f) => f.type === 'pong');
    ext.send({ type: 'ping' });
    expect(await pong).toEqual({ type: 'pong' });
    await ext.close();
  });

  it('lets a reconnecting extension replace its stale socket', async () => {
    t = await startTestRelay();
    const old = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(1)]);
    const fresh = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(1)]);
    expect((await old.closed).code).toBe(CLOSE.replaced);
    expect(t.relay.switchboard.tabs().map((tab) => tab.tabId)).toEqual([1]);
    const client = await CdpClient.connect(t.cdpWsUrl);
    const { sessionId } = await client.send('Target.attachToTarget', {
      targetId: fakeTab(1).targetInfo.targetId,
      flatten: true,
    });
    fresh.handler = () => ({ result: { type: 'number', value: 3 } });
    expect((await client.send('Runtime.evaluate', { expression: '1+2' }, sessionId)).result.value).toBe(3);
    await client.close();
    await fresh.close();
  });

  it('keeps tabs and their session ids across a reconnect, and detaches them only after the grace period', async () => {
    t = await startTestRelay({ timeouts: { tabGraceMs: 400 } });
    let ext = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(1)]);
    const client = await CdpClient.connect(t.cdpWsUrl);
    await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    const { params } = await client.waitForEvent('Target.attachedToTarget');
    await ext.close();

    // Back within the grace period, announcing the tab with the session id it was given.
    ext = await FakeExtension.connect(t.port, t.extensionKey, [{ ...fakeTab(1), sessionId: params.sessionId }]);
    await quiet(600);
    expect(client.events.some((e) => e.method === 'Target.detachedFromTarget')).toBe(false);
    ext.handler = () => ({ ok: true });
    expect(await client.send('Page.bringToFront', {}, params.sessionId)).toEqual({ ok: true });

    // Gone for longer than the grace period: the client sees the tab detach.
    await ext.close();
    const detached = await client.waitForEvent('Target.detachedFromTarget', undefined, 3_000);
    expect(detached.params).toEqual({ sessionId: params.sessionId, targetId: fakeTab(1).targetInfo.targetId });
    await until('the tab to leave the list', () => t.relay.switchboard.tabs().length === 0);
    await client.close();
  });

  it('adopts the session ids an extension remembers after a relay restart', async () => {
    t = await startTestRelay();
    const ext = await FakeExtension.connect(t.port, t.extensionKey, [
      { ...fakeTab(3), sessionId: 'REMEMBERED-SESSION' },
    ]);
    const client = await CdpClient.connect(t.cdpWsUrl);
    await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    expect((await client.waitForEvent('Target.attachedToTarget')).params.sessionId).toBe('REMEMBERED-SESSION');
    // An adopted tab may still carry what the previous relay's clients set: it gets a fresh session.
    await until('the reset', () => ext.requests.some((r) => r.op === 'resetTab' && r.tabId === 3));
    await client.close();
    await ext.close();
  });
});
