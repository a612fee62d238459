// A tab whose debugger session Chrome replaced under its clients (a chrome:// detour, an
// extension reload), against a scripted extension: while parked, commands fail at once and the
// clients see the page leave; when it is attached again, what they set up is replayed in order
// and they are shown where the page is now — under the same session id.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const TAB = fakeTab(1);
const cdp = (ext: FakeExtension) =>
  ext.requests.filter((r): r is Extract<RequestFrame, { op: 'cdp' }> => r.op === 'cdp');

describe('a tab attached again under its clients', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  let client: CdpClient;
  let session: string;

  beforeEach(async () => {
    t = await startTestRelay({ timeouts: { commandMs: 1_000 } });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB]);
    let scripts = 0;
    ext.handler = (r) => {
      if (r.op !== 'cdp') return {};
      if (r.method === 'Page.getFrameTree')
        return {
          frameTree: {
            frame: {
              id: TAB.targetInfo.targetId,
              loaderId: 'L2',
              url: 'https://example.com/back',
              securityOrigin: 'https://example.com',
              mimeType: 'text/html',
            },
          },
        };
      if (r.method === 'Page.addScriptToEvaluateOnNewDocument') return { identifier: String(++scripts) };
      return {};
    };
    client = await CdpClient.connect(t.cdpWsUrl);
    await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    session = client.events.find((e) => e.method === 'Target.attachedToTarget')!.params.sessionId;
    await client.send('Page.enable', {}, session);
    await client.send('Runtime.enable', {}, session);
    await client.send(
      'Emulation.setDeviceMetricsOverride',
      { width: 400, height: 300, deviceScaleFactor: 1, mobile: false },
      session,
    );
    await client.send('Page.addScriptToEvaluateOnNewDocument', { source: '1', worldName: 'utility' }, session);
    ext.event(1, 'Runtime.executionContextCreated', {
      context: { id: 1, origin: '', name: '', uniqueId: 'U1', auxData: { frameId: TAB.targetInfo.targetId } },
    });
    await client.waitForEvent('Runtime.executionContextCreated');
  });
  afterEach(async () => {
    await client.close();
    await ext.close();
    await t.close();
  });

  it('while parked, says the page left and refuses commands at once with the reason', async () => {
    ext.send({ type: 'tabParked', tabId: 1, url: 'chrome://settings/' });
    const navigated = await client.waitForEvent('Page.frameNavigated');
    expect(navigated.params.frame).toMatchObject({ id: TAB.targetInfo.targetId, url: 'chrome://settings/' });
    expect(client.events.some((e) => e.method === 'Runtime.executionContextsCleared')).toBe(true);
    const sent = cdp(ext).length;
    const refused = await client.send('Runtime.evaluate', { expression: '1' }, session).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(refused).toContain(
      'Runtime.evaluate: the tab is showing chrome://settings/, which cannot be automated; it comes back when the tab returns to a web page',
    );
    expect(cdp(ext).length).toBe(sent); // nothing went to the tab
  });

  it('replays what the client set up, Page first, shows where the tab is, and maps script ids', async () => {
    ext.send({ type: 'tabParked', tabId: 1, url: 'chrome://settings/' });
    await client.waitForEvent('Page.frameNavigated');
    const before = cdp(ext).length;
    ext.send({
      type: 'tabAttached',
      tab: {
        ...TAB,
        sessionId: t.relay.switchboard.tabs()[0]!.sessionId,
        targetInfo: { ...TAB.targetInfo, url: 'https://example.com/back' },
        reattached: true,
      },
    });
    const back = await client.waitForEvent(
      'Page.frameNavigated',
      (e) => e.params.frame.url === 'https://example.com/back',
    );
    expect(back.params.frame.loaderId).toBe('L2');
    await until('the replay to finish', () => cdp(ext).some((r) => r.method === 'Page.createIsolatedWorld'));
    expect(
      cdp(ext)
        .slice(before)
        .map((r) => r.method),
    ).toEqual([
      'Page.enable',
      'Page.getFrameTree',
      'Runtime.enable',
      'Emulation.setDeviceMetricsOverride',
      'Page.addScriptToEvaluateOnNewDocument',
      'Page.createIsolatedWorld',
    ]);
    expect(cdp(ext).find((r) => r.method === 'Page.createIsolatedWorld')!.params).toMatchObject({
      frameId: TAB.targetInfo.targetId,
      worldName: 'utility',
    });
    // The client still knows its script as "1"; on the tab it is now "2".
    await client.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: '1' }, session);
    expect(cdp(ext).at(-1)).toMatchObject({
      method: 'Page.removeScriptToEvaluateOnNewDocument',
      params: { identifier: '2' },
    });
    expect(await client.send('Runtime.evaluate', { expression: '1' }, session)).toEqual({});
  });
});
