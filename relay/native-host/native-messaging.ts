// Chrome's native messaging framing on the host's stdin/stdout: each message is UTF-8 JSON
// after its length as a 32-bit integer in the machine's byte order (little-endian on every
// platform Chrome runs on). A host answers at most 1 MB; Chrome's messages are far smaller here.

import type { Readable, Writable } from 'node:stream';

/** Larger than any hello: a stream saying more is not Chrome talking to us. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** Reads one message; rejects on a bad frame, the stream's end, or `timeoutMs` without one. */
export function readNativeMessage(input: Readable, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (error: Error | undefined, message?: unknown) => {
      clearTimeout(timer);
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', finish);
      input.pause();
      if (error) reject(error);
      else resolve(message);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4) return;
      const length = buffered.readUInt32LE(0);
      if (length > MAX_MESSAGE_BYTES)
        return finish(new Error(`a native message of ${length} bytes (at most ${MAX_MESSAGE_BYTES})`));
      if (buffered.length < 4 + length) return;
      try {
        finish(undefined, JSON.parse(buffered.subarray(4, 4 + length).toString('utf8')));
      } catch (error) {
        finish(new Error(`a native message that is not JSON: ${(error as Error).message}`));
      }
    };
    const onEnd = () => finish(new Error('stdin ended before a whole message came'));
    const timer = setTimeout(() => finish(new Error(`no message within ${timeoutMs / 1000} s`)), timeoutMs);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', finish);
  });
}

/** Writes one message and resolves once it is flushed. */
export function writeNativeMessage(output: Writable, message: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length, 0);
  return new Promise((resolve, reject) =>
    output.write(Buffer.concat([header, body]), (error) => (error ? reject(error) : resolve())),
  );
}
