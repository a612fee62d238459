// Browsers kept between the files of one test worker, as Playwright's own tests share a browser:
// the e2e files share their worker's process (isolate: false), and starting Chromium is a large
// fixed cost of a file (measured here: ~1.4 s of CPU with the extension, ~0.9 without; an e2e run
// launched 54 with the extension). A file leases one and gives it back; the next file gets it
// reset (`reset` says what goes). Only the usual headless kinds are kept; a browser a reset fails
// on is closed.

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestBrowser } from './chromium';
import { keptBrowsersFolder } from './kept-browsers-sweep';
import { quiet, until, within } from './waits';

/** What a kept browser may be: with the built extension (the person's Chrome) or without (a remote one). */
export interface LeaseOptions {
  extension: boolean;
}

const spare = { withExtension: [] as TestBrowser[], without: [] as TestBrowser[] };
/** Every browser this worker keeps or lent, for the worker's exit. */
const kept = new Set<TestBrowser>();
/** The ones a file holds now: given back once, never used by two files. */
const leased = new Set<TestBrowser>();

/**
 * How long a reset may take before the browser is closed instead: a busy run's worker restart is
 * seconds, and a new browser for the next file costs one or two. Once in a clean-clone CI run (on
 * Chromium 150, after agent-faults' stuck page) a reset hung; with a bound of 20 s it cost more
 * than the launch it saves.
 */
const RESET_MS = 8_000;

/** A browser for this file: a kept one, reset, or a new one. Give it back with `giveBack`. */
export async function leaseBrowser(options: LeaseOptions): Promise<TestBrowser> {
  const shelf = options.extension ? spare.withExtension : spare.without;
  const browser = shelf.pop() ?? (await TestBrowser.launch({ extension: options.extension }));
  if (!kept.has(browser)) record(browser);
  kept.add(browser);
  leased.add(browser);
  watchExit();
  return browser;
}

/** Takes a leased browser back for the next file, reset; closes it if the reset fails. */
export async function giveBack(browser: TestBrowser, options: LeaseOptions): Promise<void> {
  if (!leased.delete(browser)) throw new Error('giveBack: this browser is not leased (given back twice?)');
  try {
    const step = { now: 'starting' };
    await within(RESET_MS, reset(browser, options, step), 'the reset').catch((error: Error) => {
      throw new Error(`${error.message} (at: ${step.now})`);
    });
    (options.extension ? spare.withExtension : spare.without).push(browser);
  } catch (error) {
    // Said, so that a reset that fails every time (and costs a launch every file) is seen.
    console.warn(`worker-browsers: a reset failed, the browser is closed: ${(error as Error).message}`);
    kept.delete(browser);
    await browser.close();
    rmSync(recordOf(browser), { force: true });
  }
}

function recordOf(browser: TestBrowser): string {
  return path.join(keptBrowsersFolder(process.ppid), String(browser.process.pid));
}

function record(browser: TestBrowser): void {
  mkdirSync(keptBrowsersFolder(process.ppid), { recursive: true });
  writeFileSync(recordOf(browser), browser.userDataDir);
}

/**
 * What goes: every tab but one new blank one (popups and other windows too), every cookie, the
 * storage of every origin a tab showed at the end or a service worker was registered for (its
 * local storage, databases, caches and the worker itself), the downloads, and on the extension's
 * kind its storage, alarms, content settings, session rules and download list, its worker started
 * again from nothing. What an origin no tab showed at the end keeps in local storage stays: the
 * next file's pages are on other ports, so other origins (only a port used again would meet it).
 */
async function reset(browser: TestBrowser, options: LeaseOptions, step: { now: string }): Promise<void> {
  if (browser.process.exitCode !== null || browser.process.signalCode !== null) throw new Error('exited');
  // A blank tab first: closing the others never leaves the browser without a window.
  const { targetId: blank } = await browser.cdp.send<{ targetId: string }>('Target.createTarget', {
    url: 'about:blank',
  });
  const origins = new Set<string>();
  for (const target of await browser.targets('page')) {
    if (target.targetId === blank) continue;
    step.now = `closing ${target.url}`;
    if (/^https?:/.test(target.url)) origins.add(new URL(target.url).origin);
    await browser.cdp.send('Target.closeTarget', { targetId: target.targetId }).catch(() => {});
  }
  step.now = 'clearing cookies';
  await browser.cdp.send('Storage.clearCookies', {});
  step.now = `clearing ${[...origins].join(', ') || 'no origin'}`;
  await clearOrigins(browser, blank, origins);
  const downloads = path.join(browser.userDataDir, 'Downloads');
  for (const name of readdirSafe(downloads)) rmSync(path.join(downloads, name), { recursive: true, force: true });
  if (!options.extension) return;
  // The extension as installed: its storage empty (no relay, no key: the next file configures
  // it), its content settings, session rules (they outlive a reload) and downloads taken back,
  // and its worker started again from nothing.
  step.now = "clearing the extension's state";
  // Every worker listed before: a stopped one may linger beside the running one, and the new
  // worker is none of them.
  const before = new Set((await browser.workerTargets()).map((t) => t.targetId));
  await browser.swEval(
    `Promise.all([chrome.storage.local.clear(), chrome.storage.session.clear(), chrome.alarms.clearAll(),
      chrome.declarativeNetRequest.getSessionRules().then((rules) =>
        chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: rules.map((r) => r.id) })),
      chrome.downloads.search({}).then((items) => Promise.all(items.map((item) =>
        chrome.downloads.cancel(item.id).catch(() => {}).then(() => chrome.downloads.erase({ id: item.id }))))),
      ...['location', 'notifications', 'clipboard', 'camera', 'microphone'].map((t) => chrome.contentSettings[t].clear({}))])
      .then(() => { setTimeout(() => chrome.runtime.reload(), 0); return true; })`,
  );
  step.now = 'waiting for the extension to start again';
  await until(
    'the extension to start again',
    async () => {
      const workers = await browser.workerTargets();
      return workers.find((w) => !before.has(w.targetId));
    },
    RESET_MS,
  );
  // Its extension APIs there, so the next file's first call finds the worker ready.
  step.now = "waiting for the new worker's extension APIs";
  await browser.swEval('true');
}

/**
 * Clears the storage of those origins and of every origin a page's service worker is registered
 * for (which unregisters it), and stops the running ones: a worker of the last file's page runs
 * on for up to 30 s after its page closed, and Playwright's context lists every running one. The
 * registrations come as events after `ServiceWorker.enable` answers: they are read until none has
 * come for 100 ms (at most 2 s). Storage is cleared through a page's session (the browser's own
 * answers an internal error).
 */
async function clearOrigins(browser: TestBrowser, blank: string, origins: Set<string>): Promise<void> {
  const session = await browser.pageSession(blank);
  const scopes = new Set<string>();
  let lastEvent = Date.now();
  const stop = browser.cdp.onMessage((m) => {
    if (m.sessionId !== session || m.method !== 'ServiceWorker.workerRegistrationUpdated') return;
    lastEvent = Date.now();
    for (const registration of (m.params as { registrations: Array<{ scopeURL: string }> }).registrations)
      if (/^https?:/.test(registration.scopeURL)) scopes.add(registration.scopeURL);
  });
  try {
    await browser.cdp.send('ServiceWorker.enable', {}, session);
    const started = Date.now();
    while (Date.now() - lastEvent < 100 && Date.now() - started < 2_000) await quiet(25);
    for (const worker of await browser.targets('service_worker'))
      if (!worker.url.startsWith('chrome-extension://'))
        await browser.cdp.send('Target.closeTarget', { targetId: worker.targetId }).catch(() => {});
    for (const scope of scopes) origins.add(new URL(scope).origin);
    for (const origin of origins)
      await browser.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' }, session);
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

let watching = false;
/**
 * Kept browsers run detached (their own process group): vitest ends a worker with SIGTERM (and
 * SIGKILL 500 ms later), Ctrl-C sends it SIGINT, and either would leave them running. So the
 * worker kills them all first, then removes their folders. A worker killed outright leaves them
 * to the run's global teardown (`keptBrowsersFolder`).
 */
function watchExit(): void {
  if (watching) return;
  watching = true;
  const killAll = () => {
    const browsers = [...kept];
    kept.clear();
    for (const browser of browsers) {
      try {
        if (browser.process.pid) process.kill(-browser.process.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const browser of browsers) {
      try {
        rmSync(recordOf(browser), { force: true });
        rmSync(browser.userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      } catch {
        // a folder the system still holds: the temp dir's own cleaning takes it
      }
    }
  };
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      killAll();
      process.exit(signal === 'SIGTERM' ? 0 : 1);
    });
}
