// The `clawd` command. `serve` runs the relay and the control API in this process; `token`
// prints the token; `doctor` checks the set-up; the rest are clients of the control API. Every
// failure ends with a one-line reason on stderr (details indented below it) and a non-zero exit:
// 2 for bad usage, 1 for everything else.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PRODUCT_NAME } from '../../shared/defaults';
import { isClawdError } from '../errors';
import { loadConfig, resolveHome } from '../home/config-store';
import { createLogger, logLevelFromEnv } from '../log';
import { startServer } from '../server';
import { VERSION } from '../version';
import { AGENT_USAGE, runAgentCommand } from './agent-commands';
import { runCommand, UsageError } from './commands';
import { ControlClient } from './control-client';
import { formatCheck, runDoctor } from './doctor';

const COMMON = `  --home DIR       home folder (default: $CLAWD_HOME, else ~/.clawd)
  --profile NAME   the profile to act on (default: the config's defaultProfile)
  --json           print the API's JSON instead of a summary
  -h, --help       this help`;

const HELP: Record<string, string> = {
  '': `${PRODUCT_NAME} ${VERSION}: let AI agents drive a browser safely.

Usage: clawd <command> [options]      (clawd <command> --help for more)

Server:
  serve                 run the relay (CDP for your own tabs) and the control API
  token                 print the token clients and the extension present
  doctor                check the set-up, one line per check, with fixes

Profiles and their browsers (clients of the running server):
  status                the profile's browser: running, CDP, pid, paths
  start | stop          launch or stop a managed profile's browser
  profiles              all profiles
  create-profile --name NAME [--color #RRGGBB] [--cdp-url URL] [--driver managed|remote|extension]
  delete-profile --name NAME
  reset-profile         stop this profile's stray browser processes (never other programs)
  tabs                  list tabs
  open URL | focus ID | close ID
                        open a tab, or focus/close one by id or unique id prefix

Driving a tab (refs come from snapshot; --target ID picks the tab, --timeout MS bounds an action):
  snapshot              the page with refs e1, e2, … (--format ai|role|aria, --interactive, --compact,
                        --depth N, --max-chars N, --selector CSS, --frame REF)
  navigate URL          screenshot [--full-page] [--ref REF] [--labels]      pdf
  click REF [--double]  type REF TEXT [--submit]  press KEY  hover REF  drag REF REF
  select REF VALUE…     fill --fields JSON        resize W H  wait --text T …
  evaluate --fn F [--ref REF]     console [--level L]
  upload PATH… [--ref REF]        dialog --accept|--dismiss [--prompt-text T]   (arm, then act)

Options:
${COMMON}
  -v, --version    the version
`,
  serve: `Usage: clawd serve [--relay-port N] [--control-port N] [--home DIR]

Runs the relay (default 127.0.0.1:18792) and the control API (default 127.0.0.1:18791) until
Ctrl+C. Port 0 picks free ports. Prints where to load the extension and the token.
`,
  token: `Usage: clawd token [--home DIR]\n\nPrints the token (created on first run in the home's config.json).\n`,
  doctor: `Usage: clawd doctor [--home DIR] [--json]\n\nChecks the control API, the token, the relay, the extension (with a real Runtime.evaluate on an\nattached tab), the browser executable and each managed profile's port. Exit code 1 if any fails.\n`,
};
const PER_COMMAND: Record<string, string> = {
  status: 'clawd status [--profile NAME]',
  start: 'clawd start [--profile NAME]',
  stop: 'clawd stop [--profile NAME]',
  profiles: 'clawd profiles',
  'create-profile': 'clawd create-profile --name NAME [--color #RRGGBB] [--cdp-url URL] [--driver managed|remote|extension]',
  'delete-profile': 'clawd delete-profile --name NAME',
  'reset-profile': 'clawd reset-profile [--profile NAME]',
  tabs: 'clawd tabs [--profile NAME]',
  open: 'clawd open URL [--profile NAME]',
  focus: 'clawd focus ID [--profile NAME]',
  close: 'clawd close ID [--profile NAME]',
};

function parsePort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

/** dist/extension beside the bundled bin. */
function extensionDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'extension');
}

async function serve(home: string, relayPort: number | undefined, controlPort: number | undefined): Promise<void> {
  const log = createLogger(logLevelFromEnv());
  const server = await startServer({ home, relayPort, controlPort, log });
  const { relay, control, token } = server;
  const extension = extensionDir();
  const built = existsSync(path.join(extension, 'manifest.json'));
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
      "    pick the folder above. In the extension's options set the relay port and paste the token,",
      '    then click its toolbar button on a tab to hand that tab to your agent.',
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

/** Runs the CLI; resolves with the exit code, or -1 while `serve` keeps running. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        home: { type: 'string' },
        profile: { type: 'string' },
        json: { type: 'boolean' },
        'relay-port': { type: 'string' },
        'control-port': { type: 'string' },
        name: { type: 'string' },
        color: { type: 'string' },
        'cdp-url': { type: 'string' },
        driver: { type: 'string' },
        // the agent commands
        target: { type: 'string' },
        timeout: { type: 'string' },
        format: { type: 'string' },
        limit: { type: 'string' },
        'max-chars': { type: 'string' },
        interactive: { type: 'boolean' },
        compact: { type: 'boolean' },
        depth: { type: 'string' },
        selector: { type: 'string' },
        frame: { type: 'string' },
        'full-page': { type: 'boolean' },
        ref: { type: 'string' },
        element: { type: 'string' },
        type: { type: 'string' },
        labels: { type: 'boolean' },
        double: { type: 'boolean' },
        button: { type: 'string' },
        modifiers: { type: 'string' },
        submit: { type: 'boolean' },
        slowly: { type: 'boolean' },
        fields: { type: 'string' },
        accept: { type: 'boolean' },
        dismiss: { type: 'boolean' },
        'prompt-text': { type: 'string' },
        text: { type: 'string' },
        'text-gone': { type: 'string' },
        url: { type: 'string' },
        'load-state': { type: 'string' },
        fn: { type: 'string' },
        time: { type: 'string' },
        level: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    process.stderr.write(`clawd: ${(error as Error).message}. See clawd --help\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (command === undefined || command === 'help') {
    process.stdout.write(HELP['']!);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (values.help) {
    const line = PER_COMMAND[command] ?? AGENT_USAGE[command];
    const usage = HELP[command] ?? (line ? `Usage: ${line}\n\nOptions:\n${COMMON}${AGENT_USAGE[command] ? '\n  --target ID      the tab (default: the last one used)\n  --timeout MS     how long an action may wait (0.5–60 s, default 8 s)' : ''}\n` : undefined);
    if (!usage) {
      process.stderr.write(`clawd: unknown command ${JSON.stringify(command)}. See clawd --help\n`);
      return 2;
    }
    process.stdout.write(usage);
    return 0;
  }
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const home = resolveHome(values.home);
    switch (command) {
      case 'serve':
        if (args.length) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
        await serve(home, parsePort(values['relay-port'], '--relay-port'), parsePort(values['control-port'], '--control-port'));
        return -1;
      case 'token':
        if (args.length) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
        print((await loadConfig(home)).token);
        return 0;
      case 'doctor': {
        const checks = await runDoctor(home);
        if (values.json) print(JSON.stringify({ ok: checks.every((c) => c.verdict !== 'fail'), checks }, null, 2));
        else for (const check of checks) print(formatCheck(check));
        return checks.some((c) => c.verdict === 'fail') ? 1 : 0;
      }
      default: {
        const agent = AGENT_USAGE[command] !== undefined;
        if (!PER_COMMAND[command] && !agent) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
        const client = await ControlClient.locate(home);
        const context = { client, profile: values.profile, json: values.json ?? false, print, progress: (line: string) => process.stderr.write(`${line}\n`) };
        await (agent ? runAgentCommand(command, args, values, context) : runCommand(command, args, values, context));
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`clawd: ${error.message}. See clawd ${PER_COMMAND[command] || HELP[command] || AGENT_USAGE[command] ? `${command} ` : ''}--help\n`);
      return 2;
    }
    const message = isClawdError(error) ? error.message : String((error as Error)?.message ?? error);
    const [first, ...rest] = message.split('\n');
    process.stderr.write(`clawd: ${first}\n${rest.map((l) => `  ${l}\n`).join('')}`);
    return 1;
  }
}
