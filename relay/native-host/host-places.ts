// Where each browser looks for a native messaging host, by operating system: pure rules with the
// platform and its folders passed in, so every OS's rule is tested on every OS. Linux and macOS
// read a manifest file in a folder of the browser's user data (so `--user-data-dir DIR` reads
// DIR/NativeMessagingHosts); Windows reads a registry key that names the manifest's path.

import path from 'node:path';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';

export type HostPlatform = 'linux' | 'darwin' | 'win32';

export const BROWSERS = ['chrome', 'chromium', 'edge', 'brave'] as const;
export type BrowserName = (typeof BROWSERS)[number];

export const BROWSER_LABELS: Record<BrowserName, string> = {
  chrome: 'Google Chrome',
  chromium: 'Chromium',
  edge: 'Microsoft Edge',
  brave: 'Brave',
};

/** A browser's place for hosts: the manifest's folder (Linux, macOS) or its registry key (Windows). */
export interface HostPlace {
  browser: BrowserName | 'user-data-dir';
  /** The browser's user data folder: present when the browser is installed for this person. */
  userDataDir: string;
  /** Where the manifest goes (on Windows, clawd keeps it in its home; the key points to it). */
  manifestDir: string;
  /** Windows: HKCU key whose default value is the manifest's path. */
  registryKey?: string;
}

/** The person's folders a rule needs (os.homedir(); on Windows %LOCALAPPDATA%). */
export interface PlatformFolders {
  homedir: string;
  localAppData?: string;
  /** Where clawd keeps the manifest on Windows (the home's native-host folder). */
  clawdManifestDir: string;
}

const LINUX_DIRS: Record<BrowserName, string[]> = {
  chrome: ['.config', 'google-chrome'],
  chromium: ['.config', 'chromium'],
  edge: ['.config', 'microsoft-edge'],
  brave: ['.config', 'BraveSoftware', 'Brave-Browser'],
};

const MAC_DIRS: Record<BrowserName, string[]> = {
  chrome: ['Library', 'Application Support', 'Google', 'Chrome'],
  chromium: ['Library', 'Application Support', 'Chromium'],
  edge: ['Library', 'Application Support', 'Microsoft Edge'],
  brave: ['Library', 'Application Support', 'BraveSoftware', 'Brave-Browser'],
};

/** Windows: the user data folder under %LOCALAPPDATA%, and the vendor's registry path. */
const WINDOWS: Record<BrowserName, { dir: string[]; key: string }> = {
  chrome: { dir: ['Google', 'Chrome', 'User Data'], key: 'Software\\Google\\Chrome' },
  chromium: { dir: ['Chromium', 'User Data'], key: 'Software\\Chromium' },
  edge: { dir: ['Microsoft', 'Edge', 'User Data'], key: 'Software\\Microsoft\\Edge' },
  brave: { dir: ['BraveSoftware', 'Brave-Browser', 'User Data'], key: 'Software\\BraveSoftware\\Brave-Browser' },
};

/** Every known browser's place on `platform` (installed or not: the caller looks). */
export function hostPlaces(platform: HostPlatform, folders: PlatformFolders): HostPlace[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  return BROWSERS.map((browser) => {
    if (platform === 'win32') {
      const { dir, key } = WINDOWS[browser];
      const base = folders.localAppData ?? p.join(folders.homedir, 'AppData', 'Local');
      return {
        browser,
        userDataDir: p.join(base, ...dir),
        manifestDir: folders.clawdManifestDir,
        registryKey: `HKCU\\${key}\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`,
      };
    }
    const userDataDir = p.join(folders.homedir, ...(platform === 'darwin' ? MAC_DIRS : LINUX_DIRS)[browser]);
    return { browser, userDataDir, manifestDir: p.join(userDataDir, 'NativeMessagingHosts') };
  });
}

/**
 * The place for a browser started with `--user-data-dir DIR` (Linux and macOS read hosts from
 * DIR/NativeMessagingHosts). Windows has no per-folder place: the registry key is per browser.
 */
export function userDataDirPlace(platform: HostPlatform, userDataDir: string): HostPlace {
  if (platform === 'win32')
    throw new Error(
      'on Windows, browsers find native hosts through the registry, not their user data folder: use --browser',
    );
  return {
    browser: 'user-data-dir',
    userDataDir,
    manifestDir: path.posix.join(userDataDir, 'NativeMessagingHosts'),
  };
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
function shQuote(word: string): string {
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
