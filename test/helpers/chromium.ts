// Real Chromium for end-to-end tests, launched the way a user's browser would run our extension:
// the built dist/extension loaded unpacked, no Playwright attached to the browser (Playwright's
// own connection keeps service workers alive and would hide worker restarts). The harness talks
// raw CDP to the browser for what a user does by hand: clicking the toolbar button
// (Extensions.triggerAction on the tab target), typing settings into the options, closing tabs.
// Kept whole (under the 400-line cap): one browser's launch, its extension and its end together.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID } from '../../shared/defaults';
import { removeSingletonLeftovers } from '../../relay/browser/shutdown';
import { CdpClient } from './cdp-client';
import { quiet, until, within } from './waits';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The built extension: beside this file's bundle (dist/bench.js) or from the sources (test/helpers). */
export const EXTENSION_DIR =
  [process.env.CLAWD_EXTENSION_DIR, path.resolve(here, '../../dist/extension'), path.resolve(here, 'extension')].find(
    (dir): dir is string => !!dir && existsSync(path.join(dir, 'manifest.json')),
  ) ?? path.resolve(here, '../../dist/extension');

/** The id Chrome gives an unpacked extension without a `key`: from the SHA-256 of its folder's path, digits as a–p. */
export function unpackedExtensionId(dir: string): string {
  const hex = createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

export function chromiumPath(): string {
  const candidates = [
    process.env.CLAWD_TEST_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (!found) throw new Error('No Chromium found: install it (apt-get install -y chromium) or set CLAWD_TEST_CHROMIUM');
  return found;
}

/** Names for tests that need a site with subdomains (cookies of a parent domain): all loopback. */
export const SHOP_HOSTS_FLAG = '--host-resolver-rules=MAP shop.test 127.0.0.1, MAP *.shop.test 127.0.0.1';

/** Flags a closed network and a root user need: without them Chromium keeps calling Google's hosts, and as root it will not start sandboxed. */
export const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--password-store=basic',
  SHOP_HOSTS_FLAG,
];

export interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
  attached: boolean;
}

/**
 * The process groups of the browsers this process started and has not closed: killed when it
 * exits however it does (a bench run past its bound, a test worker ended), since each browser is
 * a group of its own that would outlive it.
 */
const running = new Map<number, string | undefined>();

/** A listed worker target whose evaluate did not answer: attach afresh and wake the worker. */
class WorkerSilent extends Error {
  constructor() {
    super('the worker target did not answer an evaluate within 2 s');
  }
}
process.on('exit', () => {
  for (const [pid, folder] of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    // Its user data folder too, when it was its own (best effort: the browser may still be dying).
    if (folder) rmSync(folder, { recursive: true, force: true, maxRetries: 2 });
  }
});

export class TestBrowser {
  private constructor(
    readonly process: ChildProcess,
    readonly cdp: CdpClient,
    readonly wsEndpoint: string,
    readonly userDataDir: string,
    /** The loaded extension's id: the pinned one, or the one Chrome derived for a build without a key. */
    readonly extensionId: string = EXTENSION_ID,
    /** Whether the user data folder is this browser's own (removed on close). */
    private readonly ownsUserData = true,
  ) {}

  /** Launches Chromium with the built extension and waits for its service worker. */
  /**
   * `display`: run headed on that X display (e.g. Xvfb's), where a background tab really is hidden.
   * `extensionDir`: another build of the extension (the store zip, unpacked), `extensionId` its id.
   */
  static async launch(
    options: {
      extension?: boolean;
      args?: string[];
      display?: string;
      extensionDir?: string;
      extensionId?: string;
      /** A user data folder of the caller's (kept on close, so a browser can be started on it again). */
      userDataDir?: string;
    } = {},
  ): Promise<TestBrowser> {
    const withExtension = options.extension ?? true;
    const extensionDir = options.extensionDir ?? EXTENSION_DIR;
    if (withExtension && !existsSync(path.join(extensionDir, 'manifest.json'))) {
      throw new Error(`${extensionDir} is missing: run npm run build first`);
    }
    const userDataDir = options.userDataDir ?? mkdtempSync(path.join(os.tmpdir(), 'clawd-chromium-'));
    // Developer mode on, as for anyone who loaded the extension unpacked: without it Chrome 137+
    // disables an unpacked extension on reload (DISABLE_UNSUPPORTED_DEVELOPER_EXTENSION).
    mkdirSync(path.join(userDataDir, 'Default'), { recursive: true });
    // Downloads land in the profile's own folder, never the user's ~/Downloads, and without a prompt.
    const downloads = path.join(userDataDir, 'Downloads');
    if (!existsSync(path.join(userDataDir, 'Default', 'Preferences')))
      writeFileSync(
        path.join(userDataDir, 'Default', 'Preferences'),
        JSON.stringify({
          extensions: { ui: { developer_mode: true } },
          download: { default_directory: downloads, prompt_for_download: false },
        }),
      );
    const args = [
      ...CHROMIUM_FLAGS.filter((flag) => !(options.display && flag.startsWith('--headless'))),
      `--user-data-dir=${userDataDir}`,
      '--remote-debugging-port=0',
      ...(withExtension ? [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`] : []),
      ...(options.args ?? []),
      'about:blank',
    ];
    const env = options.display ? { ...process.env, DISPLAY: options.display } : process.env;
    const child = spawn(chromiumPath(), args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env });
    const pid = child.pid;
    if (pid !== undefined) {
      running.set(pid, options.userDataDir === undefined ? userDataDir : undefined);
      child.once('exit', () => running.delete(pid));
    }
    let stderr = '';
    const wsEndpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Chromium did not start within 20 s:\n${stderr.slice(-2000)}`)),
        20_000,
      );
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const match = stderr.match(/DevTools listening on (ws:\/\/\S+)/);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Chromium exited (${code}) before listening:\n${stderr.slice(-2000)}`));
      });
    });
    const cdp = await CdpClient.connect(wsEndpoint);
    const browser = new TestBrowser(
      child,
      cdp,
      wsEndpoint,
      userDataDir,
      options.extensionId ?? EXTENSION_ID,
      options.userDataDir === undefined,
    );
    if (withExtension) await until('the extension service worker', () => browser.workerTarget());
    return browser;
  }

  async targets(type?: string): Promise<TargetInfo[]> {
    const { targetInfos } = await this.cdp.send<{ targetInfos: TargetInfo[] }>(
      'Target.getTargets',
      type ? { filter: [{ type }] } : {},
    );
    return type ? targetInfos : targetInfos.filter((t) => t.type !== 'browser' && t.type !== 'tab');
  }

  async workerTarget(): Promise<TargetInfo | undefined> {
    return (await this.workerTargets())[0];
  }

  /** Every target of the extension's service worker listed (a stopped one may linger beside the new one a while). */
  async workerTargets(): Promise<TargetInfo[]> {
    return (await this.targets('service_worker')).filter((t) =>
      t.url.startsWith(`chrome-extension://${this.extensionId}/`),
    );
  }

  /**
   * Evaluates in the extension's service worker, attaching afresh (the worker may have restarted).
   * A worker target is listed a moment before its extension APIs exist, so wait for `chrome` first.
   */
  async swEval<T = unknown>(expression: string): Promise<T> {
    // A worker that stops under the evaluation (a kept browser's reset starts it again from
    // nothing; the extension's API then answers "No SW") is attached afresh, within a bound.
    // Every worker target listed is tried: once, in a clean-clone CI run, the one listed first
    // answered "No SW" for 20 s after a kept browser's reset reloaded the extension.
    // A worker stopped under a test (faults.test.ts stops it) stayed listed and answered "No SW"
    // for the whole 20 s once, in a clean-clone CI run: after a few tries, an event it listens to
    // (a new tab, and every other time its options page, which messages it) starts it again.
    // A worker answering "No SW" and nothing else for 6 s is taken for one Chrome will not give
    // its extension APIs back (20 s of it, wakes and all, in clean-clone runs on Chromium 150
    // and 156, after a kept browser's reset): the extension is reloaded once from its options
    // page, which needs no worker, and the new worker is tried.
    const started = Date.now();
    const deadline = started + 20_000;
    let silent = 0;
    let onlyNoSw = true;
    let reloaded = false;
    for (let round = 1; ; round++) {
      const workers = await this.#listedWorkers();
      let failed: unknown;
      for (const worker of workers) {
        try {
          return await this.#swEvalOn<T>(worker, expression);
        } catch (error) {
          // Only errors that say the expression did not run (it is not run twice).
          if (
            !(error instanceof WorkerSilent) &&
            !/No SW|No target with given id|Session with given id not found/.test(String(error))
          )
            throw error;
          failed = error;
          onlyNoSw &&= /No SW/.test(String(error));
          // Each silent try costs 2 s: the options page every other time, from the first.
          if (error instanceof WorkerSilent) await this.#wakeWorker(silent++ % 2 === 0);
        }
      }
      if (onlyNoSw && !reloaded && Date.now() - started > 6_000) {
        reloaded = true;
        // Said: the reload ends the extension's attachments and connection under the calling test.
        console.warn('swEval: the worker answered only "No SW" for 6 s: the extension is reloaded');
        await this.#reloadExtension(workers);
        continue;
      }
      if (Date.now() > deadline) {
        const listed = workers.map((w) => `${w.targetId} ${w.url}`).join(', ');
        throw new Error(`${String(failed)} (for 20 s; the worker targets listed: ${listed || 'none'})`);
      }
      if (round % 10 === 0) await this.#wakeWorker(round % 20 === 0);
      await quiet(100);
    }
  }

  /**
   * The extension's worker targets, waking a worker that is not running: once, in a clean-clone CI
   * run, none was listed for 10 s when a file leased a kept browser. A new tab is an event the
   * worker listens to at its top level (chrome.tabs.onCreated), so it starts it.
   */
  async #listedWorkers(): Promise<TargetInfo[]> {
    const started = Date.now();
    let woken: string | undefined;
    try {
      return await until(
        'the extension service worker',
        async () => {
          const listed = await this.workerTargets();
          if (listed.length > 0) return listed;
          if (woken === undefined && Date.now() - started > 1_000)
            ({ targetId: woken } = await this.cdp.send<{ targetId: string }>('Target.createTarget', {
              url: 'about:blank',
            }));
          return undefined;
        },
        15_000,
      );
    } catch (error) {
      const targets = (await this.targets().catch(() => [])).map((t) => `${t.type} ${t.url}`);
      throw new Error(`${(error as Error).message}; targets: ${targets.join(', ') || 'none'}`);
    } finally {
      if (woken) await this.cdp.send('Target.closeTarget', { targetId: woken }).catch(() => {});
    }
  }

  /**
   * Starts the worker: a blank tab (chrome.tabs.onCreated, a top-level listener), or (`optionsPage`,
   * every other time) the extension's options page, whose script messages the worker at load (a
   * message must start it). A worker stopped under a test stayed listed and answered "No SW" for the whole 20 s,
   * new tabs and all, twice in clean-clone runs on Chromium 150.
   */
  async #wakeWorker(optionsPage: boolean): Promise<void> {
    const url = optionsPage ? `chrome-extension://${this.extensionId}/options.html` : 'about:blank';
    const { targetId } = await this.cdp.send<{ targetId: string }>('Target.createTarget', { url });
    if (url !== 'about:blank') await quiet(300); // its script runs and sends its message
    await this.cdp.send('Target.closeTarget', { targetId }).catch(() => {});
  }

  /** Reloads the extension from its options page (it needs no worker) and waits for a worker not among `old`. */
  async #reloadExtension(old: TargetInfo[]): Promise<void> {
    const before = new Set(old.map((w) => w.targetId));
    // The reload closes the page itself: its evaluation answers first (the reload is queued).
    await this.withOptionsPage((inOptions) => inOptions('setTimeout(() => chrome.runtime.reload(), 0), true'));
    await until(
      'a new worker after the extension reloaded',
      async () => (await this.workerTargets()).find((w) => !before.has(w.targetId)),
      8_000,
    );
  }

  async #swEvalOn<T>(worker: TargetInfo, expression: string): Promise<T> {
    const { sessionId } = await this.cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
    const evaluate = async (code: string) => {
      const { result, exceptionDetails } = await this.cdp.send(
        'Runtime.evaluate',
        { expression: code, awaitPromise: true, returnByValue: true },
        sessionId,
      );
      if (exceptionDetails)
        throw new Error(
          `worker evaluation failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
        );
      return result.value as T;
    };
    try {
      await until(
        'the worker to have its extension APIs',
        async () => {
          // A listed worker that never answered (its evaluate pending 45 s, once in a clean-clone
          // run on Chromium 150 after faults.test.ts stopped it) is given up on here: swEval
          // attaches afresh and wakes it. The probe awaits nothing, so a live worker answers at once.
          const probe = within(2_000, evaluate("typeof chrome === 'object' && !!chrome.storage"), 'the probe');
          const ready = await probe.catch((error: unknown) => {
            if (/still pending/.test(String(error))) throw new WorkerSilent();
            throw error;
          });
          return ready === true;
        },
        // A whole run's load: a worker started a moment ago took over 5 s to get them (seen twice).
        15_000,
        25,
        (error) => error instanceof WorkerSilent,
      );
      return await evaluate(expression);
    } finally {
      await this.cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  }

  /** What pairing leaves in the extension: the relay's port and the extension key (pairing.test.ts pairs for real). */
  async configureExtension(relayPort: number, extensionKey: string): Promise<void> {
    // Written from the options page, as pairing does: an extension page's storage needs no
    // running worker (one answered "No SW" for 20 s to this write, in clean-clone runs), and the
    // write is an event the worker listens to (storage.onChanged), so it starts one.
    const written = await this.withOptionsPage((inOptions) =>
      inOptions(`chrome.storage.local.set(${JSON.stringify({ relayPort, extensionKey })}).then(() => true)`),
    );
    if (written !== true)
      throw new Error(`the extension's settings were not written from its options page: ${String(written)}`);
    // A worker that runs reads them and connects: one that answers only "No SW" (seen after a
    // kept browser's reset) never did — a 150 run waited 15 s for the connection — and swEval
    // brings it back (the extension reloaded from its options page keeps its storage).
    await this.swEval('true');
  }

  /** Opens a tab as a user would, waiting until it has loaded; returns its tab and page target ids. */
  async openTab(url: string): Promise<{ tabTargetId: string; pageTargetId: string }> {
    const before = new Set((await this.targets('tab')).map((t) => t.targetId));
    const { targetId } = await this.cdp.send<{ targetId: string }>('Target.createTarget', { url });
    const tab = await until('the new tab target', async () =>
      (await this.targets('tab')).find((t) => !before.has(t.targetId)),
    );
    if (!url.startsWith('chrome://')) {
      const session = await this.pageSession(targetId);
      try {
        await until(`${url} to load`, async () => {
          // Without the fragment: a page may drop it (the pair page removes its one-time code).
          const { result } = await this.cdp.send(
            'Runtime.evaluate',
            { expression: 'location.href.split("#")[0] + " " + document.readyState', returnByValue: true },
            session,
          );
          return result.value === `${new URL(url).href.split('#')[0]} complete`;
        });
      } finally {
        await this.cdp.send('Target.detachFromTarget', { sessionId: session }).catch(() => {});
      }
    } else {
      await until(`${url} to load`, async () =>
        (await this.targets('page')).some((t) => t.targetId === targetId && t.url.startsWith(url)),
      );
    }
    return { tabTargetId: tab.targetId, pageTargetId: targetId };
  }

  /** The tab target of the first tab (the one Chromium opened at start). */
  async firstTab(): Promise<{ tabTargetId: string; pageTargetId: string }> {
    const tab = (await this.targets('tab'))[0];
    const page = (await this.targets('page'))[0];
    if (!tab || !page) throw new Error('no tab open');
    return { tabTargetId: tab.targetId, pageTargetId: page.targetId };
  }

  /**
   * A real toolbar click on that tab: fires chrome.action.onClicked in the extension. A user
   * clicks on the tab in front, and Chrome acts on the active tab, so the tab comes first.
   */
  async clickToolbar(tab: { tabTargetId: string; pageTargetId: string }): Promise<void> {
    await this.cdp.send('Target.activateTarget', { targetId: tab.pageTargetId });
    await this.cdp.send('Extensions.triggerAction', { id: this.extensionId, targetId: tab.tabTargetId });
  }

  /** Chrome's tab id for a page target, as the extension sees it. */
  async tabIdOf(pageTargetId: string): Promise<number> {
    return until('the tab id', () =>
      this.swEval<number | undefined>(
        `chrome.debugger.getTargets().then(ts => ts.find(t => t.id === ${JSON.stringify(pageTargetId)})?.tabId)`,
      ),
    );
  }

  async badge(tabId: number): Promise<{ text: string; title: string }> {
    return this.swEval(
      `Promise.all([chrome.action.getBadgeText({tabId: ${tabId}}), chrome.action.getTitle({tabId: ${tabId}})]).then(([text, title]) => ({text, title}))`,
    );
  }

  /** The live status line of the extension's options page, as a user reads it. */
  async optionsStatus(): Promise<string> {
    const url = `chrome-extension://${this.extensionId}/options.html`;
    const page = (await this.targets('page')).find((t) => t.url === url) ?? {
      targetId: (await this.openTab(url)).pageTargetId,
    };
    const session = await this.pageSession(page.targetId);
    try {
      // The page refreshes the line every 2 s; read it fresh.
      const { result } = await this.cdp.send(
        'Runtime.evaluate',
        {
          expression: 'refreshLiveForTests?.() ?? document.getElementById("live").textContent',
          awaitPromise: true,
          returnByValue: true,
        },
        session,
      );
      return result.value as string;
    } finally {
      await this.cdp.send('Target.detachFromTarget', { sessionId: session }).catch(() => {});
    }
  }

  /** Stops the extension's service worker on purpose; its next event starts a fresh one. */
  async terminateWorker(): Promise<void> {
    const worker = await this.workerTarget();
    if (!worker) throw new Error('no service worker to terminate');
    await this.cdp.send('Target.closeTarget', { targetId: worker.targetId });
    // With a client attached, page events wake a fresh worker (a new target) almost at once.
    await until(
      'the worker to stop',
      async () => (await this.workerTarget())?.targetId !== worker.targetId || undefined,
      5_000,
    );
  }

  /**
   * Runs `work` with the extension's options page open, as the person has it: `inOptions`
   * evaluates an expression there (awaited); the page is closed after.
   */
  async withOptionsPage<T>(work: (inOptions: (expression: string) => Promise<unknown>) => Promise<T>): Promise<T> {
    const options = await this.openTab(`chrome-extension://${this.extensionId}/options.html`);
    const session = await this.pageSession(options.pageTargetId);
    const inOptions = async (expression: string) =>
      (
        await this.cdp.send<{ result: { value?: unknown } }>(
          'Runtime.evaluate',
          { expression, returnByValue: true, awaitPromise: true },
          session,
        )
      ).result.value;
    try {
      return await work(inOptions);
    } finally {
      await this.cdp.send('Target.closeTarget', { targetId: options.pageTargetId }).catch(() => {});
      // Chrome answers the close while the page is still closing, and lists it a while: gone
      // before the caller goes on (optionsStatus would find it, and its evaluate never answers).
      await until(
        'the options page to close',
        async () => !(await this.targets('page')).some((t) => t.targetId === options.pageTargetId),
        5_000,
      ).catch(() => {});
    }
  }

  /** A raw CDP session of the harness on a page (a second debugger client, as DevTools would be). */
  async pageSession(pageTargetId: string): Promise<string> {
    const { sessionId } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: pageTargetId,
      flatten: true,
    });
    return sessionId;
  }

  async close(): Promise<void> {
    await this.cdp.close().catch(() => {});
    if (this.process.exitCode === null && this.process.pid) {
      const exited = new Promise((r) => this.process.once('exit', r));
      try {
        process.kill(-this.process.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-this.process.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 3_000);
      await exited;
      clearTimeout(timer);
    }
    // A signalled Chromium leaves its singleton folder in the temp dir; the product's cleanup removes it.
    await removeSingletonLeftovers(this.userDataDir);
    // Chromium's network process can still be writing into the profile when the browser process
    // has exited (seen once in CI as ENOTEMPTY): the removal is tried again for a short while.
    if (this.ownsUserData) rmSync(this.userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
