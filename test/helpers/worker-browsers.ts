// Browsers kept between the files of one test worker, as Playwright's own tests share a browser:
// the e2e files share their worker's process (isolate: false), and starting Chromium is the
// largest fixed cost of a file (measured here: ~1.4 s of CPU with the extension, ~0.9 without,
// ~150 launches in an e2e run). A file leases one and gives it back; the next file gets it reset —
// one blank tab, no cookies, the extension reloaded with empty storage, no downloads — as a fresh
// launch would be. Only the usual headless kinds are kept; a browser a reset fails on is closed.

import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { TestBrowser } from './chromium';
import { until } from './waits';

/** What a kept browser may be: with the built extension (the person's Chrome) or without (a remote one). */
export interface LeaseOptions {
  extension: boolean;
}

const spare = { withExtension: [] as TestBrowser[], without: [] as TestBrowser[] };
/** Every browser this worker keeps or lent, for the worker's exit. */
const kept = new Set<TestBrowser>();

/** How long a reset may take before the browser is closed instead (a busy run's worker restart is seconds). */
const RESET_MS = 20_000;

/** A browser for this file: a kept one, reset, or a new one. Give it back with `giveBack`. */
export async function leaseBrowser(options: LeaseOptions): Promise<TestBrowser> {
  const shelf = options.extension ? spare.withExtension : spare.without;
  const reused = shelf.pop();
  if (reused) return reused;
  const browser = await TestBrowser.launch({ extension: options.extension });
  kept.add(browser);
  watchExit();
  return browser;
}

/** Takes a leased browser back for the next file, reset; closes it if the reset fails. */
export async function giveBack(browser: TestBrowser, options: LeaseOptions): Promise<void> {
  try {
    await withinBound(reset(browser, options), RESET_MS);
    (options.extension ? spare.withExtension : spare.without).push(browser);
  } catch {
    kept.delete(browser);
    await browser.close();
  }
}

async function reset(browser: TestBrowser, options: LeaseOptions): Promise<void> {
  if (browser.process.exitCode !== null || browser.process.signalCode !== null) throw new Error('exited');
  // A blank tab first: closing the others never leaves the browser without a window.
  const { targetId: blank } = await browser.cdp.send<{ targetId: string }>('Target.createTarget', {
    url: 'about:blank',
  });
  for (const target of await browser.targets('page'))
    if (target.targetId !== blank)
      await browser.cdp.send('Target.closeTarget', { targetId: target.targetId }).catch(() => {});
  await browser.cdp.send('Storage.clearCookies', {});
  await unregisterServiceWorkers(browser, blank);
  const downloads = path.join(browser.userDataDir, 'Downloads');
  for (const name of readdirSafe(downloads)) rmSync(path.join(downloads, name), { recursive: true, force: true });
  if (!options.extension) return;
  // The extension as installed: its storage empty (no relay, no key: the next file configures
  // it), its content settings taken back, and its worker started again from nothing.
  const before = (await browser.workerTarget())?.targetId;
  await browser.swEval(
    `Promise.all([chrome.storage.local.clear(), chrome.storage.session.clear(), chrome.alarms.clearAll(),
      ...['location', 'notifications', 'clipboard', 'camera', 'microphone'].map((t) => chrome.contentSettings[t].clear({}))])
      .then(() => { setTimeout(() => chrome.runtime.reload(), 0); return true; })`,
  );
  await until(
    'the extension to start again',
    async () => {
      const worker = await browser.workerTarget();
      return worker && worker.targetId !== before ? worker : undefined;
    },
    RESET_MS,
  );
}

/**
 * The pages' service workers go, registrations and all: a worker of the last file's page runs on
 * for up to 30 s after its page closed, and Playwright's context lists every running one.
 */
async function unregisterServiceWorkers(browser: TestBrowser, blank: string): Promise<void> {
  const session = await browser.pageSession(blank);
  const scopes = new Set<string>();
  const stop = browser.cdp.onMessage((m) => {
    if (m.sessionId !== session || m.method !== 'ServiceWorker.workerRegistrationUpdated') return;
    for (const registration of (m.params as { registrations: Array<{ scopeURL: string }> }).registrations)
      if (!registration.scopeURL.startsWith('chrome-extension://')) scopes.add(registration.scopeURL);
  });
  try {
    // The registrations are sent as enable answers, all at once.
    await browser.cdp.send('ServiceWorker.enable', {}, session);
    for (const scopeURL of scopes) await browser.cdp.send('ServiceWorker.unregister', { scopeURL }, session);
    for (const worker of await browser.targets('service_worker'))
      if (!worker.url.startsWith('chrome-extension://'))
        await browser.cdp.send('Target.closeTarget', { targetId: worker.targetId }).catch(() => {});
  } finally {
    stop();
    await browser.cdp.send('Target.detachFromTarget', { sessionId: session }).catch(() => {});
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function withinBound<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

let watching = false;
/**
 * Kept browsers run detached (their own process group): vitest ends a worker with SIGTERM, which
 * would leave them running. So the worker kills them and removes their folders as it exits.
 */
function watchExit(): void {
  if (watching) return;
  watching = true;
  const killAll = () => {
    for (const browser of kept) {
      try {
        if (browser.process.pid) process.kill(-browser.process.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(browser.userDataDir, { recursive: true, force: true });
    }
    kept.clear();
  };
  process.once('exit', killAll);
  process.once('SIGTERM', () => {
    killAll();
    process.exit(0);
  });
}
