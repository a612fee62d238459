// The `clawd` command. `serve` runs the relay in this process; `token` prints the token.
// Every failure ends with a one-line reason on stderr and a non-zero exit code.

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

const HELP = `${PRODUCT_NAME} ${VERSION}: let AI agents drive a browser safely.

Usage: clawd <command> [options]

Commands:
  serve     Start the relay: CDP for Playwright/Puppeteer, backed by the clawd extension.
  token     Print the token clients and the extension must present.

Options:
  --home DIR          Home folder (default: $CLAWD_HOME, else ~/.clawd)
  --relay-port PORT   Relay port for serve (default 18792; 0 picks a free one)
  -h, --help          Show help
  -v, --version       Show the version
`;

class UsageError extends Error {}

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

async function serve(home: string, relayPort: number | undefined): Promise<void> {
  const log = createLogger(logLevelFromEnv());
  const server = await startServer({ home, relayPort, log });
  const { relay, token } = server;
  const extension = extensionDir();
  const built = existsSync(path.join(extension, 'manifest.json'));
  process.stdout.write(
    [
      `${PRODUCT_NAME} ${VERSION} is running.`,
      '',
      `  Relay (CDP)  ${relay.url}`,
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

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        home: { type: 'string' },
        'relay-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    process.stderr.write(`clawd: ${(error as Error).message}. See clawd --help\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    const home = resolveHome(values.home);
    switch (command) {
      case 'serve':
        await serve(home, parsePort(values['relay-port'], '--relay-port'));
        return -1; // keeps running until a signal
      case 'token':
        process.stdout.write(`${(await loadConfig(home)).token}\n`);
        return 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`clawd: ${error.message}. See clawd --help\n`);
      return 2;
    }
    const message = isClawdError(error) ? error.message : String((error as Error)?.message ?? error);
    process.stderr.write(`clawd: ${message}\n`);
    return 1;
  }
}
