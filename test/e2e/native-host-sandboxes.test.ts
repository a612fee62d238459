// `clawd install` for a Chromium in a Snap's folder and one in a Flatpak's, in a fake HOME (the
// person's real one is never read): the built bin finds both and writes each manifest where that
// browser reads it. A real Chromium started on the Flatpak's folder, as the Flatpak starts it,
// reads the manifest there and runs its wrapper, which leaves the "sandbox" through a stand-in
// flatpak-spawn (this machine has no Flatpak: the stand-in runs the command as the real one does
// on the host), and the extension connects with nothing paired. The Snap's manifest runs the
// home's launcher, which answers Chrome's hello (a real Snap's confinement is not here to test).

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { NATIVE_HOST_NAME, parseHostAnswer } from '../../shared/native-host-protocol';
import { readNativeMessage, writeNativeMessage } from '../../relay/native-host/native-messaging';
import { TestBrowser } from '../helpers/chromium';
import { runCli } from '../helpers/cli';
import { serveStateOf, stopServerOf } from '../helpers/serve-state';
import { until } from '../helpers/waits';

const root = mkdtempSync(path.join(os.tmpdir(), 'clawd-sandboxes-'));
const person = path.join(root, 'person');
const home = path.join(root, 'clawd home');
const SNAP = path.join(person, 'snap', 'chromium', 'common', 'chromium');
const FLATPAK_APP = path.join(person, '.var', 'app', 'org.chromium.Chromium');
const FLATPAK = path.join(FLATPAK_APP, 'config', 'chromium');
const MANIFEST = `${NATIVE_HOST_NAME}.json`;
const launcher = path.join(home, 'native-host', 'clawd-native-host.sh');
/** The person's variables: their HOME, and nothing moving ~/.config or ~/.local/share. */
const env = { HOME: person, XDG_CONFIG_HOME: '', CHROME_CONFIG_HOME: '', XDG_DATA_HOME: '' };

interface ServeJson {
  pid: number;
  relayUrl: string;
}
const serveJson = () => serveStateOf<ServeJson>(home);
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const token = () => (readJson(path.join(home, 'config.json')) as { token: string }).token;

async function extensionConnected(state: ServeJson): Promise<boolean> {
  const status = await fetch(`${state.relayUrl}/extension/status?token=${token()}`).then(
    (r) => r.json() as Promise<{ connected?: boolean }>,
    () => ({ connected: false }),
  );
  return status.connected === true;
}

/** Runs a host as Chrome does: the caller's origin as argument, one framed hello in, one framed answer out. */
async function askHost(command: string): Promise<unknown> {
  const child = spawn(command, [`${EXTENSION_ORIGIN}/`], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await writeNativeMessage(child.stdin, { type: 'hello', extensionVersion: 'test' });
    return await readNativeMessage(child.stdout, 20_000);
  } finally {
    child.kill();
  }
}

afterAll(async () => {
  await stopServerOf(home);
  rmSync(root, { recursive: true, force: true });
});

describe('clawd install for a Snap and a Flatpak Chromium', () => {
  it('finds both in the fake HOME and writes each manifest where that browser reads it, saying what each sandbox needs', async () => {
    for (const dir of [SNAP, FLATPAK]) mkdirSync(path.join(dir, 'Default'), { recursive: true });
    // Free ports for the server the host starts: a test never takes the usual ones.
    const result = await runCli(['install', '--home', home, '--relay-port', '0', '--control-port', '0'], env);
    expect(result.code, result.stderr).toBe(0);
    const snapManifest = path.join(SNAP, 'NativeMessagingHosts', MANIFEST);
    const flatpakManifest = path.join(FLATPAK, 'NativeMessagingHosts', MANIFEST);
    expect(result.stdout).toContain(`installed for Chromium (Snap): ${snapManifest}\n`);
    expect(result.stdout).toContain(`installed for Chromium (Flatpak): ${flatpakManifest}\n`);
    expect(result.stdout).toMatch(/Snap is confined .*`clawd pair`/);
    expect(result.stdout).toContain(
      '`flatpak override --user --talk-name=org.freedesktop.Flatpak org.chromium.Chromium`',
    );

    const wrapper = path.join(FLATPAK_APP, 'data', 'clawd', 'clawd-native-host.sh');
    const expected = { name: NATIVE_HOST_NAME, type: 'stdio', allowed_origins: [`${EXTENSION_ORIGIN}/`] };
    expect(readJson(snapManifest)).toMatchObject({ ...expected, path: launcher });
    expect(readJson(flatpakManifest)).toMatchObject({ ...expected, path: wrapper });
    expect(readFileSync(wrapper, 'utf8')).toContain(`exec flatpak-spawn --host '${launcher}'\n`);
    expect(readFileSync(launcher, 'utf8')).toContain(`'native-host' '--home' '${home}' '--relay-port' '0'`);
    // No other browser is in the fake HOME, and none was made up: nothing under ~/.config.
    expect(existsSync(path.join(person, '.config'))).toBe(false);
    expect(serveJson()).toBeUndefined(); // installing starts nothing
  });

  it('a Chromium started on the Flatpak’s folder runs the wrapper out of the sandbox and connects by itself', async () => {
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    const spawned = path.join(root, 'flatpak-spawn.log');
    writeFileSync(
      path.join(bin, 'flatpak-spawn'),
      `#!/bin/sh\n# Flatpak's runs the command on the host; here the host is this machine. It says what it ran.\necho "$*" >> '${spawned}'\n[ "$1" = --host ] || exit 64\nshift\nexec "$@"\n`,
    );
    chmodSync(path.join(bin, 'flatpak-spawn'), 0o755);
    // The browser keeps the PATH it started with (and gives it to its hosts); this process's is put back at once.
    const before = process.env.PATH;
    process.env.PATH = `${bin}:${before}`;
    let browser: TestBrowser;
    try {
      browser = await TestBrowser.launch({ userDataDir: FLATPAK });
    } finally {
      process.env.PATH = before;
    }
    try {
      const state = await until('the host to start a server', () => serveJson(), 20_000);
      await until('the extension to connect', () => extensionConnected(state), 20_000);
      // The manifest in the Flatpak's folder was the one read: its wrapper asked to run the launcher outside.
      expect(readFileSync(spawned, 'utf8').split('\n')).toContain(`--host ${launcher}`);
    } finally {
      await browser.close();
    }
  });

  it('the Snap’s manifest runs the home’s launcher: it answers Chrome’s hello with the running server', async () => {
    const state = serveJson()!;
    const answer = parseHostAnswer(
      await askHost(readJson(path.join(SNAP, 'NativeMessagingHosts', MANIFEST)).path as string),
    );
    expect(answer).toMatchObject({ type: 'server', relayPort: Number(new URL(state.relayUrl).port), started: false });
  });

  it('doctor lists both browsers as registered, with what each sandbox needs; a Flatpak let out says so', async () => {
    const doctor = async () => {
      const result = await runCli(['doctor', '--json', '--home', home], env);
      const { checks } = JSON.parse(result.stdout) as {
        checks: Array<{ verdict: string; check: string; detail: string }>;
      };
      return Object.fromEntries(checks.map((c) => [c.check, c]));
    };
    let checks = await doctor();
    expect(checks['native host']).toMatchObject({
      verdict: 'ok',
      detail: 'installed for Chromium (Snap), Chromium (Flatpak): Chrome starts clawd for the extension',
    });
    expect(checks['host for Chromium (Snap)']).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(
        /^registered \(.*\/snap\/chromium\/common\/chromium\/NativeMessagingHosts\/.*; a Snap is confined/,
      ),
    });
    expect(checks['host for Chromium (Flatpak)']).toMatchObject({
      verdict: 'warn',
      detail: expect.stringContaining(
        '`flatpak override --user --talk-name=org.freedesktop.Flatpak org.chromium.Chromium`',
      ),
    });
    // What `flatpak override --user` writes, in the person's data folder.
    const overrides = path.join(person, '.local', 'share', 'flatpak', 'overrides');
    mkdirSync(overrides, { recursive: true });
    writeFileSync(
      path.join(overrides, 'org.chromium.Chromium'),
      '[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n',
    );
    checks = await doctor();
    expect(checks['host for Chromium (Flatpak)']).toMatchObject({
      verdict: 'ok',
      detail: expect.stringContaining('it starts clawd outside its sandbox with flatpak-spawn'),
    });
  });

  it('uninstall takes both manifests and the wrapper away, and leaves the server running', async () => {
    const result = await runCli(['uninstall', '--home', home], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('uninstalled from Chromium (Snap)');
    expect(result.stdout).toContain('uninstalled from Chromium (Flatpak)');
    expect(existsSync(path.join(SNAP, 'NativeMessagingHosts', MANIFEST))).toBe(false);
    expect(existsSync(path.join(FLATPAK, 'NativeMessagingHosts', MANIFEST))).toBe(false);
    expect(existsSync(path.join(FLATPAK_APP, 'data', 'clawd', 'clawd-native-host.sh'))).toBe(false);
    expect(existsSync(path.join(home, 'native-host'))).toBe(false);
    expect(serveJson()).toBeDefined();
  });
});
