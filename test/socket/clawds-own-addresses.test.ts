// clawd's own addresses are never a page for agents, and the live view's session cookie is never
// a client's: a raw CDP client through the relay (the agent's door with the token alone) is
// refused Page.navigate, Target.createTarget and /json/new to them in every spelling the browser
// sends to clawd, the person's browser is told to block them (setPolicy's `own`), and the cookie
// is left out of every cookie read and refused when set — whatever the person's own rules say.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownOrigins } from '../../shared/own-origins';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const TAB = fakeTab(1);

describe("clawd's own addresses at the relay", () => {
  let t: TestRelay;
  let ext: FakeExtension;
  let client: CdpClient;
  let sessionId: string;
  const controlPort = 45_678;
  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB]);
    await t.relay.switchboard.policy.set({ own: ownOrigins([t.port, controlPort]) });
    client = await CdpClient.connect(t.cdpWsUrl);
    ({ sessionId } = await client.send('Target.attachToTarget', { targetId: TAB.targetInfo.targetId, flatten: true }));
  });
  afterEach(async () => {
    await client.close();
    await ext.close();
    await t.close();
  });

  it('refuses every way a raw client asks to load them, and the person’s browser is told to block them', async () => {
    const sent = () => ext.requests.filter((r) => r.op === 'cdp' && r.method === 'Page.navigate').length;
    for (const url of [
      `http://127.0.0.1:${controlPort}/view`,
      `http://localhost:${controlPort}/view/api/answer`,
      `http://2130706433:${controlPort}/view`,
      `http://[::1]:${t.port}/json/version`,
    ]) {
      await expect(client.send('Page.navigate', { url }, sessionId), url).rejects.toThrow(/clawd's own address/);
      await expect(client.send('Target.createTarget', { url }), url).rejects.toThrow(/clawd's own address/);
    }
    expect(sent()).toBe(0);
    const opened = await fetch(
      `${t.relay.url}/json/new?url=${encodeURIComponent(`http://127.0.0.1:${controlPort}/view`)}&token=${t.token}`,
      { method: 'PUT' },
    );
    expect(opened.status).toBe(403);
    expect(ext.requests.some((r) => r.op === 'createTab')).toBe(false);
    // Another port of the host is the person's rules' (none here): it goes.
    ext.handler = () => ({ frameId: 'F', loaderId: 'L' });
    await client.send('Page.navigate', { url: 'http://127.0.0.1:3000/' }, sessionId);
    expect(sent()).toBe(1);
    // What the extension enforces in the browser (declarativeNetRequest): clawd's own addresses.
    await until('the policy sent to the extension', () =>
      ext.requests.some((r) => r.op === 'setPolicy' && (r.own ?? []).includes(`http://127.0.0.1:${controlPort}`)),
    );
  });

  it('never shows the live view’s session cookie, and refuses setting one', async () => {
    const cookies = [
      { name: `clawd_view_${controlPort}`, value: 'the-persons-session', domain: '127.0.0.1', path: '/view' },
      { name: 'dev', value: 'fine', domain: '127.0.0.1', path: '/' },
    ];
    ext.handler = (request) =>
      request.op === 'cdp' && request.method === 'Network.setCookie' ? { success: true } : { cookies };
    for (const method of ['Network.getAllCookies', 'Storage.getCookies', 'Network.getCookies']) {
      const { cookies: seen } = await client.send(method, {}, method === 'Storage.getCookies' ? undefined : sessionId);
      expect(
        seen.map((c: { name: string }) => c.name),
        method,
      ).toEqual(['dev']);
    }
    await expect(
      client.send(
        'Network.setCookie',
        { name: `clawd_view_${controlPort}`, value: 'forged', url: `http://127.0.0.1:${controlPort}/view` },
        sessionId,
      ),
    ).rejects.toThrow(/session cookie is clawd's own/);
    await expect(
      client.send('Storage.setCookies', {
        cookies: [{ name: `clawd_view_${controlPort}`, value: 'forged', domain: 'localhost', path: '/view' }],
      }),
    ).rejects.toThrow(/session cookie is clawd's own/);
    expect(ext.requests.some((r) => r.op === 'cdp' && /setCookie/i.test(r.method))).toBe(false);
  });
});
