// The CLI's commands that work without a running server: `serve` runs the relay and the control
// API in this process, `token` prints the token, `doctor` checks the set-up. The server, MCP and
// doctor code (Playwright, hono, ws…) is imported when one of these commands runs, so every
// other command starts in the time Node itself takes (the build splits it into chunks).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCT_NAME } from '../../shared/defaults';
import { loadConfig } from '../home/config-store';
import { createLogger, logLevelFromEnv } from '../log';
import { VERSION } from '../version';
import { noArguments, stringFlag, UsageError, type CliCommand } from './cli-command';

function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

/** dist/extension beside the bundled bin (this code may sit in dist/ or in dist/chunks/). */
function extensionDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, 'extension'), path.join(here, '..', 'extension')].find((dir) => existsSync(path.join(dir, 'manifest.json'))) ?? path.join(here, 'extension');
}

async function serve(home: string, relayPort: number | undefined, controlPort: number | undefined): Promise<void> {
  const log = createLogger(logLevelFromEnv());
  const { startServer } = await import('../server');
  const server = await startServer({ home, relayPort, controlPort, log });
  const { relay, control, token } = server;
  const extension = extensionDir();
  const built = existsSync(path.join(extension, 'manifest.json'));
  const pair = server.pairing.links().links[0];
  process.stdout.write(
    [
      `${PRODUCT_NAME} ${VERSION} is running.`,
      '',
      `  Relay (CDP)  ${relay.url}`,
      `  Control API  ${control.url}`,
      `  Token        ${token}`,
      `  Home         ${home}`,
      '',
      `  Playwright   chromium.connectOverCDP('${relay.url}/?token=${token}')`,
      '',
      `  Extension    ${extension}${built ? '' : '   (not built yet: run npm run build)'}`,
      '    Load it once: open chrome://extensions, turn on Developer mode, click "Load unpacked" and',
      '    pick the folder above. Then pair it: open this link in that browser and confirm (it works',
      '    once, for 10 minutes; `clawd pair` prints a new one), or paste the token in its options:',
      `  Pair         ${pair}`,
      '    Then click its toolbar button on a tab to hand that tab to your agent.',
      '',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1); // a second Ctrl+C does not wait
    stopping = true;
    log.info(`${signal}: stopping`);
    server.close().then(
      () => process.exit(0),
      (error: Error) => {
        log.error(`shutdown failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

export const SERVER_COMMANDS: CliCommand[] = [
  {
    name: 'extension-path',
    group: 'server',
    usage: 'extension-path',
    summary: 'print the folder of the built extension (to load it unpacked in Chrome)',
    flags: {},
    async run(args, _flags, ctx) {
      noArguments(args);
      const dir = extensionDir();
      if (!existsSync(path.join(dir, 'manifest.json'))) throw new Error(`the extension is not built (${dir} has no manifest.json): run \`npm run build\``);
      ctx.print(dir);
    },
  },
  {
    name: 'pair',
    group: 'server',
    usage: 'pair',
    summary: 'print a link that pairs the extension with the running server (no token to copy)',
    details:
      'Open the link in the browser where the clawd extension is installed and confirm in the page it\nshows: the extension gets the token from the relay and connects. The link works once, for 10\nminutes. With relay.extensionIds in config, one link per known extension id.',
    flags: {},
    async run(args, _flags, ctx) {
      noArguments(args);
      const { links } = await (await ctx.client()).call<{ links: string[] }>('POST', '/pair/codes');
      for (const link of links) ctx.print(link);
    },
  },
  {
    name: 'serve',
    group: 'server',
    usage: 'serve [--relay-port N] [--control-port N]',
    summary: 'run the relay (CDP for your own tabs) and the control API',
    details: 'Runs the relay (default 127.0.0.1:18792) and the control API (default 127.0.0.1:18791) until\nCtrl+C. Port 0 picks free ports. Prints where to load the extension and the token.',
    flags: {
      'relay-port': { type: 'string', value: 'N', help: 'the relay port (0: a free one)' },
      'control-port': { type: 'string', value: 'N', help: 'the control API port (0: a free one)' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      await serve(ctx.home, parsePort(stringFlag(flags, 'relay-port'), '--relay-port'), parsePort(stringFlag(flags, 'control-port'), '--control-port'));
      return -1;
    },
  },
  {
    name: 'mcp',
    group: 'server',
    usage: 'mcp [--profile NAME] [--relay-port N] [--control-port N]',
    summary: 'MCP over stdio for agents (uses a running clawd serve, or runs one while connected)',
    details:
      'Speaks the Model Context Protocol on stdin/stdout (logs on stderr). When a clawd serve is running for\nthe home, its tools are clients of it; otherwise this process runs the server while the MCP client\nstays connected, and stops it and its browsers when the client goes. MCP client configuration:\n  {"command": "npx", "args": ["clawd-browser", "mcp"]}',
    flags: {
      profile: { type: 'string', value: 'NAME', help: "the profile the tools use by default (default: the config's defaultProfile)" },
      'relay-port': { type: 'string', value: 'N', help: 'when it runs its own server: the relay port (default 18792, a free one if taken)' },
      'control-port': { type: 'string', value: 'N', help: 'when it runs its own server: the control API port (default 18791, a free one if taken)' },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const log = createLogger(logLevelFromEnv());
      const ports = { relayPort: parsePort(stringFlag(flags, 'relay-port'), '--relay-port'), controlPort: parsePort(stringFlag(flags, 'control-port'), '--control-port') };
      Promise.all([import('../mcp/mcp-stdio'), import('../server')])
        .then(([{ runMcpStdio }, { startServer }]) => runMcpStdio({ home: ctx.home, profile: stringFlag(flags, 'profile'), log, ...ports, startServer }))
        .then(
        () => process.exit(0),
        (error: Error) => {
          log.error(`clawd mcp: ${error.message}`);
          process.exit(1);
        },
      );
      return -1;
    },
  },
  {
    name: 'token',
    group: 'server',
    usage: 'token',
    summary: 'print the token clients and the extension present',
    details: "Prints the token (created on first run in the home's config.json).",
    flags: {},
    async run(args, _flags, ctx) {
      noArguments(args);
      ctx.print((await loadConfig(ctx.home)).token);
    },
  },
  {
    name: 'doctor',
    group: 'server',
    usage: 'doctor',
    summary: 'check the set-up, one line per check, with fixes',
    details: "Checks the control API, the token, the relay, the extension (with a real Runtime.evaluate on an\nattached tab), the browser executable and each managed profile's port. Exit code 1 if any fails.",
    flags: { json: { type: 'boolean', help: 'the checks as JSON' } },
    async run(args, _flags, ctx) {
      noArguments(args);
      const { formatCheck, runDoctor } = await import('./doctor');
      const checks = await runDoctor(ctx.home);
      if (ctx.json) ctx.print(JSON.stringify({ ok: checks.every((c) => c.verdict !== 'fail'), checks }, null, 2));
      else for (const check of checks) ctx.print(formatCheck(check));
      return checks.some((c) => c.verdict === 'fail') ? 1 : 0;
    },
  },
];
