// Reads a PNG's size from its header: enough to check a screenshot is a real image of the page.
export function pngSize(buffer: Buffer): { width: number; height: number } {
  if (buffer.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}
