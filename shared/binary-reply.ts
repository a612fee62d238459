// A large base64 answer (a screenshot, a PDF, a body) sent from the extension as its bytes, in a
// binary frame on `/extension`: Chrome moves a worker's WebSocket text at about 55 MB/s on a
// two-core VM (a 1080p PNG's 7.2 MB in ~137 ms), its decoded bytes — a quarter fewer, no UTF-8
// conversion — in ~70 ms with the decoding. The relay writes the base64 again (3 ms) for the
// client. Layout: a 4-byte big-endian length, that many bytes of JSON head (the reply frame, the
// field null in its place, naming it), then the field's bytes.

/** Where a method's answer carries base64, and the flag that says so when it may not. */
const BASE64_RESULTS: Readonly<Record<string, { field: string; flag?: string }>> = {
  'Page.captureScreenshot': { field: 'data' },
  'Page.printToPDF': { field: 'data' },
  'Network.getResponseBody': { field: 'body', flag: 'base64Encoded' },
  'IO.read': { field: 'data', flag: 'base64Encoded' },
};

/** Answers smaller than this go as JSON text: the bytes would save too little to matter. */
export const BINARY_REPLY_MIN = 64 * 1024;
/** The most a binary reply's head may take (the rest of an answer that carries base64 is a few fields). */
const HEAD_MAX = 64 * 1024;

/** A binary reply's head: the reply frame with its base64 field, which `bytes` names, null (the keys keep their order). */
export interface BinaryReplyHead {
  type: 'reply';
  id: number;
  result: Record<string, unknown>;
  bytes: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The base64 decoder the browser has (Chrome 140+): without it, every answer goes as text. */
type FromBase64 = (text: string, options: { lastChunkHandling: 'strict' }) => Uint8Array;

/**
 * The answer of `method` as a binary frame, or undefined when it goes as text: not a method that
 * answers base64, too small, or not canonical base64 (decoded and written again it would differ).
 */
export function binaryReply(id: number, method: string, result: unknown): Uint8Array<ArrayBuffer> | undefined {
  const where = BASE64_RESULTS[method];
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
  if (!where || !fromBase64 || !isObj(result)) return undefined;
  const text = result[where.field];
  if (typeof text !== 'string' || text.length < BINARY_REPLY_MIN) return undefined;
  if (where.flag !== undefined && result[where.flag] !== true) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(text, { lastChunkHandling: 'strict' });
  } catch {
    return undefined;
  }
  // The decoder passes over whitespace: only text of exactly the bytes' length is written back the same.
  if (text.length !== Math.ceil(bytes.length / 3) * 4) return undefined;
  const head = new TextEncoder().encode(
    JSON.stringify({
      type: 'reply',
      id,
      result: { ...result, [where.field]: null },
      bytes: where.field,
    } satisfies BinaryReplyHead),
  );
  if (head.length > HEAD_MAX) return undefined;
  const frame = new Uint8Array(4 + head.length + bytes.length);
  new DataView(frame.buffer).setUint32(0, head.length);
  frame.set(head, 4);
  frame.set(bytes, 4 + head.length);
  return frame;
}

/** A binary frame read: its head checked, and where its bytes are; or why it is not one. */
export function readBinaryReply(
  frame: Uint8Array,
): { ok: true; head: BinaryReplyHead; bytes: Uint8Array } | { ok: false; error: string } {
  if (frame.length < 4) return { ok: false, error: 'binary frame shorter than its length' };
  const length = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0);
  if (length > HEAD_MAX || 4 + length > frame.length) return { ok: false, error: 'binary frame head out of bounds' };
  let head: unknown;
  try {
    head = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(frame.subarray(4, 4 + length)));
  } catch {
    return { ok: false, error: 'binary frame head is not JSON' };
  }
  if (!isObj(head) || head.type !== 'reply') return { ok: false, error: 'binary frame head must be a reply' };
  if (!Number.isSafeInteger(head.id)) return { ok: false, error: 'id must be an integer' };
  if (!isObj(head.result)) return { ok: false, error: 'result must be an object' };
  if (typeof head.bytes !== 'string' || !Object.values(BASE64_RESULTS).some((w) => w.field === head.bytes))
    return { ok: false, error: 'bytes must name a base64 field' };
  if (head.result[head.bytes] !== null) return { ok: false, error: 'the result must hold its bytes field as null' };
  return { ok: true, head: head as unknown as BinaryReplyHead, bytes: frame.subarray(4 + length) };
}
