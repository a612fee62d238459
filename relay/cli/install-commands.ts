// `clawd install` and `clawd uninstall`: register clawd as a native messaging host, so the
// extension asks Chrome to start clawd (and learns its port and token) instead of the person
// running a server and pasting a token; `clawd native-host` is what Chrome then runs.

import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
import { BROWSER_ROWS } from '../native-host/browser-table';
import { loadConfig } from '../home/config-store';
import { createLogger, logLevelFromEnv } from '../log';
import {
  noArguments,
  parsePort,
  stringFlag,
  UsageError,
  type CliCommand,
  type FlagValues,
  type Flags,
} from './cli-command';

/** Every browser clawd knows, by id (browser-table.ts): the help names them all, whatever the OS. */
const BROWSER_FLAG_HELP = `only this browser, even if not found (default: every one found): ${BROWSER_ROWS.map((row) => row.id).join(', ')}`;

const PORT_FLAGS: Flags = {
  'relay-port': {
    type: 'string',
    value: 'N',
    help: 'when the host starts a server: its relay port (default 18792; 0: a free one)',
  },
  'control-port': {
    type: 'string',
    value: 'N',
    help: 'when the host starts a server: its control API port (default 18791; 0: a free one)',
  },
};

function portsOf(flags: FlagValues): { relayPort?: number; controlPort?: number } {
  const relayPort = parsePort(stringFlag(flags, 'relay-port'), '--relay-port');
  const controlPort = parsePort(stringFlag(flags, 'control-port'), '--control-port');
  return { ...(relayPort !== undefined ? { relayPort } : {}), ...(controlPort !== undefined ? { controlPort } : {}) };
}

async function targetOf(home: string, flags: FlagValues) {
  const { localHostTarget } = await import('../native-host/host-install');
  const browser = stringFlag(flags, 'browser');
  const userDataDir = stringFlag(flags, 'user-data-dir');
  if (browser && userDataDir) throw new UsageError('give --browser or --user-data-dir, not both');
  const target = localHostTarget(home, { ...(browser ? { browser } : {}), ...(userDataDir ? { userDataDir } : {}) });
  const row = browser === undefined ? undefined : BROWSER_ROWS.find((r) => r.id === browser);
  if (browser !== undefined && !row)
    throw new UsageError(
      `--browser must be one of ${BROWSER_ROWS.map((r) => r.id).join(', ')}, got ${JSON.stringify(browser)}`,
    );
  if (row && !row[target.platform]) throw new UsageError(`${row.label} does not run on ${target.platform}`);
  return target;
}

export const INSTALL_COMMANDS: CliCommand[] = [
  {
    name: 'install',
    group: 'server',
    usage: 'install [--browser NAME] [--user-data-dir DIR] [--relay-port N] [--control-port N]',
    summary: 'let Chrome start clawd: the extension then connects by itself (no server to run, no token to paste)',
    details:
      "Registers clawd as a native messaging host of every Chromium-family browser found for this user:\nChrome (stable, Beta, Dev, Canary), Chromium (also its Snap and Flatpak), Edge, Brave, Vivaldi,\nOpera, Arc and Dia, where each reads hosts (Linux and macOS: a manifest in each NativeMessagingHosts\nfolder it reads; Windows: registry keys under HKCU). When the extension starts, Chrome runs the host:\nit starts this home's `clawd serve` if none runs (detached; it keeps running after Chrome closes) and\ntells the extension its port and key. A Flatpak browser starts it outside its sandbox with\nflatpak-spawn, once you allow that (`clawd doctor` says how); a Snap is reported to run no host outside\nthe snap. Any other Chromium: --user-data-dir DIR. Installed for this node and this clawd's files:\nrun it again after moving them. `clawd uninstall` undoes it; `clawd doctor` shows it per browser.",
    flags: {
      browser: { type: 'string', value: 'NAME', help: BROWSER_FLAG_HELP },
      'user-data-dir': {
        type: 'string',
        value: 'DIR',
        help: 'a browser started with --user-data-dir DIR, whatever it is (Windows: the keys every Chromium reads)',
      },
      ...PORT_FLAGS,
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const { installNativeHost, placeLabel } = await import('../native-host/host-install');
      const config = await loadConfig(ctx.home);
      const result = await installNativeHost({
        ...(await targetOf(ctx.home, flags)),
        node: process.execPath,
        bin: path.resolve(process.argv[1]!),
        // The ports the host's server takes (before, the flags were read and not passed on).
        ports: portsOf(flags),
        extensionOrigins: [
          EXTENSION_ORIGIN,
          ...(config.relay?.extensionIds ?? []).map((id) => `chrome-extension://${id}`),
        ],
      });
      for (const { place, written, note } of result.places) {
        ctx.print(`installed for ${placeLabel(place)}: ${written.join(', ')}`);
        if (note) ctx.print(`  ${note.warn ? 'but ' : ''}${note.text}`);
      }
      ctx.print(`the host: ${result.launcher} (home ${ctx.home})`);
      ctx.print('Reload the clawd extension (or restart the browser): it connects by itself from now on.');
    },
  },
  {
    name: 'uninstall',
    group: 'server',
    usage: 'uninstall [--browser NAME] [--user-data-dir DIR]',
    summary: 'undo `clawd install` (a running server keeps running)',
    flags: {
      browser: { type: 'string', value: 'NAME', help: BROWSER_FLAG_HELP },
      'user-data-dir': { type: 'string', value: 'DIR', help: 'the folder given to `clawd install --user-data-dir`' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const { uninstallNativeHost, placeLabel } = await import('../native-host/host-install');
      const results = await uninstallNativeHost(await targetOf(ctx.home, flags));
      if (results.every((r) => r.removed.length === 0 && r.kept.length === 0))
        ctx.print('clawd was not installed as a native host there');
      for (const { place, removed, kept } of results) {
        if (removed.length > 0) ctx.print(`uninstalled from ${placeLabel(place)}: ${removed.join(', ')}`);
        for (const { location, readers } of kept)
          ctx.print(
            `kept ${location}: ${readers.join(', ')} ${readers.length > 1 ? 'read' : 'reads'} it too (so ${placeLabel(place)} may still start clawd)`,
          );
      }
    },
  },
  {
    name: 'native-host',
    group: 'server',
    usage: 'native-host [--relay-port N] [--control-port N]',
    summary: 'what Chrome runs for the extension after `clawd install` (not for people)',
    details:
      "Speaks Chrome's native messaging on stdin/stdout: reads the extension's hello, starts the home's\n`clawd serve` if none runs, answers its relay port and token, and exits. Its log: the home's\nlog/native-host.log.",
    flags: PORT_FLAGS,
    async run(args, flags, ctx) {
      noArguments(args);
      const { runNativeHost } = await import('../native-host/native-host');
      // stdout is Chrome's pipe, stderr goes to Chrome's own log: the host keeps a log of its own in the home.
      const logDir = path.join(ctx.home, 'log');
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      const logFile = path.join(logDir, 'native-host.log');
      const log = createLogger(logLevelFromEnv(), (line) => appendFileSync(logFile, line + '\n', { mode: 0o600 }));
      const answer = await runNativeHost({
        home: ctx.home,
        log,
        input: process.stdin,
        output: process.stdout,
        ...portsOf(flags),
      });
      // The answer is flushed: nothing left to do, and a paused stdin or an idle HTTP agent must not hold the process.
      process.exit(answer.type === 'server' ? 0 : 1);
    },
  },
];
