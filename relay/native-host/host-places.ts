// Where each browser looks for a native messaging host, by operating system: the rows of
// browser-table.ts resolved for one person's folders, with the platform and its folders passed in
// so every OS's rule is tested on every OS. Linux and macOS read a manifest file in folders of
// the browser's user data (so `--user-data-dir DIR` reads DIR/NativeMessagingHosts); Windows
// reads registry keys that name the manifest's path. Also the manifest and the launcher it names.

import path from 'node:path';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';
import { BROWSER_ROWS, CHROME_KEY, type BrowserRow, type FolderRule, type HostPlatform } from './browser-table';

export type { HostPlatform } from './browser-table';

/** A browser in a sandbox: it reads its folders, but runs a host only as far as the sandbox lets it. */
export type HostSandbox = { kind: 'snap'; name: string } | { kind: 'flatpak'; appId: string };

/** One browser's places for hosts: manifest folders (Linux, macOS) or registry keys (Windows). */
export interface HostPlace {
  /** The row's id (browser-table.ts), or 'user-data-dir' for a browser named by its folder. */
  browser: string;
  label: string;
  /** The browser's user data folder: there (with something in it) when the person has the browser. */
  userDataDir: string;
  /** Every folder the manifest goes in (on Windows, clawd's own: the keys point to it). */
  manifestDirs: string[];
  /** Windows: the HKCU keys whose default value is the manifest's path. */
  registryKeys: string[];
  sandbox?: HostSandbox;
}

/** The person's folders and variables the rules need. */
export interface PlatformFolders {
  homedir: string;
  /** Windows: %LOCALAPPDATA% and %APPDATA% (default: under the home's AppData). */
  localAppData?: string;
  appData?: string;
  /** Linux: what moves ~/.config (an empty value counts as unset) and ~/.local/share (Flatpak's files). */
  env?: { CHROME_CONFIG_HOME?: string; XDG_CONFIG_HOME?: string; XDG_DATA_HOME?: string };
  /** Where Flatpak keeps system-wide apps and overrides (default /var/lib/flatpak). */
  flatpakSystemDir?: string;
  /** Where clawd keeps the manifest on Windows (the home's native-host folder). */
  clawdManifestDir: string;
}

/**
 * Linux's config root [docs]: $CHROME_CONFIG_HOME, else $XDG_CONFIG_HOME, else ~/.config. Upstream
 * applies it to every build that keeps its user data code, so to the forks too (unverified for them).
 */
export function linuxConfigRoot(folders: PlatformFolders): string {
  const { CHROME_CONFIG_HOME, XDG_CONFIG_HOME } = folders.env ?? {};
  return CHROME_CONFIG_HOME || XDG_CONFIG_HOME || path.posix.join(folders.homedir, '.config');
}

export function registryKey(key: string): string {
  return `HKCU\\Software\\${key}\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`;
}

/** The browsers clawd knows on this platform. */
export function platformRows(platform: HostPlatform): BrowserRow[] {
  return BROWSER_ROWS.filter((row) => row[platform] !== undefined);
}

function folderPlace(row: BrowserRow, rule: FolderRule, folders: PlatformFolders): HostPlace {
  const p = path.posix;
  const base =
    rule.base === 'config'
      ? linuxConfigRoot(folders)
      : rule.base === 'support'
        ? p.join(folders.homedir, 'Library', 'Application Support')
        : folders.homedir;
  const userDataDir = p.join(base, ...rule.dir);
  const place: HostPlace = {
    browser: row.id,
    label: row.label,
    userDataDir,
    manifestDirs: [userDataDir, ...(rule.alsoReads ?? []).map((dir) => p.join(base, ...dir))].map((dir) =>
      p.join(dir, 'NativeMessagingHosts'),
    ),
    registryKeys: [],
  };
  if (rule.sandbox) place.sandbox = rule.sandbox;
  return place;
}

/** Every known browser's place on `platform` (installed or not: the caller looks). */
export function hostPlaces(platform: HostPlatform, folders: PlatformFolders): HostPlace[] {
  return platformRows(platform).map((row) => {
    if (platform !== 'win32') return folderPlace(row, row[platform]!, folders);
    const rule = row.win32!;
    const w = path.win32;
    const local = folders.localAppData ?? w.join(folders.homedir, 'AppData', 'Local');
    const roaming = folders.appData ?? w.join(folders.homedir, 'AppData', 'Roaming');
    return {
      browser: row.id,
      label: row.label,
      userDataDir: w.join(rule.base === 'local' ? local : roaming, ...rule.dir),
      manifestDirs: [folders.clawdManifestDir],
      registryKeys: rule.keys.map(registryKey),
    };
  });
}

/** A Snap's or a Flatpak's folder, told by where it is under the person's home. */
export function sandboxOfFolder(folder: string, homedir: string): HostSandbox | undefined {
  const parts = path.posix.relative(homedir, folder).split('/');
  if (parts[0] === 'snap' && parts[1]) return { kind: 'snap', name: parts[1] };
  if (parts[0] === '.var' && parts[1] === 'app' && parts[2]) return { kind: 'flatpak', appId: parts[2] };
  return undefined;
}

/**
 * The place for a browser started with `--user-data-dir DIR`, whatever it is: Linux and macOS
 * read hosts from DIR/NativeMessagingHosts (a Snap's or a Flatpak's folder is told by its path).
 * Windows reads no folder: Chromium's and Chrome's keys, which every Chromium build reads [src].
 */
export function userDataDirPlace(platform: HostPlatform, userDataDir: string, folders: PlatformFolders): HostPlace {
  const place: HostPlace = {
    browser: 'user-data-dir',
    label: `the browser of ${userDataDir}`,
    userDataDir,
    manifestDirs: [
      platform === 'win32' ? folders.clawdManifestDir : path.posix.join(userDataDir, 'NativeMessagingHosts'),
    ],
    registryKeys: platform === 'win32' ? ['Chromium', CHROME_KEY].map(registryKey) : [],
  };
  const sandbox = platform === 'linux' ? sandboxOfFolder(userDataDir, folders.homedir) : undefined;
  if (sandbox) place.sandbox = sandbox;
  return place;
}

/** The host manifest Chrome reads: the launcher's absolute path and the one extension it answers. */
export function hostManifest(launcherPath: string, extensionOrigins: readonly string[]): Record<string, unknown> {
  return {
    name: NATIVE_HOST_NAME,
    description: 'clawd-browser: starts the clawd server for the extension and tells it where it is',
    path: launcherPath,
    type: 'stdio',
    allowed_origins: extensionOrigins.map((origin) => `${origin.replace(/\/$/, '')}/`),
  };
}

/** Quotes a word for POSIX sh (single quotes; a single quote inside closed, escaped, reopened). */
export function shQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quotes a word for cmd.exe (double quotes; cmd has no escape for a double quote in a path, and paths hold none). */
function cmdQuote(word: string): string {
  return `"${word.replace(/%/g, '%%')}"`;
}

/**
 * The launcher Chrome runs (a manifest's `path` cannot carry arguments): Node, the bin, the
 * `native-host` command, the home it was installed for and the ports asked for at install. Chrome's own arguments (the caller's
 * origin, on Windows its window) are not passed on: Chrome already checked the origin.
 */
export function launcherScript(
  platform: HostPlatform,
  command: { node: string; bin: string; home: string; args?: readonly string[] },
): { fileName: string; text: string } {
  const words = [command.node, command.bin, 'native-host', '--home', command.home, ...(command.args ?? [])];
  if (platform === 'win32')
    return { fileName: 'clawd-native-host.bat', text: `@echo off\r\n${words.map(cmdQuote).join(' ')}\r\n` };
  return { fileName: 'clawd-native-host.sh', text: `#!/bin/sh\nexec ${words.map(shQuote).join(' ')}\n` };
}
