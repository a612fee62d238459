// CdpPipe's framing: messages end in a NUL byte, in whatever chunks the pipe hands them over.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CdpPipe } from '../../relay/browser/cdp-pipe';

function pipe() {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const heard: string[] = [];
  const cdp = new CdpPipe(toBrowser, fromBrowser);
  cdp.onMessage((text) => heard.push(text));
  return { cdp, toBrowser, fromBrowser, heard };
}

describe('CdpPipe', () => {
  it('writes each message and its NUL in one write', () => {
    const { cdp, toBrowser } = pipe();
    const writes: string[] = [];
    toBrowser.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
    cdp.send('{"id":1}');
    cdp.send('{"id":2}');
    expect(writes).toEqual(['{"id":1}\0', '{"id":2}\0']);
  });

  it('reads messages whole, several in a chunk or one over several, a character split between chunks', () => {
    const { fromBrowser, heard } = pipe();
    fromBrowser.write(Buffer.from('{"a":1}\0{"b":2}\0{"c":'));
    const word = Buffer.from('"Zürich"}\0');
    const split = word.indexOf(0xc3) + 1; // between the two bytes of ü
    fromBrowser.write(word.subarray(0, split));
    fromBrowser.write(word.subarray(split));
    fromBrowser.write(Buffer.from('{"d":4}\0'));
    expect(heard).toEqual(['{"a":1}', '{"b":2}', '{"c":"Zürich"}', '{"d":4}']);
  });

  it('says once that it closed, and writes nothing after', () => {
    const { cdp, toBrowser, fromBrowser } = pipe();
    let closed = 0;
    cdp.onClose(() => closed++);
    const writes: Buffer[] = [];
    toBrowser.on('data', (chunk: Buffer) => writes.push(chunk));
    fromBrowser.emit('close');
    fromBrowser.emit('end');
    cdp.send('{"id":3}');
    expect(closed).toBe(1);
    expect(cdp.closed).toBe(true);
    expect(writes).toEqual([]);
  });
});
