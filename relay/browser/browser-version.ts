// A browser's version without starting it where starting it would show the person something:
// on Windows `chrome.exe --version` opens a browser window (it has no console mode), so the
// version is the name of the folder Chrome keeps beside its exe (Application\156.0.8078.108\); on
// macOS the app's Contents/Info.plist says it. Linux browsers print it and exit. The rules are
// pure (platform, file names and texts passed in) so each is tested on every OS.

import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export type VersionPlatform = 'linux' | 'darwin' | 'win32';

/** Where a platform's version comes from for this executable. */
export function versionSource(
  platform: VersionPlatform,
  executable: string,
): { kind: 'folder'; dir: string } | { kind: 'plist'; file: string } | { kind: 'run' } {
  if (platform === 'win32') return { kind: 'folder', dir: path.win32.dirname(executable) };
  if (platform === 'darwin') {
    // …/Google Chrome.app/Contents/MacOS/Google Chrome → …/Google Chrome.app/Contents/Info.plist
    const macOs = path.posix.dirname(executable);
    if (path.posix.basename(macOs) === 'MacOS')
      return { kind: 'plist', file: path.posix.join(path.posix.dirname(macOs), 'Info.plist') };
  }
  return { kind: 'run' };
}

/** The product's name by its exe on Windows (chrome.exe is Chrome or Chromium: its folder says which). */
export function windowsProduct(executable: string): string {
  const exe = path.win32.basename(executable).toLowerCase();
  if (exe === 'msedge.exe') return 'Microsoft Edge';
  if (exe === 'brave.exe') return 'Brave';
  return /\\chromium\\/i.test(executable) ? 'Chromium' : 'Google Chrome';
}

/** "Google Chrome 156" from the names in the exe's folder: the highest dotted version among them. */
export function versionFromFolder(names: readonly string[], product: string): string | undefined {
  const versions = names
    .filter((n) => /^\d+\.\d+\.\d+\.\d+$/.test(n))
    .map((n) => n.split('.').map(Number))
    .sort((a, b) => a.reduce((d, x, i) => d || x - b[i]!, 0));
  const newest = versions.at(-1);
  return newest ? `${product} ${newest[0]}` : undefined;
}

/** "Google Chrome 156" from an app's Info.plist (its name and CFBundleShortVersionString). */
export function versionFromPlist(plist: string): string | undefined {
  const value = (key: string) => plist.match(new RegExp(`<key>${key}</key>\\s*<string>([^<]*)</string>`))?.[1];
  const version = value('CFBundleShortVersionString')?.match(/^(\d+)\./)?.[1];
  const name = value('CFBundleName') ?? value('CFBundleDisplayName');
  return version && name ? `${name} ${version}` : undefined;
}

/** "Chromium 156" from `--version`'s output (Debian's wrapper prints a warning line first). */
export function versionFromOutput(stdout: string): string | undefined {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /\d+\.\d+/.test(l));
  const match = line?.match(/^(.*?)\s+(\d+)\.[\d.]+/);
  return match ? `${match[1]} ${match[2]}` : undefined;
}

const versions = new Map<string, Promise<string | undefined>>();

/** The executable's product and major version, cached per path; undefined if it cannot be read in 5 s. */
export function browserVersion(
  executable: string,
  platform: VersionPlatform = process.platform === 'win32' || process.platform === 'darwin'
    ? process.platform
    : 'linux',
): Promise<string | undefined> {
  let version = versions.get(executable);
  if (!version) {
    const source = versionSource(platform, executable);
    version =
      source.kind === 'folder'
        ? fs.readdir(source.dir).then(
            (names) => versionFromFolder(names, windowsProduct(executable)),
            () => undefined,
          )
        : source.kind === 'plist'
          ? fs.readFile(source.file, 'utf8').then(versionFromPlist, () => undefined)
          : new Promise((resolve) =>
              execFile(executable, ['--version'], { timeout: 5_000 }, (_error, stdout) =>
                resolve(versionFromOutput(stdout ?? '')),
              ),
            );
    versions.set(executable, version);
  }
  return version;
}
