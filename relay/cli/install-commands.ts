// `clawd install` and `clawd uninstall`: register clawd as a native messaging host, so the
// extension asks Chrome to start clawd (and learns its port and token) instead of the person
// running a server and pasting a token; `clawd native-host` is what Chrome then runs.

import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { EXTENSION_ORIGIN } from '../../shared/defaults';
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

const BROWSER_FLAG_HELP = 'only this browser: chrome, chromium, edge or brave (default: every one found)';

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
  const { BROWSERS } = await import('../native-host/host-places');
  const { localHostTarget } = await import('../native-host/host-install');
  const browser = stringFlag(flags, 'browser');
  if (browser !== undefined && !(BROWSERS as readonly string[]).includes(browser))
    throw new UsageError(`--browser must be one of ${BROWSERS.join(', ')}, got ${JSON.stringify(browser)}`);
  const userDataDir = stringFlag(flags, 'user-data-dir');
  if (browser && userDataDir) throw new UsageError('give --browser or --user-data-dir, not both');
  return localHostTarget(home, {
    ...(browser ? { browser: browser as (typeof BROWSERS)[number] } : {}),
    ...(userDataDir ? { userDataDir } : {}),
  });
}

export const INSTALL_COMMANDS: CliCommand[] = [
  {
    name: 'install',
    group: 'server',
    usage: 'install [--browser NAME] [--user-data-dir DIR] [--relay-port N] [--control-port N]',
    summary: 'let Chrome start clawd: the extension then connects by itself (no server to run, no token to paste)',
    details:
      "Registers clawd as a native messaging host of every Chrome, Chromium, Edge and Brave found for\nthis user (Linux and macOS: a manifest in the browser's NativeMessagingHosts folder; Windows: a\nregistry key under HKCU). When the extension starts, Chrome runs the host: it starts this\nhome's `clawd serve` if none runs (detached; it keeps running after Chrome closes) and tells the\nextension its port and token. Installed for this node and this clawd's files: run it again\nafter moving them. `clawd uninstall` undoes it; `clawd doctor` shows it.",
    flags: {
      browser: { type: 'string', value: 'NAME', help: BROWSER_FLAG_HELP },
      'user-data-dir': {
        type: 'string',
        value: 'DIR',
        help: 'a browser started with --user-data-dir DIR (Linux, macOS)',
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
        extensionOrigins: [
          EXTENSION_ORIGIN,
          ...(config.relay?.extensionIds ?? []).map((id) => `chrome-extension://${id}`),
        ],
      });
      for (const place of result.places) ctx.print(`installed for ${placeLabel(place)}: ${place.manifestPath}`);
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
      const removed = await uninstallNativeHost(await targetOf(ctx.home, flags));
      if (removed.length === 0) ctx.print('clawd was not installed as a native host there');
      for (const place of removed) ctx.print(`uninstalled from ${placeLabel(place)}`);
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
