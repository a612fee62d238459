// npm start puts `clawd` on the PATH, so a new shell has it after the README's two commands: a
// link to the clone's dist/clawd.js in a folder already on the PATH that is the person's to write
// (~/.local/bin here, npm's global bin kept off this test's PATH); run again it says nothing; a
// `clawd` that is another install is left alone.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../relay/version';
import { CLAWD_BIN } from '../helpers/cli';

const run = promisify(execFile);
const SCRIPT = path.resolve(CLAWD_BIN, '../../scripts/put-on-path.mjs');

describe('npm start puts clawd on the PATH', () => {
  let home: string;
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('links this clone’s clawd into ~/.local/bin when it is on the PATH, and a new shell runs it', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-path-'));
    const bin = path.join(home, '.local', 'bin');
    await mkdir(bin, { recursive: true });
    // Node's own folder (node and npm) and the system's; not npm's global bin.
    const PATH = [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
    // npm's global prefix set to a folder off the PATH, so the machine's own is never written.
    const env = { ...process.env, PATH, HOME: home, CLAWD_NO_PATH: '', npm_config_prefix: path.join(home, 'npm') };

    const first = await run(process.execPath, [SCRIPT], { env });
    expect(first.stdout).toContain(`clawd on your PATH: ${path.join(bin, 'clawd')} → ${CLAWD_BIN}`);
    expect(await readlink(path.join(bin, 'clawd'))).toBe(CLAWD_BIN);

    // A new shell, as the person opens one.
    const shell = await run('/bin/sh', ['-c', 'clawd --version'], { env });
    expect(shell.stdout.trim()).toContain(VERSION);

    // Again (every npm start): nothing to do, nothing said.
    expect((await run(process.execPath, [SCRIPT], { env })).stdout).toBe('');
  });

  it('leaves another clawd on the PATH alone, and says how to reach this one', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'clawd-path-'));
    const bin = path.join(home, '.local', 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'clawd'), '#!/bin/sh\necho another\n', { mode: 0o755 });
    const PATH = [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
    const result = await run(process.execPath, [SCRIPT], {
      env: { ...process.env, PATH, HOME: home, npm_config_prefix: path.join(home, 'npm') },
    });
    expect(result.stdout).toContain('left as it is');
    expect(result.stdout).toContain('npx clawd');
    expect((await run('/bin/sh', ['-c', 'clawd'], { env: { ...process.env, PATH } })).stdout).toBe('another\n');
  });
});
