// `npm run pack:extension`: the extension as the Chrome Web Store takes it, from the build in
// dist/extension: dist/clawd-extension-<version>.zip. The manifest is checked (MV3, permissions
// no wider than the extension needs, every icon present) and loses its `key` (the store assigns
// the id; config's relay.extensionIds lets the relay accept it). Source maps stay out.
// The zip is written here (stored entries, CRC-32): a few lines, no dependency.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'dist', 'extension');
const ALLOWED_PERMISSIONS = new Set([
  'debugger',
  'tabs',
  'storage',
  'alarms',
  'downloads',
  'contentSettings',
  'webNavigation',
  'declarativeNetRequest',
  'tabGroups',
  'sidePanel',
  'contextMenus',
  'scripting',
  // Asks clawd's native host (after `clawd install`) where the server is: Chrome starts clawd.
  'nativeMessaging',
  // The questions agents wait for reach the person with the side panel closed (Allow, Deny).
  'notifications',
]);
// Every site: the watch for the person's hands is put into whatever tab they hand over
// (chrome.scripting). Chrome warns of nothing more than `debugger` already does ("read and change
// all your data on all websites").
const ALLOWED_HOSTS = new Set(['<all_urls>']);

function fail(message) {
  console.error(`pack:extension: ${message}`);
  process.exit(1);
}

if (!existsSync(path.join(source, 'manifest.json'))) fail('dist/extension is not built: run npm run build first');
const manifest = JSON.parse(readFileSync(path.join(source, 'manifest.json'), 'utf8'));
if (manifest.manifest_version !== 3) fail(`manifest_version must be 3, got ${manifest.manifest_version}`);
for (const permission of manifest.permissions ?? [])
  if (!ALLOWED_PERMISSIONS.has(permission)) fail(`permission ${permission} is wider than the extension needs`);
for (const host of manifest.host_permissions ?? [])
  if (!ALLOWED_HOSTS.has(host)) fail(`host permission ${host} is not one the extension needs`);
const icons = [...Object.values(manifest.icons ?? {}), ...Object.values(manifest.action?.default_icon ?? {})];
if (icons.length === 0) fail('the manifest names no icons');
for (const icon of icons) if (!existsSync(path.join(source, icon))) fail(`icon ${icon} is missing`);
delete manifest.key;

const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (!name.endsWith('.map')) files.push(full);
  }
})(source);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const locals = [];
const central = [];
let offset = 0;
for (const file of files) {
  const name = Buffer.from(path.relative(source, file).split(path.sep).join('/'));
  const data =
    name.toString() === 'manifest.json' ? Buffer.from(JSON.stringify(manifest, null, 2) + '\n') : readFileSync(file);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(0x0800, 6); // UTF-8 names
  local.writeUInt16LE(0, 8); // stored
  local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00: reproducible
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  locals.push(local, name, data);
  const entry = Buffer.alloc(46);
  entry.writeUInt32LE(0x02014b50, 0);
  entry.writeUInt16LE(20, 4);
  entry.writeUInt16LE(20, 6);
  entry.writeUInt16LE(0x0800, 8);
  entry.writeUInt16LE(0, 10);
  entry.writeUInt32LE(0x00210000, 12);
  entry.writeUInt32LE(crc, 16);
  entry.writeUInt32LE(data.length, 20);
  entry.writeUInt32LE(data.length, 24);
  entry.writeUInt16LE(name.length, 28);
  entry.writeUInt32LE(offset, 42);
  central.push(entry, name);
  offset += 30 + name.length + data.length;
}
const centralSize = central.reduce((n, b) => n + b.length, 0);
const end = Buffer.alloc(22);
end.writeUInt32LE(0x06054b50, 0);
end.writeUInt16LE(files.length, 8);
end.writeUInt16LE(files.length, 10);
end.writeUInt32LE(centralSize, 12);
end.writeUInt32LE(offset, 16);

const out = path.join(root, 'dist', `clawd-extension-${manifest.version}.zip`);
writeFileSync(out, Buffer.concat([...locals, ...central, end]));
console.log(`wrote ${path.relative(root, out)} (${files.length} files)`);
