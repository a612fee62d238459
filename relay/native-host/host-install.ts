// `clawd install` / `uninstall` and doctor's look: writes the launcher into the home and the host
// manifest where each browser found for this person reads it (the registry key on Windows), and
// takes them away again. Which places exist is decided by host-places.ts; this file only acts.

import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';
import {
  BROWSER_LABELS,
  hostManifest,
  hostPlaces,
  launcherScript,
  userDataDirPlace,
  type BrowserName,
  type HostPlace,
  type HostPlatform,
  type PlatformFolders,
} from './host-places';

const run = promisify(execFile);
const MANIFEST_FILE = `${NATIVE_HOST_NAME}.json`;

export interface HostTarget {
  home: string;
  platform: HostPlatform;
  folders: PlatformFolders;
  /** One browser only (installed there even if its user data folder is not there yet). */
  browser?: BrowserName;
  /** A browser started with `--user-data-dir DIR` (Linux, macOS). */
  userDataDir?: string;
}

/** The folder in the home that holds the launcher (and, on Windows, the manifest). */
export function hostFolder(home: string): string {
  return path.join(home, 'native-host');
}

export function placeLabel(place: HostPlace): string {
  return place.browser === 'user-data-dir' ? `the browser of ${place.userDataDir}` : BROWSER_LABELS[place.browser];
}

/** The places a command acts on: the one asked for, else every browser this person has. */
function chosenPlaces(target: HostTarget, onlyPresent: boolean): HostPlace[] {
  if (target.userDataDir) return [userDataDirPlace(target.platform, path.resolve(target.userDataDir))];
  const places = hostPlaces(target.platform, target.folders).filter(
    (place) => !target.browser || place.browser === target.browser,
  );
  return target.browser || !onlyPresent ? places : places.filter((place) => existsSync(place.userDataDir));
}

export async function installNativeHost(
  target: HostTarget & {
    node: string;
    bin: string;
    extensionOrigins: readonly string[];
    /** The server's ports when the host starts one (`--relay-port 0`: free ones); the usual ones by default. */
    ports?: { relayPort?: number; controlPort?: number };
  },
): Promise<{ launcher: string; places: Array<HostPlace & { manifestPath: string }> }> {
  const places = chosenPlaces(target, true);
  if (places.length === 0)
    throw new Error(
      `no Chrome, Chromium, Edge or Brave found for this user (looked for ${hostPlaces(target.platform, target.folders)
        .map((p) => p.userDataDir)
        .join(', ')}): pass --browser NAME, or --user-data-dir DIR for a browser started with its own`,
    );
  const folder = hostFolder(target.home);
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const { relayPort, controlPort } = target.ports ?? {};
  const script = launcherScript(target.platform, {
    node: target.node,
    bin: target.bin,
    home: target.home,
    args: [
      ...(relayPort !== undefined ? ['--relay-port', String(relayPort)] : []),
      ...(controlPort !== undefined ? ['--control-port', String(controlPort)] : []),
    ],
  });
  const launcher = path.join(folder, script.fileName);
  await fs.writeFile(launcher, script.text, { mode: 0o755 });
  await fs.chmod(launcher, 0o755);
  const manifest = JSON.stringify(hostManifest(launcher, target.extensionOrigins), null, 2) + '\n';
  const done: Array<HostPlace & { manifestPath: string }> = [];
  for (const place of places) {
    const manifestPath = path.join(place.manifestDir, MANIFEST_FILE);
    await fs.mkdir(place.manifestDir, { recursive: true });
    await fs.writeFile(manifestPath, manifest, { mode: 0o644 });
    if (place.registryKey)
      await run('reg', ['add', place.registryKey, '/ve', '/t', 'REG_SZ', '/d', manifestPath, '/f']);
    done.push({ ...place, manifestPath });
  }
  return { launcher, places: done };
}

/** Removes the manifests (and registry keys) it finds; the launcher too when removed from every browser. */
export async function uninstallNativeHost(target: HostTarget): Promise<HostPlace[]> {
  const removed: HostPlace[] = [];
  for (const place of chosenPlaces(target, false)) {
    const manifestPath = path.join(place.manifestDir, MANIFEST_FILE);
    let found = false;
    if (place.registryKey)
      found = await run('reg', ['delete', place.registryKey, '/f']).then(
        () => true,
        () => false,
      );
    if (existsSync(manifestPath) && !place.registryKey) {
      await fs.rm(manifestPath, { force: true });
      found = true;
    }
    if (found) removed.push(place);
  }
  if (!target.browser && !target.userDataDir) await fs.rm(hostFolder(target.home), { recursive: true, force: true });
  return removed;
}

/** Where the host is registered for this home's launcher (doctor): each known browser's place that names it. */
export async function installedPlaces(target: HostTarget): Promise<HostPlace[]> {
  const found: HostPlace[] = [];
  for (const place of chosenPlaces(target, false)) {
    let manifestPath = path.join(place.manifestDir, MANIFEST_FILE);
    if (place.registryKey) {
      const query = await run('reg', ['query', place.registryKey, '/ve']).catch(() => undefined);
      const named = query?.stdout.match(/REG_SZ\s+(.+?)\s*$/m)?.[1];
      if (!named) continue;
      manifestPath = named;
    }
    try {
      const manifest = JSON.parse(await fs.readFile(manifestPath, 'utf8')) as { path?: string };
      if (manifest.path && path.dirname(manifest.path) === hostFolder(target.home) && existsSync(manifest.path))
        found.push(place);
    } catch {
      // no manifest there, or not ours
    }
  }
  return found;
}

/** The target on this machine: its OS, the person's folders, and the home's host folder. */
export function localHostTarget(home: string, options: { browser?: BrowserName; userDataDir?: string }): HostTarget {
  const platform: HostPlatform =
    process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux';
  return {
    home,
    platform,
    folders: { homedir: os.homedir(), localAppData: process.env.LOCALAPPDATA, clawdManifestDir: hostFolder(home) },
    ...options,
  };
}
