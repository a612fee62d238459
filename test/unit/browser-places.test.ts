// Every browser's place on every OS, asked of the rules with the platform and a made-up person's
// folders (no real home is read): where its user data is (how clawd tells it is installed) and
// every folder or registry key it reads a native messaging host from.

import { describe, expect, it } from 'vitest';
import {
  hostPlaces,
  linuxConfigRoot,
  sandboxOfFolder,
  userDataDirPlace,
  type HostPlace,
} from '../../relay/native-host/host-places';

const LINUX = { homedir: '/home/ann', clawdManifestDir: '/home/ann/.clawd/native-host' };
const MAC = { homedir: '/Users/ann', clawdManifestDir: '/Users/ann/.clawd/native-host' };
const WINDOWS = {
  homedir: 'C:\\Users\\Ann Ödön',
  localAppData: 'D:\\Local',
  appData: 'D:\\Roaming',
  clawdManifestDir: 'C:\\Users\\Ann Ödön\\.clawd\\native-host',
};

/** A place as [id, user data folder, the folders it reads hosts from, relative to that folder's parent base]. */
const folders = (places: HostPlace[], base: string) =>
  places.map((p) => [
    p.browser,
    p.userDataDir.slice(base.length),
    p.manifestDirs.map((d) => d.slice(base.length)),
    p.sandbox ?? null,
  ]);

describe('where each browser reads native hosts on Linux', () => {
  it('under ~/.config: Chrome’s channels, Chromium, Edge’s channels, Brave, Vivaldi, Opera (and Chrome’s folder for Opera)', () => {
    const places = hostPlaces('linux', LINUX).filter((p) => !p.sandbox);
    const own = (dir: string) => [`/${dir}`, [`/${dir}/NativeMessagingHosts`], null];
    expect(folders(places, '/home/ann/.config')).toEqual([
      ['chrome', ...own('google-chrome')],
      ['chrome-beta', ...own('google-chrome-beta')],
      ['chrome-dev', ...own('google-chrome-unstable')],
      ['chrome-canary', ...own('google-chrome-canary')],
      ['chromium', ...own('chromium')],
      ['edge', ...own('microsoft-edge')],
      ['edge-beta', ...own('microsoft-edge-beta')],
      ['edge-dev', ...own('microsoft-edge-dev')],
      ['brave', ...own('BraveSoftware/Brave-Browser')],
      ['vivaldi', ...own('vivaldi')],
      ['opera', '/opera', ['/opera/NativeMessagingHosts', '/google-chrome/NativeMessagingHosts'], null],
    ]);
    expect(places.every((p) => p.registryKeys.length === 0)).toBe(true);
  });

  it('Snap Chromium in the snap’s common folder; each Flatpak in its app’s own config folder', () => {
    const places = hostPlaces('linux', LINUX).filter((p) => p.sandbox);
    const flatpak = (appId: string, dir: string, also: string[] = []) => [
      `/.var/app/${appId}/config/${dir}`,
      [dir, ...also].map((d) => `/.var/app/${appId}/config/${d}/NativeMessagingHosts`),
      { kind: 'flatpak', appId },
    ];
    expect(folders(places, '/home/ann')).toEqual([
      ['chrome-flatpak', ...flatpak('com.google.Chrome', 'google-chrome')],
      [
        'chromium-snap',
        '/snap/chromium/common/chromium',
        ['/snap/chromium/common/chromium/NativeMessagingHosts'],
        { kind: 'snap', name: 'chromium' },
      ],
      ['chromium-flatpak', ...flatpak('org.chromium.Chromium', 'chromium')],
      ['edge-flatpak', ...flatpak('com.microsoft.Edge', 'microsoft-edge')],
      ['brave-flatpak', ...flatpak('com.brave.Browser', 'BraveSoftware/Brave-Browser')],
      ['vivaldi-flatpak', ...flatpak('com.vivaldi.Vivaldi', 'vivaldi')],
      ['opera-flatpak', ...flatpak('com.opera.Opera', 'opera', ['google-chrome'])],
    ]);
  });

  it('~/.config moves with $CHROME_CONFIG_HOME, else $XDG_CONFIG_HOME; an empty one counts as unset; a sandbox’s does not move', () => {
    expect(linuxConfigRoot(LINUX)).toBe('/home/ann/.config');
    expect(linuxConfigRoot({ ...LINUX, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg');
    expect(linuxConfigRoot({ ...LINUX, env: { XDG_CONFIG_HOME: '/xdg', CHROME_CONFIG_HOME: '/cch' } })).toBe('/cch');
    expect(linuxConfigRoot({ ...LINUX, env: { XDG_CONFIG_HOME: '', CHROME_CONFIG_HOME: '' } })).toBe(
      '/home/ann/.config',
    );
    const moved = hostPlaces('linux', { ...LINUX, env: { XDG_CONFIG_HOME: '/xdg' } });
    expect(moved.find((p) => p.browser === 'vivaldi')!.manifestDirs).toEqual(['/xdg/vivaldi/NativeMessagingHosts']);
    expect(moved.find((p) => p.browser === 'chromium-snap')!.userDataDir).toBe(
      '/home/ann/snap/chromium/common/chromium',
    );
  });

  it('Arc and Dia are not Linux browsers', () => {
    expect(hostPlaces('linux', LINUX).map((p) => p.browser)).not.toEqual(expect.arrayContaining(['arc']));
    expect(hostPlaces('linux', LINUX).some((p) => p.browser === 'dia' || p.browser === 'edge-canary')).toBe(false);
  });
});

describe('where each browser reads native hosts on macOS', () => {
  it('in ~/Library/Application Support; Brave, Opera and Arc also in Google Chrome’s folder', () => {
    const support = '/Users/ann/Library/Application Support';
    const own = (dir: string, also: string[] = []) => [
      `/${dir}`,
      [dir, ...also].map((d) => `/${d}/NativeMessagingHosts`),
      null,
    ];
    expect(folders(hostPlaces('darwin', MAC), support)).toEqual([
      ['chrome', ...own('Google/Chrome')],
      ['chrome-beta', ...own('Google/Chrome Beta')],
      ['chrome-dev', ...own('Google/Chrome Dev')],
      ['chrome-canary', ...own('Google/Chrome Canary')],
      ['chromium', ...own('Chromium')],
      ['edge', ...own('Microsoft Edge')],
      ['edge-beta', ...own('Microsoft Edge Beta')],
      ['edge-dev', ...own('Microsoft Edge Dev')],
      ['edge-canary', ...own('Microsoft Edge Canary')],
      ['brave', ...own('BraveSoftware/Brave-Browser', ['Google/Chrome'])],
      ['vivaldi', ...own('Vivaldi')],
      ['opera', ...own('com.operasoftware.Opera', ['Google/Chrome'])],
      ['arc', ...own('Arc/User Data', ['Google/Chrome'])],
      ['dia', ...own('Dia/User Data')],
    ]);
  });
});

describe('where each browser reads native hosts on Windows', () => {
  it('a user data folder to tell it is installed, and the HKCU keys it reads, each naming the manifest clawd keeps', () => {
    const places = hostPlaces('win32', WINDOWS);
    const key = (vendor: string) => `HKCU\\Software\\${vendor}\\NativeMessagingHosts\\com.clawd.browser`;
    const chrome = key('Google\\Chrome');
    expect(places.map((p) => [p.browser, p.userDataDir, p.registryKeys])).toEqual([
      ['chrome', 'D:\\Local\\Google\\Chrome\\User Data', [chrome]],
      ['chrome-beta', 'D:\\Local\\Google\\Chrome Beta\\User Data', [chrome]],
      ['chrome-dev', 'D:\\Local\\Google\\Chrome Dev\\User Data', [chrome]],
      ['chrome-canary', 'D:\\Local\\Google\\Chrome SxS\\User Data', [chrome]],
      ['chromium', 'D:\\Local\\Chromium\\User Data', [key('Chromium'), chrome]],
      ['edge', 'D:\\Local\\Microsoft\\Edge\\User Data', [key('Microsoft\\Edge')]],
      ['edge-beta', 'D:\\Local\\Microsoft\\Edge Beta\\User Data', [key('Microsoft\\Edge')]],
      ['edge-dev', 'D:\\Local\\Microsoft\\Edge Dev\\User Data', [key('Microsoft\\Edge')]],
      ['edge-canary', 'D:\\Local\\Microsoft\\Edge SxS\\User Data', [key('Microsoft\\Edge')]],
      ['brave', 'D:\\Local\\BraveSoftware\\Brave-Browser\\User Data', [chrome, key('BraveSoftware\\Brave-Browser')]],
      ['vivaldi', 'D:\\Local\\Vivaldi\\User Data', [chrome]],
      ['opera', 'D:\\Roaming\\Opera Software\\Opera Stable', [chrome]],
      ['arc', 'D:\\Local\\Packages\\TheBrowserCompany.Arc_ttt1ap7aakyb4\\LocalCache\\Local\\Arc\\User Data', [chrome]],
    ]);
    expect(places.every((p) => p.manifestDirs.join() === WINDOWS.clawdManifestDir)).toBe(true);
  });

  it('without %LOCALAPPDATA% and %APPDATA%, their usual folders under the home', () => {
    const places = hostPlaces('win32', { homedir: 'C:\\Users\\Ann', clawdManifestDir: 'C:\\h' });
    expect(places.find((p) => p.browser === 'chrome')!.userDataDir).toBe(
      'C:\\Users\\Ann\\AppData\\Local\\Google\\Chrome\\User Data',
    );
    expect(places.find((p) => p.browser === 'opera')!.userDataDir).toBe(
      'C:\\Users\\Ann\\AppData\\Roaming\\Opera Software\\Opera Stable',
    );
  });
});

describe('a browser named by its user data folder, whatever it is', () => {
  it('Linux and macOS: DIR/NativeMessagingHosts; a Snap’s or a Flatpak’s folder is told by its path', () => {
    expect(userDataDirPlace('darwin', '/tmp/b', MAC)).toMatchObject({
      browser: 'user-data-dir',
      label: 'the browser of /tmp/b',
      manifestDirs: ['/tmp/b/NativeMessagingHosts'],
      registryKeys: [],
    });
    expect(userDataDirPlace('linux', '/tmp/b', LINUX).sandbox).toBeUndefined();
    expect(
      userDataDirPlace('linux', '/home/ann/.var/app/io.github.ungoogled_software.ungoogled_chromium/config/u', LINUX)
        .sandbox,
    ).toEqual({
      kind: 'flatpak',
      appId: 'io.github.ungoogled_software.ungoogled_chromium',
    });
    expect(
      userDataDirPlace('linux', '/home/ann/snap/brave/current/.config/BraveSoftware/Brave-Browser', LINUX).sandbox,
    ).toEqual({
      kind: 'snap',
      name: 'brave',
    });
  });

  it('Windows: no folder is read, so Chromium’s and Chrome’s keys, which every Chromium build reads', () => {
    expect(userDataDirPlace('win32', 'C:\\b', WINDOWS)).toMatchObject({
      manifestDirs: [WINDOWS.clawdManifestDir],
      registryKeys: [
        'HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.clawd.browser',
        'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser',
      ],
    });
  });

  it('a folder outside ~/snap and ~/.var/app is no sandbox’s', () => {
    expect(sandboxOfFolder('/home/ann/.config/chromium', '/home/ann')).toBeUndefined();
    expect(sandboxOfFolder('/home/ann/snap', '/home/ann')).toBeUndefined();
    expect(sandboxOfFolder('/elsewhere/snap/chromium', '/home/ann')).toBeUndefined();
  });
});
