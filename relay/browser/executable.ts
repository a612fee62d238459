// Which Chromium-family browser a managed profile runs: the configured path, then
// $CLAWD_CHROME_PATH, then the first installed of Canary, Chromium, Chrome, Brave, Edge (spec:
// Canary and Chromium first, they are easy to tell from the user's daily Chrome). Google-branded
// Chrome 137+ ignores --load-extension, which only matters for the extension, not for us here.

import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClawdError } from '../errors';

export interface Executable {
  path: string;
  /** Where it came from: config, env, or the detected product name. */
  source: string;
}

/** Candidate paths in order of preference, for a platform. */
export function candidates(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Array<{ name: string; path: string }> {
  const home = os.homedir();
  if (platform === 'darwin') {
    const apps = [
      ['Chrome Canary', 'Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary'],
      ['Chromium', 'Chromium.app/Contents/MacOS/Chromium'],
      ['Chrome', 'Google Chrome.app/Contents/MacOS/Google Chrome'],
      ['Brave', 'Brave Browser.app/Contents/MacOS/Brave Browser'],
      ['Edge', 'Microsoft Edge.app/Contents/MacOS/Microsoft Edge'],
    ] as const;
    return apps.flatMap(([name, rel]) => [
      { name, path: path.join('/Applications', rel) },
      { name, path: path.join(home, 'Applications', rel) },
    ]);
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)']].filter((r): r is string => !!r);
    const apps = [
      ['Chrome Canary', 'Google/Chrome SxS/Application/chrome.exe'],
      ['Chromium', 'Chromium/Application/chrome.exe'],
      ['Chrome', 'Google/Chrome/Application/chrome.exe'],
      ['Brave', 'BraveSoftware/Brave-Browser/Application/brave.exe'],
      ['Edge', 'Microsoft/Edge/Application/msedge.exe'],
    ] as const;
    return apps.flatMap(([name, rel]) => roots.map((root) => ({ name, path: path.win32.join(root, rel) })));
  }
  const names = [
    ['Chrome Canary', 'google-chrome-canary'],
    ['Chromium', 'chromium'],
    ['Chromium', 'chromium-browser'],
    ['Chrome', 'google-chrome'],
    ['Chrome', 'google-chrome-stable'],
    ['Brave', 'brave-browser'],
    ['Edge', 'microsoft-edge'],
  ] as const;
  return names.flatMap(([name, bin]) =>
    ['/usr/bin', '/usr/local/bin', '/snap/bin', '/opt/google/chrome'].map((dir) => ({
      name,
      path: path.join(dir, bin),
    })),
  );
}

export function findExecutable(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  exists: (p: string) => boolean = existsSync,
): Executable {
  if (configured) {
    if (!exists(configured))
      throw new ClawdError(
        'executable_not_found',
        `browser.executablePath ${JSON.stringify(configured)} does not exist: fix it in config.json or remove it to detect one`,
      );
    return { path: configured, source: 'config' };
  }
  if (env.CLAWD_CHROME_PATH) {
    if (!exists(env.CLAWD_CHROME_PATH))
      throw new ClawdError(
        'executable_not_found',
        `CLAWD_CHROME_PATH ${JSON.stringify(env.CLAWD_CHROME_PATH)} does not exist`,
      );
    return { path: env.CLAWD_CHROME_PATH, source: 'CLAWD_CHROME_PATH' };
  }
  const found = candidates(process.platform, env).find((c) => exists(c.path));
  if (!found) {
    throw new ClawdError(
      'executable_not_found',
      'No Chrome-family browser found (looked for Chrome Canary, Chromium, Chrome, Brave, Edge). Install one (Linux: apt-get install chromium) or set browser.executablePath / CLAWD_CHROME_PATH',
    );
  }
  return { path: found.path, source: found.name };
}

/**
 * Ubuntu's Snap Chromium is confined: it cannot read or write a hidden folder of the person's
 * home, so a managed profile's user data under ~/.clawd fails to start. Said with the fix, when
 * the executable is a snap's and a folder on the way to the home's profiles is hidden.
 */
export function snapProblem(executable: string, home: string, homedir: string = os.homedir()): string | undefined {
  if (!executable.startsWith('/snap/')) return undefined;
  const relative = path.posix.relative(homedir, home);
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) return undefined;
  if (!relative.split('/').some((part) => part.startsWith('.'))) return undefined;
  return `${executable} is a Snap, which cannot use the hidden folder ${home} for its profiles: set CLAWD_HOME to a folder that is not hidden (e.g. ${path.posix.join(homedir, 'clawd')}), or install Chromium from a .deb, or set browser.executablePath to another browser`;
}
