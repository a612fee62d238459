// `clawd install` / `uninstall`: writes the launcher into the home and the host manifest where each
// browser found for this person reads it (registry keys on Windows; for a Flatpak, a wrapper in the
// app's folder that leaves its sandbox), and takes them away again. Which places exist is decided by
// host-places.ts; this file only acts. Browsers named by their folder are kept in the home's
// native-host/places.json, so doctor lists them and a plain uninstall reaches them too.

import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';
import { writePrivateFile } from '../home/private-file';
import { browserRow } from './browser-table';
import { regExe, type HostRegistry } from './host-registry';
import {
  hostManifest,
  hostPlaces,
  launcherScript,
  userDataDirPlace,
  type HostPlace,
  type HostPlatform,
  type PlatformFolders,
} from './host-places';
import { flatpakHostPermission, flatpakWrapper, flatpakWrapperPath, sandboxNote } from './sandbox-hosts';

export const MANIFEST_FILE = `${NATIVE_HOST_NAME}.json`;

export interface HostTarget {
  home: string;
  platform: HostPlatform;
  folders: PlatformFolders;
  /** One browser only, by its id in browser-table.ts (installed there even if its folder is not there yet). */
  browser?: string;
  /** A browser started with `--user-data-dir DIR`, whatever it is. */
  userDataDir?: string;
  /** Windows' registry (reg.exe unless a test gives its own). */
  registry?: HostRegistry;
}

export type PlaceNote = { warn: boolean; text: string };

/** The folder in the home that holds the launcher (and, on Windows, the manifest). */
export function hostFolder(home: string): string {
  return path.join(home, 'native-host');
}

/** The home's launcher, as `clawd install` writes it on this platform. */
export function launcherPath(home: string, platform: HostPlatform): string {
  return path.join(hostFolder(home), platform === 'win32' ? 'clawd-native-host.bat' : 'clawd-native-host.sh');
}

export function placeLabel(place: HostPlace): string {
  return place.label;
}

/** Whether the person has this browser: its user data folder holds more than the hosts folder clawd may have made. */
export async function hasUserData(place: HostPlace): Promise<boolean> {
  const names = await fs.readdir(place.userDataDir).catch(() => [] as string[]);
  return names.some((name) => name !== 'NativeMessagingHosts');
}

/** What a place holds of clawd's: manifest files and a Flatpak's wrapper, or registry keys. */
export function placeLocations(place: HostPlace, folders: PlatformFolders): string[] {
  if (place.registryKeys.length > 0) return place.registryKeys;
  const manifests = place.manifestDirs.map((dir) => path.join(dir, MANIFEST_FILE));
  return place.sandbox?.kind === 'flatpak'
    ? [...manifests, flatpakWrapperPath(place.sandbox.appId, folders.homedir)]
    : manifests;
}

/** A sandboxed browser's note (a Flatpak's reads whether it may leave its sandbox). */
export async function placeNote(place: HostPlace, folders: PlatformFolders): Promise<PlaceNote | undefined> {
  if (!place.sandbox) return undefined;
  const permission =
    place.sandbox.kind === 'flatpak' ? await flatpakHostPermission(place.sandbox.appId, folders) : undefined;
  return sandboxNote(place.sandbox, permission);
}

const namedFile = (home: string) => path.join(hostFolder(home), 'places.json');

/** The user data folders `clawd install --user-data-dir` was given (and not uninstalled since). */
export async function namedDirs(home: string): Promise<string[]> {
  const text = await fs.readFile(namedFile(home), 'utf8').catch(() => '{}');
  const dirs = (JSON.parse(text) as { userDataDirs?: unknown }).userDataDirs;
  return Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === 'string') : [];
}

async function rememberDir(home: string, dir: string, keep: boolean): Promise<void> {
  const dirs = (await namedDirs(home)).filter((d) => d !== dir);
  await writePrivateFile(namedFile(home), JSON.stringify({ userDataDirs: keep ? [...dirs, dir] : dirs }) + '\n');
}

/** The place of one browser named by its id, on the target's platform. */
function browserPlace(target: HostTarget, id: string): HostPlace {
  const place = hostPlaces(target.platform, target.folders).find((p) => p.browser === id);
  if (place) return place;
  throw new Error(
    browserRow(id)
      ? `${browserRow(id)!.label} does not run on ${target.platform}`
      : `no browser is called ${JSON.stringify(id)}`,
  );
}

/** Every place clawd may have written: each known browser's, and those of the folders named at install. */
export async function everyPlace(target: HostTarget): Promise<HostPlace[]> {
  const named = await namedDirs(target.home);
  return [
    ...hostPlaces(target.platform, target.folders),
    ...named.map((dir) => userDataDirPlace(target.platform, dir, target.folders)),
  ];
}

/** The places a command acts on: the one asked for, else every browser this person has (or every one). */
async function chosenPlaces(target: HostTarget, onlyPresent: boolean): Promise<HostPlace[]> {
  if (target.userDataDir) {
    const resolve = target.platform === 'win32' ? path.win32.resolve : path.posix.resolve;
    return [userDataDirPlace(target.platform, resolve(target.userDataDir), target.folders)];
  }
  if (target.browser) return [browserPlace(target, target.browser)];
  if (!onlyPresent) return everyPlace(target);
  const places = hostPlaces(target.platform, target.folders);
  const present = await Promise.all(places.map(hasUserData));
  return places.filter((_, i) => present[i]);
}

function noBrowserFound(target: HostTarget): Error {
  const looked = hostPlaces(target.platform, target.folders).map((p) => `  ${p.label}: ${p.userDataDir}`);
  return new Error(
    `no Chromium-family browser found for this user: pass --browser NAME, or --user-data-dir DIR for a browser started with its own. Looked for:\n${looked.join('\n')}`,
  );
}

/** Writes the launcher Chrome runs into the home. */
async function writeLauncher(
  target: HostTarget & { node: string; bin: string; ports?: { relayPort?: number; controlPort?: number } },
): Promise<string> {
  await fs.mkdir(hostFolder(target.home), { recursive: true, mode: 0o700 });
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
  const launcher = launcherPath(target.home, target.platform);
  await fs.writeFile(launcher, script.text, { mode: 0o755 });
  await fs.chmod(launcher, 0o755);
  return launcher;
}

/** Registers the host at one place: its manifests (naming a Flatpak's wrapper there), or its keys. Answers what it wrote. */
async function registerAt(
  place: HostPlace,
  target: HostTarget,
  launcher: string,
  origins: readonly string[],
): Promise<string[]> {
  let runs = launcher;
  if (place.sandbox?.kind === 'flatpak') {
    runs = flatpakWrapperPath(place.sandbox.appId, target.folders.homedir);
    await fs.mkdir(path.dirname(runs), { recursive: true });
    await fs.writeFile(runs, flatpakWrapper(launcher), { mode: 0o755 });
    await fs.chmod(runs, 0o755);
  }
  const manifest = JSON.stringify(hostManifest(runs, origins), null, 2) + '\n';
  const written: string[] = [];
  for (const dir of place.manifestDirs) {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, MANIFEST_FILE), manifest, { mode: 0o644 });
    if (place.registryKeys.length === 0) written.push(path.join(dir, MANIFEST_FILE));
  }
  for (const key of place.registryKeys) {
    await (target.registry ?? regExe).write(key, path.join(place.manifestDirs[0]!, MANIFEST_FILE));
    written.push(key);
  }
  return written;
}

export interface InstalledPlace {
  place: HostPlace;
  /** The manifests written (on Windows, the registry keys). */
  written: string[];
  note?: PlaceNote;
}

export async function installNativeHost(
  target: HostTarget & {
    node: string;
    bin: string;
    extensionOrigins: readonly string[];
    /** The server's ports when the host starts one (`--relay-port 0`: free ones); the usual ones by default. */
    ports?: { relayPort?: number; controlPort?: number };
  },
): Promise<{ launcher: string; places: InstalledPlace[] }> {
  const places = await chosenPlaces(target, true);
  if (places.length === 0) throw noBrowserFound(target);
  const launcher = await writeLauncher(target);
  const done: InstalledPlace[] = [];
  for (const place of places) {
    const written = await registerAt(place, target, launcher, target.extensionOrigins);
    const note = await placeNote(place, target.folders);
    done.push({ place, written, ...(note ? { note } : {}) });
  }
  if (target.userDataDir) await rememberDir(target.home, places[0]!.userDataDir, true);
  return { launcher, places: done };
}

export interface UninstalledPlace {
  place: HostPlace;
  removed: string[];
  /** What another browser the person has reads too, left for it. */
  kept: Array<{ location: string; readers: string[] }>;
}

const isKey = (location: string) => location.startsWith('HKCU\\');

async function locationExists(location: string, target: HostTarget): Promise<boolean> {
  return isKey(location) ? (await (target.registry ?? regExe).read(location)) !== undefined : existsSync(location);
}

/** Removes one location: a registry key, or a file. Answers whether something was there. */
async function removeLocation(location: string, target: HostTarget): Promise<boolean> {
  if (isKey(location)) return (target.registry ?? regExe).remove(location);
  if (!existsSync(location)) return false;
  await fs.rm(location, { force: true });
  return true;
}

/**
 * Removes the manifests (registry keys, wrappers) of the chosen places; the launcher too when
 * removed from every browser. A place another browser the person has reads too (Google Chrome's
 * folder or key) is kept for it when only some browsers are asked for, and said.
 */
export async function uninstallNativeHost(target: HostTarget): Promise<UninstalledPlace[]> {
  const chosen = await chosenPlaces(target, false);
  const whole = !target.browser && !target.userDataDir;
  const others = whole ? [] : await otherPresentPlaces(target, chosen);
  const results: UninstalledPlace[] = [];
  for (const place of chosen) {
    const result: UninstalledPlace = { place, removed: [], kept: [] };
    for (const location of placeLocations(place, target.folders)) {
      const readers = others.filter((o) => placeLocations(o, target.folders).includes(location)).map((o) => o.label);
      if (readers.length > 0 && (await locationExists(location, target))) result.kept.push({ location, readers });
      else if (await removeLocation(location, target)) result.removed.push(location);
    }
    results.push(result);
  }
  if (target.userDataDir) await rememberDir(target.home, chosen[0]!.userDataDir, false);
  if (whole) await fs.rm(hostFolder(target.home), { recursive: true, force: true });
  return results;
}

/** The browsers the person has, and the folders named at install, besides the chosen ones. */
async function otherPresentPlaces(target: HostTarget, chosen: HostPlace[]): Promise<HostPlace[]> {
  const places = await everyPlace(target);
  const others = places.filter((p) => !chosen.some((c) => c.browser === p.browser && c.userDataDir === p.userDataDir));
  const present = await Promise.all(others.map(async (p) => p.browser === 'user-data-dir' || (await hasUserData(p))));
  return others.filter((_, i) => present[i]);
}

/** The target on this machine: its OS, the person's folders and variables, and the home's host folder. */
export function localHostTarget(home: string, options: { browser?: string; userDataDir?: string }): HostTarget {
  const platform: HostPlatform =
    process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux';
  const { LOCALAPPDATA, APPDATA, CHROME_CONFIG_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME } = process.env;
  return {
    home,
    platform,
    folders: {
      homedir: os.homedir(),
      ...(LOCALAPPDATA ? { localAppData: LOCALAPPDATA } : {}),
      ...(APPDATA ? { appData: APPDATA } : {}),
      env: { CHROME_CONFIG_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME },
      clawdManifestDir: hostFolder(home),
    },
    ...options,
  };
}
