// Draws the toolbar icons (a lobster-orange disc with a white claw ring) as PNG files, so the
// repository carries no binary assets. A minimal PNG encoder: RGBA, no interlace, zlib-deflated.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(size, pixel) {
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
    for (let x = 0; x < size; x++) row.set(pixel(x, y), 1 + x * 4);
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** 4x4 supersampled coverage of a shape, for soft edges at 16 px. */
function coverage(x, y, inside) {
  let hits = 0;
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (inside(x + (i + 0.5) / 4, y + (j + 0.5) / 4)) hits++;
  return hits / 16;
}

function icon(size) {
  const c = size / 2;
  const disc = (x, y) => Math.hypot(x - c, y - c) <= c * 0.96;
  const claw = (x, y) => {
    const r = Math.hypot(x - c, y - c) / c;
    const angle = (Math.atan2(y - c, x - c) * 180) / Math.PI;
    return r >= 0.36 && r <= 0.66 && Math.abs(angle) > 38;
  };
  return png(size, (x, y) => {
    const d = coverage(x, y, disc);
    const w = coverage(x, y, claw);
    const [r, g, b] = [255, Math.round(69 + (255 - 69) * w), Math.round(255 * w)];
    return [r, g, b, Math.round(255 * d)];
  });
}

export function writeIcons(dir) {
  for (const size of [16, 32, 48, 128]) writeFileSync(path.join(dir, `icon${size}.png`), icon(size));
}
