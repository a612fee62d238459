// The rules that differ by operating system, each a function with the platform passed in, so
// every OS's rule runs here whatever OS runs the tests (docs/architecture.md says what is also
// proven on a real machine of each OS).

import { describe, expect, it } from 'vitest';
import {
  versionFromFolder,
  versionFromOutput,
  versionFromPlist,
  versionSource,
  windowsProduct,
} from '../../relay/browser/browser-version';
import { headedPdfError } from '../../relay/agent/agent-errors';
import { snapProblem } from '../../relay/browser/executable';
import { decideLaunch, launchArgs } from '../../relay/browser/launch-args';
import { processListCommand, usesUserDataDir } from '../../relay/browser/processes';
import { defaultBrowserConfig } from '../../relay/home/config-schema';

describe("a browser's version, never by starting a browser that would show a window", () => {
  it('Windows: the version folder beside the exe names it (running chrome.exe --version opens a window)', () => {
    const exe = 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe';
    expect(versionSource('win32', exe)).toEqual({
      kind: 'folder',
      dir: 'C:\\Program Files\\Google\\Chrome\\Application',
    });
    expect(
      versionFromFolder(
        ['chrome.exe', '155.0.7999.12', '156.0.8078.108', 'SetupMetrics', 'chrome_proxy.exe'],
        windowsProduct(exe),
      ),
    ).toBe('Google Chrome 156');
    expect(versionFromFolder(['chrome.exe'], 'Google Chrome')).toBeUndefined();
    expect(windowsProduct('C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe')).toBe('Microsoft Edge');
    expect(windowsProduct('C:\\Users\\a\\AppData\\Local\\Chromium\\Application\\chrome.exe')).toBe('Chromium');
    expect(windowsProduct('C:\\BraveSoftware\\Brave-Browser\\Application\\brave.exe')).toBe('Brave');
  });

  it("macOS: the app's Info.plist", () => {
    const exe = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    expect(versionSource('darwin', exe)).toEqual({
      kind: 'plist',
      file: '/Applications/Google Chrome.app/Contents/Info.plist',
    });
    const plist = `<?xml version="1.0"?><plist version="1.0"><dict>
  <key>CFBundleName</key>
  <string>Chrome</string>
  <key>CFBundleShortVersionString</key>
  <string>156.0.8078.108</string>
</dict></plist>`;
    expect(versionFromPlist(plist)).toBe('Chrome 156');
    expect(versionFromPlist('<plist/>')).toBeUndefined();
    // A binary somewhere else on macOS is asked, as on Linux.
    expect(versionSource('darwin', '/opt/homebrew/bin/chromium')).toEqual({ kind: 'run' });
  });

  it('Linux: `--version`, past the warning line a wrapper prints first', () => {
    expect(versionSource('linux', '/usr/bin/chromium')).toEqual({ kind: 'run' });
    expect(versionFromOutput('[WARNING] something\nChromium 156.0.8078.108 built on Debian GNU/Linux 12\n')).toBe(
      'Chromium 156',
    );
    expect(versionFromOutput('Google Chrome 156.0.8078.108 \n')).toBe('Google Chrome 156');
    expect(versionFromOutput('')).toBeUndefined();
  });
});

describe("a profile's browser processes, by the user data dir on their command line", () => {
  const dir = 'C:\\Users\\Ann Ödön\\.clawd\\profiles\\clawd\\user-data';

  it('Windows: quoted as Windows quotes an argument with spaces, with non-ASCII letters, read as UTF-8', () => {
    expect(usesUserDataDir(`"C:\\chrome.exe" "--user-data-dir=${dir}" --remote-debugging-port=18800`, dir)).toBe(true);
    expect(usesUserDataDir(`chrome.exe --user-data-dir="${dir}" --type=renderer`, dir)).toBe(true);
    expect(usesUserDataDir(`"C:\\chrome.exe" "--user-data-dir=${dir}-2"`, dir)).toBe(false);
    const list = processListCommand('win32');
    expect(list.file).toBe('powershell.exe');
    expect(list.args.join(' ')).toContain('[Console]::OutputEncoding = [System.Text.Encoding]::UTF8');
  });

  it('Linux and macOS: a word of its own (ps prints arguments unquoted), and not a longer dir that starts the same', () => {
    const posix = '/home/ann/my clawd/profiles/clawd/user-data';
    expect(usesUserDataDir(`/usr/bin/chromium --user-data-dir=${posix} --remote-debugging-port=18800`, posix)).toBe(
      true,
    );
    expect(usesUserDataDir(`/usr/bin/chromium --user-data-dir=${posix}`, posix)).toBe(true);
    expect(usesUserDataDir(`/usr/bin/chromium --user-data-dir=${posix}-2 --x`, posix)).toBe(false);
    for (const platform of ['linux', 'darwin'] as const) expect(processListCommand(platform).file).toBe('ps');
  });
});

describe('managed profiles on every OS', () => {
  it('are headless by default everywhere (the config says so, not the OS)', () => {
    const config = defaultBrowserConfig();
    expect(config.headless).toBe(true);
    for (const platform of ['linux', 'darwin', 'win32'] as const)
      expect(decideLaunch(config, platform, { DISPLAY: ':0' }, 501)).toMatchObject({
        headless: true,
        headlessReason: 'config',
      });
  });

  it('use a mock keychain on macOS only (no keychain prompt for a profile of our own)', () => {
    const args = (platform: NodeJS.Platform) =>
      launchArgs({
        userDataDir: '/u',
        cdpPort: 18800,
        choice: { headless: true, noSandbox: false },
        extraArgs: [],
        platform,
      });
    expect(args('darwin')).toContain('--use-mock-keychain');
    expect(args('linux')).not.toContain('--use-mock-keychain');
    expect(args('win32')).not.toContain('--use-mock-keychain');
  });

  it("Ubuntu's Snap Chromium with a home in a hidden folder is said, with the fix", () => {
    expect(snapProblem('/snap/bin/chromium', '/home/ann/.clawd', '/home/ann')).toMatch(
      /Snap, which cannot use the hidden folder \/home\/ann\/\.clawd .* CLAWD_HOME .*\/home\/ann\/clawd/,
    );
    expect(snapProblem('/snap/bin/chromium', '/home/ann/clawd', '/home/ann')).toBeUndefined();
    expect(snapProblem('/usr/bin/chromium', '/home/ann/.clawd', '/home/ann')).toBeUndefined();
  });

  it('a pdf a headed browser cannot print names the setting; any other failure is not taken for it', () => {
    expect(
      headedPdfError(new Error('Protocol error (Page.printToPDF): PrintToPDF is not implemented'), 'clawd'),
    ).toMatchObject({
      code: 'unsupported',
      message: expect.stringContaining('"headless": true in the browser section of config.json'),
    });
    expect(headedPdfError(new Error('Target closed'), 'clawd')).toBeUndefined();
  });
});
