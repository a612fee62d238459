// The CLI's commands that work without a running server: `serve` runs the relay and the control
// API in this process, `token` prints the token, `doctor` checks the set-up. The server, MCP and
// doctor code (Playwright, hono, ws…) is imported when one of these commands runs, so every
// other command starts in the time Node itself takes (the build splits it into chunks).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError } from '../errors';
import { isAlive } from '../browser/processes';
import { generateToken, loadConfig, updateConfig } from '../home/config-store';
import { readServeState } from '../home/serve-state';
import { rotateExtensionKey } from '../home/home-keys';
import { createLogger, logLevelFromEnv, silentLogger, type Logger } from '../log';
import type { ClientUse } from '../control/client-activity';
import { runningServer } from '../operations/local-server';
import { VERSION } from '../version';
import { noArguments, parsePort, stringFlag, type CliCommand } from './cli-command';

/** A port taken by the clawd server of another home: named, with what to do (never a wrong-token puzzle later). */
async function heldByAnotherHome(
  error: unknown,
  home: string,
  controlPort: number | undefined,
): Promise<Error | undefined> {
  if ((error as { code?: string })?.code !== 'port_in_use') return undefined;
  const { DEFAULT_CONTROL_PORT } = await import('../../shared/defaults');
  try {
    const url = `http://127.0.0.1:${controlPort || DEFAULT_CONTROL_PORT}/`;
    const health = (await (await fetch(url, { signal: AbortSignal.timeout(1_500) })).json()) as {
      name?: string;
      home?: string;
    };
    if (
      health.name !== PRODUCT_NAME ||
      typeof health.home !== 'string' ||
      path.resolve(health.home) === path.resolve(home)
    )
      return undefined;
    return new ClawdError(
      'port_in_use',
      `${(error as Error).message}: it is the clawd server of another home (${health.home}). Stop that one, or run this one on free ports: clawd serve --home ${home} --relay-port 0 --control-port 0`,
    );
  } catch {
    return undefined;
  }
}

/** dist/extension beside the bundled bin (this code may sit in dist/ or in dist/chunks/). */
function extensionDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return (
    [path.join(here, 'extension'), path.join(here, '..', 'extension')].find((dir) =>
      existsSync(path.join(dir, 'manifest.json')),
    ) ?? path.join(here, 'extension')
  );
}

/** How long a server started for `clawd mcp` stays after its last client left (one that comes back meanwhile keeps it). */
const LAST_CLIENT_GRACE_MS = 3_000;
/** How long it waits for its first client (the `clawd mcp` that started it connects at once). */
const FIRST_CLIENT_MS = 30_000;

/**
 * `untilUnused`: the server a `clawd mcp` started for itself: on free ports when the usual ones are
 * taken (it says so), and it stops itself once nobody has used it for a few seconds.
 */
async function serve(
  home: string,
  relayPort: number | undefined,
  controlPort: number | undefined,
  untilUnused = false,
): Promise<void> {
  const log = createLogger(logLevelFromEnv());
  const { startServer } = await import('../server');
  const benchSeeAll = process.env.CLAWD_BENCH_SEE_ALL === '1';
  const server = await startServer({ home, relayPort, controlPort, log, benchSeeAll }).catch(async (error: unknown) => {
    if (untilUnused && (error as { code?: string })?.code === 'port_in_use') {
      log.info(`${(error as Error).message}: serving on free ports`);
      return startServer({ home, relayPort: 0, controlPort: 0, log, benchSeeAll });
    }
    throw (await heldByAnotherHome(error, home, controlPort)) ?? error;
  });
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
      '    once, for 10 minutes; `clawd pair` prints a new one; `clawd install` pairs it for good):',
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
  if (untilUnused) void whenUnused(() => server.control.clients(), log).then(() => stop('the last client left'));
}

/** Resolves once nobody has used the server for a few seconds, after its first client came (or none came at all). */
async function whenUnused(use: () => ClientUse, log: Logger): Promise<void> {
  const started = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { count, lastLeftAt } = use();
    if (count > 0) continue;
    if (
      lastLeftAt !== undefined
        ? Date.now() - lastLeftAt >= LAST_CLIENT_GRACE_MS
        : Date.now() - started >= FIRST_CLIENT_MS
    ) {
      log.info(lastLeftAt !== undefined ? 'no client left' : `no client came within ${FIRST_CLIENT_MS / 1000} s`);
      return;
    }
  }
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
      if (!existsSync(path.join(dir, 'manifest.json')))
        throw new Error(`the extension is not built (${dir} has no manifest.json): run \`npm run build\``);
      ctx.print(dir);
    },
  },
  {
    name: 'pair',
    group: 'server',
    usage: 'pair',
    summary: 'print a link that pairs the extension with the running server (no token to copy)',
    details:
      "Open the link in the browser where the clawd extension is installed and confirm in the page it\nshows: the extension gets its key from the relay (and checks it against the link) and connects.\nThe link works once, for 10 minutes. With relay.extensionIds in config, one link per known\nextension id. The person's command: it sends the person's key from the home, which an agent's\ntoken cannot stand in for.",
    flags: {},
    async run(args, _flags, ctx) {
      noArguments(args);
      const { links } = await (await ctx.personClient()).call<{ links: string[] }>('POST', '/pair/codes');
      for (const link of links) ctx.print(link);
    },
  },
  {
    name: 'serve',
    group: 'server',
    usage: 'serve [--relay-port N] [--control-port N] [--until-unused]',
    summary: 'run the relay (CDP for your own tabs) and the control API',
    details:
      'Runs the relay (default 127.0.0.1:18792) and the control API (default 127.0.0.1:18791) until\nCtrl+C. Port 0 picks free ports. Prints where to load the extension and the token. With\n--until-unused (how `clawd mcp` starts one), it stops a few seconds after its last client left.',
    flags: {
      'relay-port': { type: 'string', value: 'N', help: 'the relay port (0: a free one)' },
      'control-port': { type: 'string', value: 'N', help: 'the control API port (0: a free one)' },
      'until-unused': {
        type: 'boolean',
        help: 'stop once no client (clawd mcp, CLI call, live view) has used it for 3 s; free ports if the usual are taken',
      },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      await serve(
        ctx.home,
        parsePort(stringFlag(flags, 'relay-port'), '--relay-port'),
        parsePort(stringFlag(flags, 'control-port'), '--control-port'),
        flags['until-unused'] === true,
      );
      return -1;
    },
  },
  {
    name: 'mcp',
    group: 'server',
    usage: 'mcp [--profile NAME] [--relay-port N] [--control-port N]',
    summary: 'MCP over stdio for agents (uses a running clawd serve, or runs one while connected)',
    details:
      'Speaks the Model Context Protocol on stdin/stdout (logs on stderr). Its tools are clients of the\nclawd serve of the home; when none runs, it starts one (detached, `serve --until-unused`) that\nstops itself, and the browsers it launched, a few seconds after its last client left: two agent\nwindows share it. For the tabs the person hands over in their own browser, --profile chrome. MCP\nclient configuration:\n  {"command": "clawd", "args": ["mcp", "--profile", "chrome"]}',
    flags: {
      profile: {
        type: 'string',
        value: 'NAME',
        help: "the profile the tools use by default (default: the config's defaultProfile)",
      },
      'relay-port': {
        type: 'string',
        value: 'N',
        help: 'when it starts a server: the relay port (default 18792, a free one if taken)',
      },
      'control-port': {
        type: 'string',
        value: 'N',
        help: 'when it starts a server: the control API port (default 18791, a free one if taken)',
      },
    },
    async run(args, flags, ctx) {
      noArguments(args);
      const log = createLogger(logLevelFromEnv());
      const ports = {
        relayPort: parsePort(stringFlag(flags, 'relay-port'), '--relay-port'),
        controlPort: parsePort(stringFlag(flags, 'control-port'), '--control-port'),
      };
      import('../mcp/mcp-stdio')
        .then(({ runMcpStdio }) =>
          runMcpStdio({ home: ctx.home, profile: stringFlag(flags, 'profile'), log, ...ports }),
        )
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
    usage: 'token [--rotate]',
    summary: 'print the token agents present (--rotate: a new one, and a new extension key)',
    details:
      "Prints the token (created on first run in the home's config.json): what you give an agent.\n--rotate replaces it and prints the new one: a running server refuses the old token at once and\ncuts raw CDP clients that used it; `clawd mcp` and the CLI read the new one from config.json. It\nreplaces the extension's key too (keys.json): the extension disconnects until the native host\n(`clawd install`) or a new pairing (`clawd pair`) gives it the new one. Live view sessions and\nevent streams opened before stay until they end (restart clawd serve to cut everything).",
    flags: { rotate: { type: 'boolean', help: 'replace the token (after a leak)' } },
    async run(args, flags, ctx) {
      noArguments(args);
      if (flags.rotate !== true) {
        ctx.print((await loadConfig(ctx.home)).token);
        return;
      }
      const { client } = await runningServer(ctx.home, silentLogger);
      if (client) {
        const person = await ctx.personClient();
        ctx.print((await person.call<{ token: string }>('POST', '/token/rotate')).token);
        ctx.progress(
          'The extension key was replaced too: the extension reconnects through the native host, or run `clawd pair`.',
        );
        return;
      }
      // A server that runs but did not answer would keep the old token while config.json changed.
      const state = await readServeState(ctx.home);
      if (state && isAlive(state.pid))
        throw new ClawdError(
          'command_timeout',
          `the clawd server of ${ctx.home} (pid ${state.pid}) runs but did not answer at ${state.controlUrl}: the token was not rotated; try again, or stop it first`,
        );
      // No server runs: the next one reads the new token and key from the home.
      const next = generateToken();
      await updateConfig(ctx.home, (config) => ({ ...config, token: next }));
      await rotateExtensionKey(ctx.home);
      ctx.print(next);
    },
  },
  {
    name: 'doctor',
    group: 'server',
    usage: 'doctor',
    summary: 'check the set-up, one line per check, with fixes',
    details:
      "Checks the control API, the token, the relay, the extension (with a real Runtime.evaluate on an\nattached tab), the native host (`clawd install`), the browser executable and each managed\nprofile's port. Exit code 1 if any fails (a missing native host only warns).",
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
