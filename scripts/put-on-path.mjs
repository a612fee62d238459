// `npm start`'s step that puts `clawd` on the PATH, so a new shell has it after the README's two
// commands (an MCP client's configuration names `clawd`, not a path into a clone). A link to this
// clone's dist/clawd.js goes into the first folder that is already on the PATH and ours to write:
// npm's global bin (where `npm link` puts its links), else ~/.local/bin or ~/bin. A `clawd` on
// the PATH that is something else (an installed package) is left alone. It says what it did and
// how to undo it; CLAWD_NO_PATH=1 skips it.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const windows = process.platform === 'win32';
const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'clawd.js');
const name = windows ? 'clawd.cmd' : 'clawd';
const say = (line) => console.log(`clawd on your PATH: ${line}`);

function onPath() {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.resolve(dir));
}

/** npm's global bin folder, or undefined when npm cannot say. */
function npmBin() {
  try {
    const prefix = execFileSync(windows ? 'npm.cmd' : 'npm', ['prefix', '-g'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      shell: windows,
    }).trim();
    return prefix ? (windows ? prefix : path.join(prefix, 'bin')) : undefined;
  } catch {
    return undefined;
  }
}

const writable = (dir) => {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** What a `clawd` in `dir` is: ours (this clone's), another's, or none. */
function clawdIn(dir) {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) return 'none';
  if (windows) return fs.readFileSync(file, 'utf8').includes(target) ? 'ours' : 'other';
  try {
    return fs.realpathSync(file) === fs.realpathSync(target) ? 'ours' : 'other';
  } catch {
    return 'other'; // a link to a clone that is gone
  }
}

function main() {
  if (process.env.CLAWD_NO_PATH === '1') return;
  if (!fs.existsSync(target)) return say(`not linked: ${target} is not built`);
  const dirs = onPath();
  const found = dirs.find((dir) => clawdIn(dir) !== 'none');
  if (found && clawdIn(found) === 'ours') return; // already there, nothing to say
  if (found) return say(`left as it is: ${path.join(found, name)} is another clawd (npx clawd runs this clone's)`);
  const home = os.homedir();
  const candidates = [npmBin(), path.join(home, '.local', 'bin'), path.join(home, 'bin')].filter(Boolean);
  const dir = candidates.map((d) => path.resolve(d)).find((d) => dirs.includes(d) && writable(d));
  if (!dir)
    return say(
      'not linked: no folder on your PATH is writable (run `npm link` in this clone, or add ~/.local/bin to your PATH and run npm start again)',
    );
  const link = path.join(dir, name);
  if (windows) fs.writeFileSync(link, `@node "${target}" %*\r\n`);
  else fs.symlinkSync(target, link); // the build leaves dist/clawd.js executable
  say(`${link} → ${target} (a new shell finds it; delete that file to undo)`);
}

main();
