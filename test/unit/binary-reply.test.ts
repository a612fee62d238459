// A large base64 answer sent from the extension as its bytes (shared/binary-reply.ts) and read
// back by the relay (relay/cdp/raw-json.ts `binaryResult`): the client must get the text a JSON
// answer would have made, and anything that would not round-trip goes as text.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINARY_REPLY_MIN, binaryReply, readBinaryReply } from '../../shared/binary-reply';
import { RawJson, binaryResult } from '../../relay/cdp/raw-json';

type Decoder = { fromBase64?: (text: string, options: object) => Uint8Array };
const decoder = Uint8Array as unknown as Decoder;
const native = decoder.fromBase64;
/** Chrome's decoder as Node 20 lacks it: strict, canonical base64 only. */
const standIn = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw new SyntaxError('not canonical base64');
  return new Uint8Array(bytes);
};

const png = Buffer.alloc(BINARY_REPLY_MIN, 7).toString('base64');

describe('a base64 answer sent as its bytes', () => {
  it('goes as text where the browser has no base64 decoder (Chrome before 140)', () => {
    if (native) return; // this Node has one: the case is the browser's
    expect(binaryReply(1, 'Page.captureScreenshot', { data: png })).toBeUndefined();
  });

  describe('with a decoder', () => {
    beforeAll(() => {
      if (!native) decoder.fromBase64 = standIn;
    });
    afterAll(() => {
      if (!native) delete decoder.fromBase64;
    });

    it('reads back as the JSON answer would be, forwarded unread or read', () => {
      const result = { data: png, note: 'quote " é ✓' };
      const frame = binaryReply(9, 'Page.captureScreenshot', result)!;
      expect(frame.length).toBeLessThan(png.length);
      const read = readBinaryReply(frame);
      if (!read.ok) throw new Error(read.error);
      expect(read.head).toEqual({ type: 'reply', id: 9, result: { data: null, note: result.note }, bytes: 'data' });
      const raw = binaryResult(read.head, read.bytes, true) as RawJson;
      expect(raw.bytes.toString()).toBe(JSON.stringify(result));
      expect(binaryResult(read.head, read.bytes, false)).toEqual(result);
      // Nothing but the bytes: the result is that field alone.
      const alone = readBinaryReply(binaryReply(10, 'Page.printToPDF', { data: png })!);
      if (!alone.ok) throw new Error(alone.error);
      expect((binaryResult(alone.head, alone.bytes, true) as RawJson).bytes.toString()).toBe(
        JSON.stringify({ data: png }),
      );
      // The keys in Chrome's order, the field in its place: the text Chrome's JSON answer was.
      const io = { base64Encoded: true, data: png, eof: false };
      const read2 = readBinaryReply(binaryReply(11, 'IO.read', io)!);
      if (!read2.ok) throw new Error(read2.error);
      expect((binaryResult(read2.head, read2.bytes, true) as RawJson).bytes.toString()).toBe(JSON.stringify(io));
      expect(JSON.stringify(binaryResult(read2.head, read2.bytes, false))).toBe(JSON.stringify(io));
    });

    it('sends as text what is small, not base64 by its method or its flag, or not canonical', () => {
      expect(binaryReply(1, 'Page.captureScreenshot', { data: 'iVBORw0KGgo=' })).toBeUndefined();
      expect(binaryReply(1, 'Runtime.evaluate', { data: png })).toBeUndefined();
      expect(binaryReply(1, 'Network.getResponseBody', { body: png, base64Encoded: false })).toBeUndefined();
      expect(binaryReply(1, 'Network.getResponseBody', { body: png, base64Encoded: true })).toBeDefined();
      expect(binaryReply(1, 'IO.read', { data: png, base64Encoded: true, eof: false })).toBeDefined();
      // Decoded and written again it would read `…A=` for `…B=`: the client must get what Chrome said.
      expect(binaryReply(1, 'Page.captureScreenshot', { data: `${png.slice(0, -4)}AAB=` })).toBeUndefined();
      expect(binaryReply(1, 'Page.captureScreenshot', { data: `${png}!` })).toBeUndefined();
      // Chrome's decoder passes over whitespace: such text would not be written back the same.
      if (native)
        expect(
          binaryReply(1, 'Page.captureScreenshot', { data: `${png.slice(0, 8)} ${png.slice(8)}` }),
        ).toBeUndefined();
      expect(binaryReply(1, 'Page.captureScreenshot', 'not an object')).toBeUndefined();
    });
  });

  it('refuses a binary frame that is not a reply in that shape, saying why', () => {
    const frame = (head: unknown, length?: number) => {
      const text = Buffer.from(typeof head === 'string' ? head : JSON.stringify(head));
      const out = Buffer.alloc(4 + text.length + 3);
      out.writeUInt32BE(length ?? text.length);
      text.copy(out, 4);
      return new Uint8Array(out);
    };
    const reply = { type: 'reply', id: 1, result: { data: null }, bytes: 'data' };
    expect(readBinaryReply(frame(reply)).ok).toBe(true);
    const why = (bytes: Uint8Array) => {
      const read = readBinaryReply(bytes);
      return read.ok ? 'read' : read.error;
    };
    expect(why(new Uint8Array([0, 0]))).toMatch(/shorter/);
    expect(why(frame(reply, 1_000_000))).toMatch(/out of bounds/);
    expect(why(frame('{"type":'))).toMatch(/not JSON/);
    expect(why(frame({ ...reply, type: 'event' }))).toMatch(/must be a reply/);
    expect(why(frame({ ...reply, id: 'one' }))).toMatch(/id must be an integer/);
    expect(why(frame({ ...reply, result: [] }))).toMatch(/result must be an object/);
    expect(why(frame({ ...reply, bytes: 'value' }))).toMatch(/base64 field/);
    expect(why(frame({ ...reply, result: { data: 'x' } }))).toMatch(/as null/);
    expect(why(frame({ ...reply, result: {} }))).toMatch(/as null/);
  });
});
