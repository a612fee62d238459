// The package a user installs: `npm pack` of this build, installed globally into a temporary
// prefix (no clone, no dev dependencies), gives a working `clawd` with the extension inside it:
// the version, a serve whose banner names the installed extension folder, and an agent command
// on a managed profile.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../relay/version';
import { runCli, startCli } from '../helpers/cli';
import { startPageServer, type PageServer } from '../helpers/pages';

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
});
