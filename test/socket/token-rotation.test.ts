// A token rotated while the relay runs: the old one is refused from that moment (HTTP and new
// sockets), raw CDP clients that came in with the old one are cut, and clawd's own agent layer
// (its per-process key) is not; the extension, which never uses the token, is not told it. A new
// extension key drops the connected extension, which comes back only with the new key.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerToken } from '../../relay/http/server-token';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { until } from '../helpers/waits';

const NEW_TOKEN = 'rotated-token-0123456789abcdef';

describe('a rotated token', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  beforeEach(async () => {
    t = await startTestRelay();
    ext = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(3)]);
  });
  afterEach(async () => {
    await ext.close();
    await t.close();
  });

  it('is refused from the moment it changed; raw clients are cut, the agent layer and the extension stay', async () => {
    const raw = await CdpClient.connect(t.cdpWsUrl);
    const agent = await CdpClient.connect(t.cdpWsUrl, { headers: { 'X-Clawd-Agent': t.relay.agentKey } });
    const framesBefore = ext.received.length;
    await t.relay.token.rotate(NEW_TOKEN);

    expect(await raw.closed).toEqual({
      code: 1008,
      reason: 'the token was rotated: connect with the new one (clawd token)',
    });
    expect((await agent.send('Target.getTargets')).targetInfos).toHaveLength(1);
    await agent.close();

    const version = (token: string) =>
      fetch(`${t.relay.url}/json/version`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await version(t.token)).status).toBe(401);
    expect((await version(NEW_TOKEN)).status).toBe(200);
    await expect(CdpClient.connect(t.cdpWsUrl)).rejects.toThrow(/401/);
    const again = await CdpClient.connect(`ws://127.0.0.1:${t.port}/cdp?token=${NEW_TOKEN}`);
    expect((await again.send('Target.getTargets')).targetInfos).toHaveLength(1);
    await again.close();
    // The extension heard nothing of it (the token is not its credential) and is still the extension.
    expect(ext.received.slice(framesBefore).map((f) => f.type)).not.toContain('token');
    expect(ext.ws.readyState).toBe(ext.ws.OPEN);
    expect(t.relay.switchboard.extensionConnected).toBe(true);
  });

  it('a new extension key drops the extension; the old key is refused, the new one proves', async () => {
    const oldKey = t.extensionKey;
    await t.keys.rotateExtension();
    expect(t.extensionKey).not.toBe(oldKey);
    expect(await ext.closed).toEqual({ code: 4004, reason: expect.stringMatching(/key was replaced/) });
    await until('the relay to see it gone', () => !t.relay.switchboard.extensionConnected);

    const stale = await FakeExtension.open(t.port, oldKey);
    expect(await stale.relayProved()).toBe(false); // what the real extension checks first: it would stop here
    await stale.hello().catch(() => {});
    expect((await stale.closed).code).toBe(4003);
    expect(t.relay.switchboard.extensionConnected).toBe(false);

    ext = await FakeExtension.connect(t.port, t.extensionKey, [fakeTab(3)]);
    expect(await ext.relayProved()).toBe(true);
    expect(t.relay.switchboard.extensionConnected).toBe(true);
  });
});

describe('the server token', () => {
  it('keeps the old value when the new one cannot be saved, and tells followers only of one in force', async () => {
    const heard: string[] = [];
    let fail = true;
    const token = new ServerToken('first-token-0123456789', async () => {
      if (fail) throw new Error('disk full');
    });
    token.onRotated((next) => heard.push(next));
    await expect(token.rotate('second-token-0123456789')).rejects.toThrow('disk full');
    expect(token.value).toBe('first-token-0123456789');
    expect(token.matches('first-token-0123456789')).toBe(true);
    fail = false;
    await token.rotate('second-token-0123456789');
    expect(token.matches('first-token-0123456789')).toBe(false);
    expect(token.matches('second-token-0123456789')).toBe(true);
    expect(heard).toEqual(['second-token-0123456789']);
  });
});
