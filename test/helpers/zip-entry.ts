// One file out of a zip (a Playwright trace), read with Node's zlib: the central directory names
// each entry and where its local header is; stored or deflated data only (what Playwright writes).

import { readFile } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

export async function zipEntry(file: string, name: string): Promise<Buffer | undefined> {
  const zip = await readFile(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error(`${file} is not a zip`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entry = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extra + comment;
    if (entry !== name) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    return method === 8 ? inflateRawSync(data) : data;
  }
  return undefined;
}
