import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../shared/defaults';

describe('the pinned extension id', () => {
  it("is what Chrome derives from the manifest's key", () => {
    const manifest = JSON.parse(readFileSync(new URL('../../extension/manifest.json', import.meta.url), 'utf8'));
    const digest = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
    const id = [...digest].map((h) => String.fromCharCode(97 + parseInt(h, 16))).join('');
    expect(id).toBe(EXTENSION_ID);
  });
});
