// A large CDP answer passed through as the extension wrote it. The relay routes an answer by
// its id alone, so a screenshot's megabytes need not be decoded, parsed and serialised again on
// their way to the client (measured on a 6.7 MB PNG: that was most of the relay's own work per shot).
// Only answers nobody in the relay reads take this path; every other frame is parsed in full.
// A base64 answer the extension sent as its bytes (shared/binary-reply.ts) is written as base64
// once, straight into the client's text.

import type { BinaryReplyHead } from '../../shared/binary-reply';

/** UTF-8 JSON text (an object) the relay forwards without reading it. */
export class RawJson {
  constructor(readonly bytes: Buffer) {}

  /** The value, for a reader the relay does not usually have (a test): parsed on demand. */
  value(): unknown {
    return JSON.parse(this.bytes.toString());
  }
}

/** Replies at least this large are read at their head only, when their caller does not read them. */
export const RAW_REPLY_BYTES = 64 * 1024;

// The shape the extension writes, JSON.stringify({ type: 'reply', id, result }): no spaces, this
// key order, a result object. Anything else (an error reply, another layout) is parsed in full.
const REPLY_HEAD = /^\{"type":"reply","id":(\d{1,15}),"result":\{/;
const CLOSE_BRACE = 0x7d;

/**
 * The id and result bytes of a large reply frame, read from its head and tail; undefined when the
 * frame is small or not in that shape. ws has already checked the frame is valid UTF-8.
 */
export function peekReply(data: Buffer): { id: number; result: Buffer } | undefined {
  if (data.length < RAW_REPLY_BYTES || data[data.length - 1] !== CLOSE_BRACE || data[data.length - 2] !== CLOSE_BRACE)
    return undefined;
  const head = REPLY_HEAD.exec(data.toString('latin1', 0, 48));
  if (!head) return undefined;
  return { id: Number(head[1]), result: data.subarray(head[0].length - 1, data.length - 1) };
}

/**
 * The result of a binary reply (shared/binary-reply.ts): its bytes as base64 in their field's
 * place — for a caller that forwards it, the JSON text a JSON reply would have been, written
 * around the base64 (the only copies are the base64's string and its bytes in the frame).
 */
export function binaryResult(
  head: BinaryReplyHead,
  bytes: Uint8Array,
  raw: boolean,
): RawJson | Record<string, unknown> {
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  if (!raw) return { ...head.result, [head.bytes]: base64 };
  // JSON.stringify's own text, key by key (a key whose value is undefined it leaves out), the field's value written in.
  const parts: Buffer[] = [];
  let text = '{';
  for (const [key, value] of Object.entries(head.result)) {
    if (value === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
    if (key !== head.bytes) {
      text += JSON.stringify(value);
      continue;
    }
    parts.push(Buffer.from(`${text}"`), Buffer.from(base64, 'latin1'));
    text = '"';
  }
  parts.push(Buffer.from(`${text}}`));
  return new RawJson(Buffer.concat(parts));
}
