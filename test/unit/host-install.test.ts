// `clawd install`, `uninstall` and doctor's look, on a made-up person's folders in a temp dir
// (never the real home): a Snap and a Flatpak Chromium on Linux, browsers sharing Google Chrome's
// folder on macOS, and Windows' keys in a registry kept in a map.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hostFolder,
  installNativeHost,
  uninstallNativeHost,
  type HostTarget,
} from '../../relay/native-host/host-install';
import type { HostRegistry } from '../../relay/native-host/host-registry';
import { hostStatuses } from '../../relay/native-host/host-status';
import { useTempDirs } from '../helpers/temp-dirs';

const temp = useTempDirs('clawd-host-install-');
const ORIGINS = ['chrome-extension://abc'];
const CLI = { node: '/usr/bin/node', bin: '/opt/clawd/dist/clawd.js', extensionOrigins: ORIGINS };

/** A fake HOME with these user data folders (each with a profile in it, as a browser leaves it). */
function person(platform: HostTarget['platform'], ...browsers: string[]): HostTarget & { root: string } {
  const root = path.dirname(temp.home());
  for (const dir of browsers) mkdirSync(path.join(root, dir, 'Default'), { recursive: true });
  const home = path.join(root, 'clawd home');
  return {
    root,
    home,
    platform,
    folders: { homedir: root, clawdManifestDir: hostFolder(home), flatpakSystemDir: path.join(root, 'system-flatpak') },
  };
}

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { path: string; allowed_origins: string[] };

describe('a Snap and a Flatpak Chromium on Linux', () => {
  const SNAP = 'snap/chromium/common/chromium';
  const FLATPAK = '.var/app/org.chromium.Chromium';

  it('registers in each one’s own folder: the snap’s manifest runs the launcher, the Flatpak’s a wrapper that leaves the sandbox', async () => {
    const target = person('linux', SNAP, `${FLATPAK}/config/chromium`);
    // A folder holding only a hosts folder (another tool made it) is no browser of the person's.
    mkdirSync(path.join(target.root, '.config/google-chrome/NativeMessagingHosts'), { recursive: true });
    const installed = await installNativeHost({ ...target, ...CLI });
    expect(installed.places.map((p) => p.place.browser)).toEqual(['chromium-snap', 'chromium-flatpak']);

    const snapManifest = path.join(target.root, SNAP, 'NativeMessagingHosts/com.clawd.browser.json');
    expect(installed.places[0]!.written).toEqual([snapManifest]);
    expect(json(snapManifest)).toMatchObject({
      path: installed.launcher,
      allowed_origins: ['chrome-extension://abc/'],
    });

    const flatpakManifest = path.join(
      target.root,
      FLATPAK,
      'config/chromium/NativeMessagingHosts/com.clawd.browser.json',
    );
    const wrapper = path.join(target.root, FLATPAK, 'data/clawd/clawd-native-host.sh');
    expect(json(flatpakManifest).path).toBe(wrapper);
    expect(readFileSync(wrapper, 'utf8')).toContain(`exec flatpak-spawn --host '${installed.launcher}'\n`);
    expect(statSync(wrapper).mode & 0o111).not.toBe(0);

    // What the person is told: a Snap may never run it; a Flatpak must be let out of its sandbox.
    expect(installed.places[0]!.note).toMatchObject({
      warn: true,
      text: expect.stringMatching(/Snap is confined.*clawd pair/),
    });
    expect(installed.places[1]!.note).toMatchObject({
      warn: true,
      text: expect.stringContaining(
        '`flatpak override --user --talk-name=org.freedesktop.Flatpak org.chromium.Chromium` allows it',
      ),
    });
    expect(
      existsSync(path.join(target.root, '.config/google-chrome/NativeMessagingHosts/com.clawd.browser.json')),
    ).toBe(false);
  });

  it('doctor reads whether the Flatpak may leave its sandbox: its metadata, then system, then the person’s overrides', async () => {
    const target = person('linux', `${FLATPAK}/config/chromium`);
    await installNativeHost({ ...target, ...CLI });
    const note = async () => (await hostStatuses(target)).find((s) => s.place.browser === 'chromium-flatpak')!.note;
    expect((await note())!.text).toContain('clawd could not tell');

    const policy = (file: string, value: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `[Context]\nshared=network;\n\n[Session Bus Policy]\norg.freedesktop.Flatpak=${value}\n`);
    };
    policy(path.join(target.root, 'system-flatpak/app/org.chromium.Chromium/current/active/metadata'), 'talk');
    expect(await note()).toEqual({ warn: false, text: expect.stringContaining('org.chromium.Chromium may') });
    policy(path.join(target.root, '.local/share/flatpak/overrides/org.chromium.Chromium'), 'none');
    expect(await note()).toMatchObject({ warn: true, text: expect.stringContaining('may not do:') });
    policy(path.join(target.root, '.local/share/flatpak/overrides/org.chromium.Chromium'), 'talk');
    expect((await note())!.warn).toBe(false);
  });

  it('lists the browsers found, registered or not, and uninstall takes the wrapper away with the manifest', async () => {
    const target = person('linux', SNAP, `${FLATPAK}/config/chromium`, '.config/vivaldi');
    await installNativeHost({ ...target, ...CLI, browser: 'chromium-flatpak' });
    const lines = (await hostStatuses(target)).map((s) => [s.place.browser, s.found, s.registered.length > 0]);
    expect(lines).toEqual([
      ['chromium-snap', true, false],
      ['chromium-flatpak', true, true],
      ['vivaldi', true, false],
    ]);
    const [result] = await uninstallNativeHost({ ...target, browser: 'chromium-flatpak' });
    expect(result!.removed).toEqual([
      path.join(target.root, FLATPAK, 'config/chromium/NativeMessagingHosts/com.clawd.browser.json'),
      path.join(target.root, FLATPAK, 'data/clawd/clawd-native-host.sh'),
    ]);
    expect((await hostStatuses(target)).some((s) => s.registered.length > 0)).toBe(false);
  });

  it('a folder named at install is remembered: doctor lists it, a plain uninstall reaches it', async () => {
    const target = person('linux');
    const named = path.join(target.root, 'my browser');
    await installNativeHost({ ...target, ...CLI, userDataDir: named });
    expect((await hostStatuses(target)).map((s) => [s.place.label, s.registered.length])).toEqual([
      [`the browser of ${named}`, 1],
    ]);
    const results = await uninstallNativeHost(target);
    expect(results.flatMap((r) => r.removed)).toEqual([
      path.join(named, 'NativeMessagingHosts/com.clawd.browser.json'),
    ]);
    expect(existsSync(hostFolder(target.home))).toBe(false);
  });
});

describe('browsers that read Google Chrome’s folder on macOS', () => {
  const SUPPORT = 'Library/Application Support';

  it('Brave’s host goes in its folder and Chrome’s; uninstalling Brave keeps Chrome’s for Chrome, and says so', async () => {
    const target = person('darwin', `${SUPPORT}/Google/Chrome`, `${SUPPORT}/BraveSoftware/Brave-Browser`);
    const installed = await installNativeHost({ ...target, ...CLI });
    const chromeManifest = path.join(target.root, SUPPORT, 'Google/Chrome/NativeMessagingHosts/com.clawd.browser.json');
    const braveManifest = path.join(
      target.root,
      SUPPORT,
      'BraveSoftware/Brave-Browser/NativeMessagingHosts/com.clawd.browser.json',
    );
    expect(installed.places.map((p) => [p.place.browser, p.written])).toEqual([
      ['chrome', [chromeManifest]],
      ['brave', [braveManifest, chromeManifest]],
    ]);
    const [brave] = await uninstallNativeHost({ ...target, browser: 'brave' });
    expect(brave).toMatchObject({
      removed: [braveManifest],
      kept: [{ location: chromeManifest, readers: ['Google Chrome'] }],
    });
    expect(existsSync(chromeManifest)).toBe(true);
  });

  it('Chrome’s folder that only clawd made is not Chrome: uninstalling Brave takes it all', async () => {
    const target = person('darwin', `${SUPPORT}/BraveSoftware/Brave-Browser`);
    const installed = await installNativeHost({ ...target, ...CLI });
    expect(installed.places.map((p) => p.place.browser)).toEqual(['brave']);
    expect((await hostStatuses(target)).map((s) => s.place.browser)).toEqual(['brave']);
    const [brave] = await uninstallNativeHost({ ...target, browser: 'brave' });
    expect(brave!.removed).toHaveLength(2);
    expect(brave!.kept).toEqual([]);
  });
});

describe('Windows: registry keys naming the manifest clawd keeps in its home', () => {
  /** HKCU as a map: key → default value. */
  function fakeRegistry(): HostRegistry & { keys: Map<string, string> } {
    const keys = new Map<string, string>();
    return {
      keys,
      read: async (key) => keys.get(key),
      write: async (key, value) => void keys.set(key, value),
      remove: async (key) => keys.delete(key),
    };
  }

  it('Vivaldi is registered under Google Chrome’s key; a folder named at install under Chromium’s and Chrome’s', async () => {
    const registry = fakeRegistry();
    const target = { ...person('win32'), registry };
    const manifest = path.join(hostFolder(target.home), 'com.clawd.browser.json');
    const installed = await installNativeHost({ ...target, ...CLI, browser: 'vivaldi' });
    expect(installed.places[0]!.written).toEqual([
      'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser',
    ]);
    expect([...registry.keys.values()]).toEqual([manifest]);
    expect(json(manifest).path).toBe(path.join(hostFolder(target.home), 'clawd-native-host.bat'));

    await installNativeHost({ ...target, ...CLI, userDataDir: 'D:\\Portable\\Chromium' });
    expect([...registry.keys.keys()]).toEqual([
      'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser',
      'HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.clawd.browser',
    ]);
    const named = (await hostStatuses(target)).find((s) => s.place.browser === 'user-data-dir')!;
    expect(named).toMatchObject({ registered: [...registry.keys.keys()].reverse(), missing: [] });

    // Vivaldi's one key is the named browser's too: uninstalling Vivaldi keeps it, and says why.
    const [vivaldi] = await uninstallNativeHost({ ...target, browser: 'vivaldi' });
    expect(vivaldi).toMatchObject({
      removed: [],
      kept: [
        {
          location: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser',
          readers: ['the browser of D:\\Portable\\Chromium'],
        },
      ],
    });
    await uninstallNativeHost(target);
    expect(registry.keys.size).toBe(0);
  });
});
