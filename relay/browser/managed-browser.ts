// One managed profile's Chromium: launch, readiness, stop. Starts are serialised (two concurrent
// starts share one launch); a browser that a previous `clawd serve` left running on this
// profile's port and user data dir is adopted instead of fought; a port held by another program
// is an error naming the port and, where we can tell, the pid. Ready means /json/version answers
// and its WebSocket opens, within 15 s; a failed launch is killed and reported with the tail of
// Chromium's stderr and a hint. Stop asks Chromium to close (`Browser.close`), then signals.

import { spawn, type ChildProcess } from 'node:child_process';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import { CdpHttp, type CdpVersion } from './cdp-http';
import { decorateProfile } from './decorate';
import type { Executable } from './executable';
import { launchArgs, type LaunchChoice } from './launch-args';
import { isPortFree } from './ports';
import { browserProcess, isAlive, listeningPid } from './processes';
import { removeSingletonLeftovers, removeStaleSingleton, requestBrowserClose } from './shutdown';
import { settlesWithin } from '../time-limit';

export interface ManagedBrowserOptions {
  name: string;
  userDataDir: string;
  cdpPort: number;
  color: string;
  choice: LaunchChoice;
  extraArgs: string[];
  log: Logger;
  readyTimeoutMs?: number;
  stopGraceMs?: number;
}

export interface Started {
  pid: number;
  version: CdpVersion;
  /** True when an already running browser of this profile was adopted. */
  adopted: boolean;
}

const STDERR_LINES = 30;

/** A next step for the usual launch failures, read from Chromium's stderr. */
export function launchHint(stderr: string): string {
  if (/without --no-sandbox|No usable sandbox/i.test(stderr))
    return 'Chromium needs --no-sandbox here: set "noSandbox": true in the browser section of config.json';
  if (/Missing X server|cannot open display|\$DISPLAY/i.test(stderr))
    return 'There is no display: set "headless": true in the browser section of config.json';
  if (/profile appears to be in use|SingletonLock/i.test(stderr))
    return 'Another Chromium uses this profile: stop it, or run `clawd reset-profile`';
  return 'Check browser.executablePath and browser.extraArgs in config.json, or try `clawd doctor`';
}

export class ManagedBrowser {
  readonly cdp: CdpHttp;
  #child: ChildProcess | undefined;
  #adoptedPid: number | undefined;
  #starting: Promise<Started> | undefined;
  #stderr: string[] = [];

  constructor(private readonly options: ManagedBrowserOptions) {
    this.cdp = new CdpHttp(`http://127.0.0.1:${options.cdpPort}`, {}, 2_000);
  }

  /** The browser's main pid while it runs (ours or adopted). */
  get pid(): number | undefined {
    if (this.#child?.pid !== undefined && this.#child.exitCode === null && this.#child.signalCode === null)
      return this.#child.pid;
    if (this.#adoptedPid !== undefined && isAlive(this.#adoptedPid)) return this.#adoptedPid;
    return undefined;
  }

  get starting(): boolean {
    return this.#starting !== undefined;
  }

  start(executable: Executable, progress: (message: string) => void = () => {}): Promise<Started> {
    this.#starting ??= this.#start(executable, progress).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(executable: Executable, progress: (message: string) => void): Promise<Started> {
    const { cdpPort, userDataDir, name, log } = this.options;
    const running = this.pid;
    if (running !== undefined) {
      const version = await this.cdp.isReady();
      if (version) return { pid: running, version, adopted: false };
    }
    if (!(await isPortFree(cdpPort))) {
      // Something listens already: a browser of ours from an earlier run (adopt it), or not ours.
      const ours = await browserProcess(userDataDir, cdpPort);
      const version = ours ? await this.cdp.isReady() : undefined;
      if (ours && version) {
        this.#adoptedPid = ours.pid;
        log.info(`${name}: adopted the running browser (pid ${ours.pid}) on port ${cdpPort}`);
        return { pid: ours.pid, version, adopted: true };
      }
      const holder = await listeningPid(cdpPort);
      throw new ClawdError(
        'port_in_use',
        `CDP port ${cdpPort} of profile ${name} is in use by another program${holder ? ` (pid ${holder})` : ''}: stop it, or create a profile with another port`,
      );
    }
    if (await removeStaleSingleton(userDataDir).catch(() => false))
      log.info(`${name}: removed the lock a crashed browser left`);
    await decorateProfile(userDataDir, name, this.options.color);
    const args = launchArgs({ userDataDir, cdpPort, choice: this.options.choice, extraArgs: this.options.extraArgs });
    progress(`launching ${executable.path}`);
    log.info(`${name}: launching ${executable.path} on CDP port ${cdpPort}`);
    this.#stderr = [];
    const child = spawn(executable.path, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: process.platform !== 'win32',
    });
    this.#child = child;
    this.#adoptedPid = undefined;
    // Chromium prints this the moment its endpoint is up: check readiness then, instead of
    // polling a port that is not open yet (polling competes with the launch for the CPU).
    let listening: () => void = () => {};
    const listeningLine = new Promise<void>((resolve) => (listening = resolve));
    let webSocketUrl: string | undefined;
    let partial = ''; // a chunk may end mid-line
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const url = line.match(/DevTools listening on (ws:\/\/\S+)/)?.[1];
        if (url) {
          webSocketUrl = url;
          listening();
        }
        if (line.trim() !== '') this.#stderr.push(line);
      }
      if (this.#stderr.length > STDERR_LINES) this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
    });
    child.stderr!.once('end', () => {
      if (partial.trim() !== '') this.#stderr.push(partial);
    });
    child.once('exit', (code, signal) => log.info(`${name}: browser exited (${signal ?? code})`));
    const spawnError = new Promise<never>((_, reject) => child.once('error', (error) => reject(error)));
    spawnError.catch(() => {});

    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 15_000);
    try {
      for (;;) {
        // The line, or a slow poll for browsers that do not print it.
        await Promise.race([listeningLine, new Promise((resolve) => setTimeout(resolve, 250)), spawnError]);
        const version = await Promise.race([this.cdp.isReady(2_000, webSocketUrl), spawnError]);
        if (version) {
          log.info(`${name}: ready (${version.Browser}, pid ${child.pid})`);
          return { pid: child.pid!, version, adopted: false };
        }
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`Chromium exited (${child.signalCode ?? child.exitCode}) before its CDP port answered`);
        if (Date.now() > deadline)
          throw new Error(
            `CDP port ${cdpPort} did not answer within ${Math.round((this.options.readyTimeoutMs ?? 15_000) / 1000)} s`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } catch (error) {
      await this.stop();
      const tail = this.#stderr.slice(-12).join('\n');
      throw new ClawdError(
        'launch_failed',
        `could not start ${name}: ${(error as Error).message}. ${launchHint(tail)}${tail ? `\nChromium said:\n${tail}` : ''}`,
        { cause: error },
      );
    }
  }

  /**
   * Stops the browser if it runs; true if there was one to stop. `Browser.close` first (a clean
   * exit, see shutdown.ts), SIGTERM to the process group if it is still there after the grace
   * period, SIGKILL after another; bounded by about three graces in all.
   */
  async stop(): Promise<boolean> {
    const grace = this.options.stopGraceMs ?? 2_500;
    const child = this.#child;
    const pid = this.pid;
    this.#child = undefined;
    this.#adoptedPid = undefined;
    if (pid === undefined) return false;
    const gone: Promise<unknown> =
      child?.pid === pid ? new Promise((resolve) => child.once('exit', resolve)) : untilDead(pid, 4 * grace);
    const version = await this.cdp.version().catch(() => undefined);
    const asked = version ? await requestBrowserClose(version.webSocketDebuggerUrl, grace) : false;
    if (!asked || !(await settlesWithin(gone, grace))) {
      // Our own child: the whole process tree. An adopted browser: just its main process.
      const target = child?.pid === pid && process.platform !== 'win32' ? -pid : pid;
      signal(target, 'SIGTERM');
      if (!(await settlesWithin(gone, grace))) {
        signal(target, 'SIGKILL');
        await settlesWithin(gone, grace);
      }
    }
    await removeSingletonLeftovers(this.options.userDataDir).catch((error) =>
      this.options.log.debug(`${this.options.name}: leftovers: ${(error as Error).message}`),
    );
    return true;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Resolves once a process that is not our child is gone (polled: there is no exit event for it); rejects after `ms`. */
async function untilDead(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
