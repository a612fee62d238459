// Where each Chromium-family browser keeps its user data on Linux, macOS and Windows, and where it
// reads native messaging hosts from: data only, one row per browser as a person installs it (a
// Snap or a Flatpak is a row of its own, its folders being elsewhere). host-places.ts resolves the
// rows for one person's folders. Every rule says where it was learned: "unverified" marks one that
// follows from upstream Chromium's code or from other tools' practice, not from the vendor.
//
// Sources. [docs]: Chromium's docs/user_data_dir.md (default user data folders by OS and channel,
// and that Linux's ~/.config is $CHROME_CONFIG_HOME or $XDG_CONFIG_HOME when set) and Chrome's
// native messaging page (user-level hosts: the NativeMessagingHosts folder of the user data
// folder, on Linux and macOS). [src]: Chromium's chrome/common/channel_info_posix.cc (Linux data
// folder suffixes -beta, -unstable, -canary) and launch_context_win.cc (Windows reads HKCU, then
// HKLM, Software\Google\Chrome\NativeMessagingHosts in every build, Chromium-branded builds
// Software\Chromium\NativeMessagingHosts first; no channel has a key of its own). [edge]:
// Microsoft's native messaging page (its key, then Chromium's and Chrome's as fallbacks; macOS
// "Microsoft Edge {Beta,Dev,Canary}"; Linux ~/.config/microsoft-edge). [opera]: dev.opera.com's
// message-passing page (Windows: Google\Chrome's key; macOS: Google Chrome's user folder).

export type HostPlatform = 'linux' | 'darwin' | 'win32';

/** A folder as path parts under a base: Linux's config root or home, macOS's ~/Library/Application Support. */
export interface FolderRule {
  base: 'config' | 'home' | 'support';
  dir: readonly string[];
  /** Other user data folders (same base) whose NativeMessagingHosts the browser reads too. */
  alsoReads?: ReadonlyArray<readonly string[]>;
  /** A browser in a sandbox: it reads its folders, but runs a host only within what the sandbox allows. */
  sandbox?: { kind: 'snap'; name: string } | { kind: 'flatpak'; appId: string };
}

export interface WindowsRule {
  /** %LOCALAPPDATA% or %APPDATA% (roaming). */
  base: 'local' | 'roaming';
  dir: readonly string[];
  /** Keys under HKCU\Software whose NativeMessagingHosts\<name> default value names the manifest. */
  keys: readonly string[];
}

export interface BrowserRow {
  id: string;
  label: string;
  linux?: FolderRule;
  darwin?: FolderRule;
  win32?: WindowsRule;
}

/** The key every Chromium build reads on Windows [src]: the one most forks rely on. */
export const CHROME_KEY = 'Google\\Chrome';
const CHROMIUM_KEY = 'Chromium';
const EDGE_KEY = 'Microsoft\\Edge';
/** Google Chrome's user data folder on macOS, which Brave, Opera and Arc are reported to read hosts from. */
const MAC_CHROME = ['Google', 'Chrome'] as const;

/** A Chrome channel: [docs] for every folder but Dev's on macOS (Bitwarden's desktop app) and Windows (unverified). */
function chromeChannel(id: string, label: string, linux: string, mac: string, windows: string): BrowserRow {
  return {
    id,
    label,
    linux: { base: 'config', dir: [linux] },
    darwin: { base: 'support', dir: ['Google', mac] },
    win32: { base: 'local', dir: ['Google', windows, 'User Data'], keys: [CHROME_KEY] },
  };
}

/** An Edge channel [edge]: Linux's Beta and Dev folders follow upstream's suffix rule, Windows' are unverified. */
function edgeChannel(
  id: string,
  label: string,
  linux: string | undefined,
  suffix: string,
  windows: string,
): BrowserRow {
  return {
    id,
    label,
    ...(linux ? { linux: { base: 'config' as const, dir: [linux] } } : {}),
    darwin: { base: 'support', dir: [`Microsoft Edge${suffix}`] },
    win32: { base: 'local', dir: ['Microsoft', windows, 'User Data'], keys: [EDGE_KEY] },
  };
}

/**
 * A Flatpak: its ~/.config is ~/.var/app/<app id>/config, so the folders a browser reads move
 * there (seen for Chrome's by a 2026 report, openai/codex#42953; the others follow). It runs a
 * host inside its sandbox: sandbox-hosts.ts says how clawd gets out of it.
 */
function flatpak(id: string, label: string, appId: string, dir: string[], alsoReads?: string[]): BrowserRow {
  const config = ['.var', 'app', appId, 'config'];
  return {
    id,
    label,
    linux: {
      base: 'home',
      dir: [...config, ...dir],
      ...(alsoReads ? { alsoReads: [[...config, ...alsoReads]] } : {}),
      sandbox: { kind: 'flatpak', appId },
    },
  };
}

export const BROWSER_ROWS: readonly BrowserRow[] = [
  chromeChannel('chrome', 'Google Chrome', 'google-chrome', 'Chrome', 'Chrome'),
  chromeChannel('chrome-beta', 'Google Chrome Beta', 'google-chrome-beta', 'Chrome Beta', 'Chrome Beta'),
  chromeChannel('chrome-dev', 'Google Chrome Dev', 'google-chrome-unstable', 'Chrome Dev', 'Chrome Dev'),
  chromeChannel('chrome-canary', 'Google Chrome Canary', 'google-chrome-canary', 'Chrome Canary', 'Chrome SxS'),
  flatpak('chrome-flatpak', 'Google Chrome (Flatpak)', 'com.google.Chrome', ['google-chrome']),
  {
    id: 'chromium',
    label: 'Chromium',
    linux: { base: 'config', dir: ['chromium'] },
    darwin: { base: 'support', dir: ['Chromium'] },
    // Chromium's own key, and Chrome's: older Chromium read only Chrome's (keepassxc#5111, 2020).
    win32: { base: 'local', dir: ['Chromium', 'User Data'], keys: [CHROMIUM_KEY, CHROME_KEY] },
  },
  {
    // Ubuntu's Snap keeps its user data in the snap's common folder (chrome://version of a snap
    // Chromium shows ~/snap/chromium/common/chromium/Default: darktrojan/openwith#275).
    id: 'chromium-snap',
    label: 'Chromium (Snap)',
    linux: {
      base: 'home',
      dir: ['snap', 'chromium', 'common', 'chromium'],
      sandbox: { kind: 'snap', name: 'chromium' },
    },
  },
  flatpak('chromium-flatpak', 'Chromium (Flatpak)', 'org.chromium.Chromium', ['chromium']),
  edgeChannel('edge', 'Microsoft Edge', 'microsoft-edge', '', 'Edge'),
  edgeChannel('edge-beta', 'Microsoft Edge Beta', 'microsoft-edge-beta', ' Beta', 'Edge Beta'),
  edgeChannel('edge-dev', 'Microsoft Edge Dev', 'microsoft-edge-dev', ' Dev', 'Edge Dev'),
  edgeChannel('edge-canary', 'Microsoft Edge Canary', undefined, ' Canary', 'Edge SxS'),
  flatpak('edge-flatpak', 'Microsoft Edge (Flatpak)', 'com.microsoft.Edge', ['microsoft-edge']),
  {
    id: 'brave',
    label: 'Brave',
    // Linux: its own folder (users' reports, e.g. asamuzaK/withExEditorHost#61).
    linux: { base: 'config', dir: ['BraveSoftware', 'Brave-Browser'] },
    // macOS: Brave reads Google Chrome's folder (a Brave engineer, brave/brave-browser#5074, 2020;
    // still so in 2026, keepassxreboot/keepassxc#13429); its own too, by upstream's rule (unverified).
    darwin: { base: 'support', dir: ['BraveSoftware', 'Brave-Browser'], alsoReads: [MAC_CHROME] },
    // Windows: Chrome's key (KeePassXC registers Brave there); its own key is what clawd wrote
    // before, kept so an uninstall finds it (unverified that Brave reads it).
    win32: {
      base: 'local',
      dir: ['BraveSoftware', 'Brave-Browser', 'User Data'],
      keys: [CHROME_KEY, 'BraveSoftware\\Brave-Browser'],
    },
  },
  flatpak('brave-flatpak', 'Brave (Flatpak)', 'com.brave.Browser', ['BraveSoftware', 'Brave-Browser']),
  {
    // Linux and macOS: its own folder (KeePassXC, Bitwarden). Windows: Chrome's key (reported in
    // keepassxreboot/keepassxc-browser#48; KeePassXC registers it so).
    id: 'vivaldi',
    label: 'Vivaldi',
    linux: { base: 'config', dir: ['vivaldi'] },
    darwin: { base: 'support', dir: ['Vivaldi'] },
    win32: { base: 'local', dir: ['Vivaldi', 'User Data'], keys: [CHROME_KEY] },
  },
  flatpak('vivaldi-flatpak', 'Vivaldi (Flatpak)', 'com.vivaldi.Vivaldi', ['vivaldi']),
  {
    // [opera] names Chrome's places: on macOS Chrome's user folder; on Linux only Chrome's system
    // folder, so its user-level one is unverified, like Opera's own folders (upstream's rule).
    id: 'opera',
    label: 'Opera',
    linux: { base: 'config', dir: ['opera'], alsoReads: [['google-chrome']] },
    darwin: { base: 'support', dir: ['com.operasoftware.Opera'], alsoReads: [MAC_CHROME] },
    win32: { base: 'roaming', dir: ['Opera Software', 'Opera Stable'], keys: [CHROME_KEY] },
  },
  flatpak('opera-flatpak', 'Opera (Flatpak)', 'com.opera.Opera', ['opera'], ['google-chrome']),
  {
    // macOS: users found Arc reading its own folder (keepassxreboot/keepassxc-browser#2171) and
    // others only Chrome's (#2336). Windows: a Store package's folder (cookie tools read it there);
    // its key is upstream's Chrome one (unverified).
    id: 'arc',
    label: 'Arc',
    darwin: { base: 'support', dir: ['Arc', 'User Data'], alsoReads: [MAC_CHROME] },
    win32: {
      base: 'local',
      dir: ['Packages', 'TheBrowserCompany.Arc_ttt1ap7aakyb4', 'LocalCache', 'Local', 'Arc', 'User Data'],
      keys: [CHROME_KEY],
    },
  },
  // macOS only; the folder as Arc's, from The Browser Company, and as other tools write it (unverified).
  { id: 'dia', label: 'Dia', darwin: { base: 'support', dir: ['Dia', 'User Data'] } },
];

export function browserRow(id: string): BrowserRow | undefined {
  return BROWSER_ROWS.find((row) => row.id === id);
}
