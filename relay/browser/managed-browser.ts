// One managed profile's Chromium: launch, readiness, stop. The browser is driven over its pipe
// (`--remote-debugging-pipe`, cdp-pipe.ts) and listens on no port: clawd serves the profile's CDP
// port itself (cdp-endpoint.ts), token-checked and held to the profile's policy, over a mux
// (cdp-mux.ts) that gives each client a browser session of its own — so no other program on the
// machine reaches the browser. Starts are serialised (two concurrent starts share one launch). A
// browser of this profile left by an older clawd on its port (one that listened itself) is
// stopped, not adopted; a port held by another program is an error naming it. Ready means the
// browser answered over its pipe and the port is served, within 15 s; a failed launch is killed
// and reported with the tail of Chromium's stderr and a hint. Stop asks Chromium to close
// (`Browser.close`), then closes its pipe (it then exits by itself), then signals.

import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ClawdError } from '../errors';
import type { ServerToken } from '../http/server-token';
import type { Logger } from '../log';
import { CdpHttp, type CdpVersion } from './cdp-http';
import { serveCdpEndpoint, AGENT_KEY_HEADER, type CdpEndpoint } from './cdp-endpoint';
import { CdpMux, type MuxRules } from './cdp-mux';
import { CdpPipe } from './cdp-pipe';
import { decorateProfile } from './decorate';
import type { Executable } from './executable';
import { launchArgs, type LaunchChoice } from './launch-args';
import { isPortFree } from './ports';
import { browserProcess, listeningPid, terminate } from './processes';
import { removeSingletonLeftovers, removeStaleSingleton } from './shutdown';
import { settlesWithin } from '../time-limit';

export interface ManagedBrowserOptions {
  name: string;
  userDataDir: string;
  cdpPort: number;
  color: string;
  choice: LaunchChoice;
  extraArgs: string[];
  log: Logger;
  /** Who may use the port clawd serves: the agents' token, clawd's own key, the rules raw clients keep. */
  access: {
    token: ServerToken;
    agentKey: string;
    rules: (client: { name?: string }) => MuxRules;
    /** clawd's own agent connection's (cdp-endpoint.ts `ownRules`). */
    ownRules?: () => MuxRules;
  };
  readyTimeoutMs?: number;
  stopGraceMs?: number;
  /** The browser exited (asked to, or by itself). */
  onExit?: () => void;
}

export interface Started {
  pid: number;
  version: CdpVersion;
  /** Always false now: a browser this process did not start cannot be driven over its pipe. */
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

interface Running {
  child: ChildProcess;
  pipe: CdpPipe;
  mux: CdpMux;
  endpoint: CdpEndpoint | undefined;
}

export class ManagedBrowser {
  /** clawd's own client of the port it serves (its key, never the token). */
  readonly cdp: CdpHttp;
  /** What clawd's own connections to that port carry. */
  readonly ownHeaders: Record<string, string>;
  #running: Running | undefined;
  #starting: Promise<Started> | undefined;
  /** The close of the last browser's port, under way or done. */
  #forgetting: Promise<void> = Promise.resolve();
  #stderr: string[] = [];

  constructor(private readonly options: ManagedBrowserOptions) {
    this.ownHeaders = { [AGENT_KEY_HEADER]: options.access.agentKey };
    this.cdp = new CdpHttp(`http://127.0.0.1:${options.cdpPort}`, this.ownHeaders, 2_000);
  }

  /** The browser's main pid while it runs. */
  get pid(): number | undefined {
    const child = this.#running?.child;
    return child?.pid !== undefined && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /**
   * The browser socket clawd serves for it, while it runs: known without asking. A `/json/version`
   * round trip goes over the pipe (Browser.getVersion), and with eight browsers starting on two
   * cores it outlasted its bound: a policy guard refused to start, so calls failed (bench `many-profiles`).
   */
  get ownSocket(): { url: string; headers: Record<string, string> } | undefined {
    if (this.pid === undefined || !this.#running?.endpoint) return undefined;
    return { url: `ws://127.0.0.1:${this.options.cdpPort}/cdp`, headers: this.ownHeaders };
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
    if (running !== undefined && this.#running?.endpoint) {
      const version = await this.cdp.isReady().catch(() => undefined);
      if (version) return { pid: running, version, adopted: false };
    }
    // What is left of a browser that went away by itself: its port is served no more.
    await this.#forget();
    await this.#claimPort();
    if (await removeStaleSingleton(userDataDir).catch(() => false))
      log.info(`${name}: removed the lock a crashed browser left`);
    await decorateProfile(userDataDir, name, this.options.color);
    const args = launchArgs({ userDataDir, choice: this.options.choice, extraArgs: this.options.extraArgs });
    progress(`launching ${executable.path}`);
    log.info(`${name}: launching ${executable.path}, its CDP port ${cdpPort} served by clawd`);
    const { current, exited } = this.#launch(executable, args);
    return await this.#ready(current, exited);
  }

  /** The profile's CDP port free for clawd to serve, or port_in_use naming who holds it. */
  async #claimPort(): Promise<void> {
    const { cdpPort, userDataDir, name, log } = this.options;
    if (await isPortFree(cdpPort)) return;
    // A browser of this profile that an older clawd left listening on the port itself: stopped,
    // since only a browser clawd starts over its pipe answers to clawd alone.
    const leftover = await browserProcess(userDataDir, cdpPort);
    if (leftover) {
      log.info(`${name}: stopping the browser an earlier clawd left on port ${cdpPort} (pid ${leftover.pid})`);
      await terminate(leftover.pid, this.options.stopGraceMs ?? 2_500);
    }
    if (!(await isPortFree(cdpPort))) {
      const holder = await listeningPid(cdpPort);
      throw new ClawdError(
        'port_in_use',
        `CDP port ${cdpPort} of profile ${name} is in use by another program${holder ? ` (pid ${holder})` : ''}: stop it, or create a profile with another port`,
      );
    }
  }

  /** Spawns Chromium on its pipe; `exited` rejects when it exits (or cannot start) at any time. */
  #launch(executable: Executable, args: string[]): { current: Running; exited: Promise<never> } {
    const { name, log } = this.options;
    this.#stderr = [];
    // fd 3: what Chromium reads (our commands); fd 4: what it writes.
    const child = spawn(executable.path, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const pipe = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const mux = new CdpMux(pipe, log);
    const current: Running = { child, pipe, mux, endpoint: undefined };
    this.#running = current;
    this.#keepStderr(child);
    child.once('exit', (code, signal) => {
      log.info(`${name}: browser exited (${signal ?? code})`);
      this.options.onExit?.();
      // Gone by itself (a crash, a kill): its port is not served for a browser that is not there.
      if (this.#running === current) void this.#forget();
    });
    const exited = new Promise<never>((_, reject) => {
      child.once('error', (error) => reject(error));
      child.once('exit', (code, signal) =>
        reject(new Error(`Chromium exited (${signal ?? code}) before it answered over its pipe`)),
      );
    });
    exited.catch(() => {});
    return { current, exited };
  }

  /** The last STDERR_LINES lines Chromium wrote, for a failed launch's report. */
  #keepStderr(child: ChildProcess): void {
    let partial = ''; // a chunk may end mid-line
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') this.#stderr.push(line);
      if (this.#stderr.length > STDERR_LINES) this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
    });
    child.stderr!.once('end', () => {
      if (partial.trim() !== '') this.#stderr.push(partial);
    });
  }

  /** Ready: the browser answered over its pipe and its port is served; else it is stopped and said why. */
  async #ready(current: Running, exited: Promise<never>): Promise<Started> {
    const { cdpPort, name, log } = this.options;
    const { child, mux } = current;
    const timeoutMs = this.options.readyTimeoutMs ?? 15_000;
    try {
      // The first answer over the pipe: Chromium is up (no port to poll). Its pipe closes as it
      // exits: then say how it exited, not only that the pipe went.
      await Promise.race([mux.call('Browser.getVersion', {}, timeoutMs), exited]).catch(async (error: unknown) => {
        const exit = await Promise.race([
          exited.catch((e: unknown) => e),
          new Promise((resolve) => setTimeout(resolve, 1_000)),
        ]);
        throw exit instanceof Error ? exit : error;
      });
      current.endpoint = await serveCdpEndpoint({
        port: cdpPort,
        mux,
        token: this.options.access.token,
        agentKey: this.options.access.agentKey,
        rules: this.options.access.rules,
        ...(this.options.access.ownRules ? { ownRules: this.options.access.ownRules } : {}),
        log,
      });
      // Within the start's own bound: a browser starting beside others on a loaded machine answers
      // its first questions slowly (over 2 s, seen with a pool's warm browsers in CI).
      const version = await this.cdp.version(timeoutMs);
      log.info(`${name}: ready (${version.Browser}, pid ${child.pid})`);
      return { pid: child.pid!, version, adopted: false };
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
   * The port is served no more and the pipe is closed (what ran on them is gone). Resolves once
   * the port is free: a start right after a browser died waits for the last one's close.
   */
  #forget(): Promise<void> {
    const running = this.#running;
    if (!running) return this.#forgetting;
    this.#running = undefined;
    running.mux.close();
    running.pipe.close();
    this.#forgetting = running.endpoint?.close() ?? Promise.resolve();
    return this.#forgetting;
  }

  /**
   * Stops the browser if it runs; true if there was one to stop. `Browser.close` first (a clean
   * exit, see shutdown.ts), then its pipe closed (it exits by itself on that), SIGTERM to the
   * process group if it is still there after the grace period, SIGKILL after another.
   */
  async stop(): Promise<boolean> {
    const grace = this.options.stopGraceMs ?? 2_500;
    const running = this.#running;
    const pid = this.pid;
    if (!running) return false;
    const { child, mux } = running;
    const gone: Promise<unknown> =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.once('exit', resolve));
    await running.endpoint?.close();
    if (pid !== undefined) {
      const asked = await settlesWithin(
        mux.call('Browser.close', {}, grace).catch(() => undefined),
        grace,
      );
      if (!asked || !(await settlesWithin(gone, grace))) {
        running.pipe.close();
        if (!(await settlesWithin(gone, grace))) {
          const target = process.platform !== 'win32' ? -pid : pid;
          signal(target, 'SIGTERM');
          if (!(await settlesWithin(gone, grace))) {
            signal(target, 'SIGKILL');
            await settlesWithin(gone, grace);
          }
        }
      }
    }
    await this.#forget();
    await removeSingletonLeftovers(this.options.userDataDir).catch((error) =>
      this.options.log.debug(`${this.options.name}: leftovers: ${(error as Error).message}`),
    );
    return pid !== undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
