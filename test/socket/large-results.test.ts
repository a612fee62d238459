// Large answers through the relay: a result nobody in the relay reads (a screenshot's data) is
// passed through as the extension wrote it, so the client must get exactly the frame a full parse
// and serialise would have made; a result the relay reads (cookies) is still parsed, and a large
// frame that is not a well-formed reply still closes the link with a clear error.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { CLOSE } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { nextMatching } from '../helpers/waits';

const TAB = fakeTab(1);
// Escapes, non-ASCII text and a long base64-like run: what a byte-identical pass-through must keep.
const bigResult = () => ({
  data: 'iVBORw0KGgo'.repeat(20_000),
  note: 'quote " backslash \\ newline \n tab \t é ✓ 🙂 \u0001',
  nested: { list: [1, 2.5, null, true, 'x'] },
});

/** The next text frame the client's socket gets whose text matches. */
function nextText(ws: WebSocket, test: (text: string) => boolean): Promise<string> {
  return nextMatching<string>(
    (deliver) => {
      const listener = (data: WebSocket.RawData, isBinary: boolean) => {
        if (!isBinary) deliver(data.toString());
      };
      ws.on('message', listener);
      return () => void ws.off('message', listener);
    },
    test,
    'a frame for the client',
    5_000,
  );
}

/** A binary reply as the extension sends one (shared/binary-reply.ts): length, JSON head, bytes. */
function binaryFrame(head: unknown, bytes: Buffer): Buffer {
  const text = Buffer.from(JSON.stringify(head));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(text.length);
  return Buffer.concat([length, text, bytes]);
}

describe('large results through the relay', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  let c: CdpClient;
  let sessionId: string;

  beforeEach(async () => {
    t = await startTestRelay({ timeouts: { commandMs: 2_000 } });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB]);
    c = await CdpClient.connect(t.cdpWsUrl);
    sessionId = (await c.send('Target.attachToTarget', { targetId: TAB.targetInfo.targetId, flatten: true })).sessionId;
  });
  afterEach(async () => {
    await c.close();
    await ext.close();
    await t.close();
  });

  it('passes a large result through byte for byte: the same frame a parse and serialise would make', async () => {
    const result = bigResult();
    ext.handler = () => result;
    const frame = nextText(c.ws, (text) => text.startsWith('{"id":'));
    const answer = await c.send('Page.captureScreenshot', { format: 'png' }, sessionId);
    const text = await frame;
    expect(text.length).toBeGreaterThan(200_000);
    expect(text).toBe(JSON.stringify({ id: JSON.parse(text).id, result, sessionId }));
    expect(answer).toEqual(result);
  });

  it('passes a large result through on a root-session client too (no sessionId in the frame)', async () => {
    const page = await CdpClient.connect(
      `ws://127.0.0.1:${t.port}/devtools/page/${TAB.targetInfo.targetId}?token=${t.token}`,
    );
    try {
      const result = bigResult();
      ext.handler = () => result;
      const frame = nextText(page.ws, (text) => text.startsWith('{"id":'));
      await page.send('Page.captureScreenshot', {});
      const text = await frame;
      expect(text).toBe(JSON.stringify({ id: JSON.parse(text).id, result }));
    } finally {
      await page.close();
    }
  });

  it('still reads a large result the relay filters (cookies the policy hides are left out)', async () => {
    await t.relay.switchboard.policy.set({ block: ['https://hidden.test'] });
    const cookies = Array.from({ length: 600 }, (_, i) => ({
      name: `c${i}`,
      value: 'v'.repeat(100),
      domain: i % 2 ? 'hidden.test' : 'example.test',
      path: '/',
    }));
    ext.handler = () => ({ cookies });
    const { cookies: seen } = await c.send('Network.getAllCookies', {}, sessionId);
    expect(seen.length).toBeLessThan(cookies.length);
    expect(seen.every((k: { domain: string }) => k.domain === 'example.test')).toBe(true);
  });

  it('gives the client a base64 answer the extension sent as its bytes as the text a JSON answer makes', async () => {
    ext.handler = () => new Promise(() => {}); // the test answers by hand
    const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256));
    for (const rest of [{ note: 'quote " é ✓', data: null, more: [1, null] }, { data: null }]) {
      const frame = nextText(c.ws, (text) => text.startsWith('{"id":'));
      const asked = ext.next((f) => f.type === 'request');
      const pending = c.send('Page.captureScreenshot', { format: 'png' }, sessionId);
      const request = (await asked) as { id: number };
      ext.sendRaw(binaryFrame({ type: 'reply', id: request.id, result: rest, bytes: 'data' }, bytes));
      const result = { ...rest, data: bytes.toString('base64') }; // in its place
      expect(await pending).toEqual(result);
      const text = await frame;
      expect(text).toBe(JSON.stringify({ id: JSON.parse(text).id, result, sessionId }));
    }
  });

  it.each([
    ['a head past the frame', () => Buffer.from([0, 0, 1, 0, 123])],
    ['a head that is not JSON', () => Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{"t')])],
    [
      'a field no base64 answer has',
      (id: number) => binaryFrame({ type: 'reply', id, result: { value: null }, bytes: 'value' }, Buffer.from('x')),
    ],
  ])('closes the link with 1007 on a binary frame with %s, and the command fails clearly', async (_what, make) => {
    ext.handler = () => new Promise(() => {});
    const pending = c.send('Page.captureScreenshot', {}, sessionId);
    const request = (ext.requests.at(-1) ?? (await ext.next((f) => f.type === 'request'))) as { id: number };
    const failed = expect(pending).rejects.toThrow(/extension disconnected before answering/);
    ext.sendRaw(make(request.id));
    expect((await ext.closed).code).toBe(CLOSE.invalidFrame);
    await failed;
  });

  it('closes the link with 1007 on a large frame that is not a well-formed reply, and the command fails clearly', async () => {
    ext.handler = () => new Promise(() => {}); // the test answers by hand
    const pending = c.send('Page.captureScreenshot', {}, sessionId);
    const request = ext.requests.at(-1) ?? (await ext.next((f) => f.type === 'request'));
    const failed = expect(pending).rejects.toThrow(/extension disconnected before answering/);
    ext.sendRaw(`{"type":"reply","id":${(request as { id: number }).id},"result":{"data":"${'A'.repeat(100_000)}"`); // cut short: no closing braces
    expect((await ext.closed).code).toBe(CLOSE.invalidFrame);
    await failed;
  });
});
