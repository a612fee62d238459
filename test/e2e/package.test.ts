// The package a user installs: `npm pack` of this build, installed globally into a temporary
// prefix (no clone, no dev dependencies), gives a working `clawd` with the extension inside it:
// the version, a serve whose banner names the installed extension folder, an agent command on a
// managed profile, `clawd install` writing a host that runs the installed clawd, and `clawd mcp`.
// And the clone's own way the README gives: `npx clawd` inside it.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_HOST_NAME } from '../../shared/native-host-protocol';
import { VERSION } from '../../relay/version';
import { runCli, startCli } from '../helpers/cli';
import { startPageServer, type PageServer } from '../helpers/pages';
import { until } from '../helpers/waits';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`npm ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe('the installed package', () => {
  let dir: string;
  let bin: string;
  let pages: PageServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'clawd-package-'));
    // The build is already there (npm test builds first): pack it as it is, without prepack.
    await npm(['pack', '--ignore-scripts', '--pack-destination', dir], ROOT);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    await npm(
      [
        'install',
        '-g',
        '--prefix',
        path.join(dir, 'prefix'),
        path.join(dir, tarball),
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      dir,
    );
    bin = path.join(dir, 'prefix', 'bin', 'clawd');
    pages = await startPageServer();
  }, 180_000);
  afterAll(async () => {
    await pages?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'runs: its version, a serve that names its own extension folder, an agent command on a managed profile',
    { timeout: 120_000 },
    async () => {
      const installed = path.join(dir, 'prefix', 'lib', 'node_modules', 'clawd-browser');
      expect(existsSync(path.join(installed, 'test'))).toBe(false); // only what is needed ships
      expect((await runCli(['--version'], {}, 15_000, bin)).stdout.trim()).toBe(VERSION);
      const home = path.join(dir, 'home');
      const extension = path.join(installed, 'dist', 'extension');
      expect((await runCli(['extension-path', '--home', home], {}, 15_000, bin)).stdout.trim()).toBe(extension);
      const serve = await startCli(
        ['serve', '--home', home, '--relay-port', '0', '--control-port', '0'],
        /Press Ctrl\+C/,
        {},
        bin,
      );
      try {
        expect(serve.stdout()).toContain(`Extension    ${extension}`);
        expect(existsSync(path.join(extension, 'manifest.json'))).toBe(true);
        const control = serve.stdout().match(/Control API\s+(\S+)/)![1]!;
        expect(await (await fetch(control)).json()).toMatchObject({
          ok: true,
          name: 'clawd-browser',
          version: VERSION,
        });
        const cli = (args: string[]) => runCli([...args, '--home', home], {}, 60_000, bin);
        expect((await cli(['start'])).code).toBe(0);
        expect((await cli(['navigate', pages.url('/form')])).code).toBe(0);
        const snapshot = await cli(['snapshot']);
        expect(snapshot.stdout).toContain('button "Go"');
        expect((await cli(['stop'])).code).toBe(0);
      } finally {
        serve.child.kill('SIGTERM');
        await new Promise((resolve) => serve.child.once('exit', resolve));
      }
    },
  );

  it(
    'installs its native host for a browser folder, pointing at the installed clawd, and serves MCP',
    { timeout: 90_000 },
    async () => {
      const home = path.join(dir, 'host-home');
      const browserDir = path.join(dir, 'browser');
      const installed = await runCli(['install', '--home', home, '--user-data-dir', browserDir], {}, 15_000, bin);
      expect(installed.code, installed.stderr).toBe(0);
      const manifest = JSON.parse(
        readFileSync(path.join(browserDir, 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`), 'utf8'),
      ) as { path: string };
      // The installed `clawd` as it was run (the global bin, which an upgrade of the package keeps pointing right).
      expect(readFileSync(manifest.path, 'utf8')).toContain(`'${bin}' 'native-host' '--home' '${home}'`);

      // `clawd mcp` from the package: its tools, listed over stdio (the server it starts stops after it).
      const client = new Client({ name: 'clawd-package-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: bin,
          args: ['mcp', '--home', path.join(dir, 'mcp-home'), '--relay-port', '0', '--control-port', '0'],
          stderr: 'ignore',
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['snapshot', 'act', 'tabs', 'navigate']));
      } finally {
        await client.close();
      }
      // It stops 3 s after its last client, though that client came and went between two of the
      // server's looks (it waited 30 s for a first client then).
      await until(
        'its server to stop after its last client',
        () => !existsSync(path.join(dir, 'mcp-home', 'serve.json')),
        15_000,
      );
    },
  );
});

describe('the clone', () => {
  it('runs `npx clawd` inside it, as the README says', async () => {
    expect((await npm(['exec', '--no-install', '--', 'clawd', '--version'], ROOT)).trim()).toBe(VERSION);
  });
});
