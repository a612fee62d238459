// The store build of the extension: `scripts/pack-extension.mjs` (npm run pack:extension) writes
// a zip whose manifest is MV3 without a `key`; unpacked, it loads in Chromium with a working
// service worker under the id Chrome gives it, and connects to a relay whose config lists that
// id — while the relay refuses an extension it does not list.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../relay/version';
import { updateConfig, loadConfig } from '../../relay/home/config-store';
import { TestBrowser, unpackedExtensionId } from '../helpers/chromium';
import { upgradeStatus } from '../helpers/http';
import { startTestServer } from '../helpers/server';
import { until } from '../helpers/waits';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Reads a zip of stored entries (what the packer writes) into a folder: names and bytes. */
function unzip(zip: Buffer, into: string): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString();
    const local = zip.readUInt32LE(at + 42);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    mkdirSync(path.dirname(path.join(into, name)), { recursive: true });
    writeFileSync(path.join(into, name), zip.subarray(dataAt, dataAt + size));
    names.push(name);
    at += 46 + nameLength + extra;
  }
  return names;
}

describe('the store build of the extension', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'is an MV3 zip without a key that loads, and connects to a relay that lists its id',
    { timeout: 90_000 },
    async () => {
      await new Promise<void>((resolve, reject) =>
        execFile(process.execPath, [path.join(ROOT, 'scripts', 'pack-extension.mjs')], (error) =>
          error ? reject(error) : resolve(),
        ),
      );
      const unpacked = path.join(dir, 'extension');
      const names = unzip(readFileSync(path.join(ROOT, 'dist', `clawd-extension-${VERSION}.zip`)), unpacked);
      expect(names).toContain('manifest.json');
      expect(names.some((n) => n.endsWith('.map'))).toBe(false);
      const manifest = JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
      expect(manifest.manifest_version).toBe(3);
      expect(manifest).not.toHaveProperty('key');

      const id = unpackedExtensionId(unpacked);
      const server = await startTestServer();
      const browser = await TestBrowser.launch({ extensionDir: unpacked, extensionId: id });
      try {
        // Not listed yet: refused like any other extension.
        const extensionUrl = `ws://127.0.0.1:${server.server.relay.port}/extension?nonce=a-nonce-0123456789abc`;
        expect(await upgradeStatus(extensionUrl, {}, `chrome-extension://${id}`)).toBe(403);
        await server.stop();
        await loadConfig(server.home);
        await updateConfig(server.home, (config) => ({ ...config, relay: { extensionIds: [id] } }));
        const listed = await startTestServer({ home: server.home });
        try {
          await browser.configureExtension(listed.server.relay.port, listed.extensionKey);
          await until('the store build to connect', () => listed.server.relay.switchboard.extensionConnected, 15_000);
          expect(
            await upgradeStatus(
              `ws://127.0.0.1:${listed.server.relay.port}/extension?nonce=a-nonce-0123456789abc`,
              {},
              'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
            ),
          ).toBe(403);
        } finally {
          await listed.close();
        }
      } finally {
        await browser.close();
        await server.close();
      }
    },
  );
});
