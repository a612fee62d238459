// The target fuzz: a seeded random run of what a tab does — reloads, navigations within and across
// sites, popups, cross-site iframes, dedicated and shared workers, a service worker registered,
// reloaded under and unregistered, a chrome:// detour, an extension update — while Playwright,
// Puppeteer and raw CDP clients checked by TargetInvariants watch it. One driver for the e2e test
// (a few hundred rounds in CI) and the bench case (thousands), so both fuzz the same thing.

import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser as PlaywrightBrowser } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';
import { CdpClient } from './cdp-client';
import { TargetInvariants } from './cdp-invariants';
import type { TestBrowser } from './chromium';
import type { PageServer } from './pages';
import { until, within } from './waits';

/** The endpoints of one driver under test, and the test's own way into the same browser. */
export interface FuzzTarget {
  name: string;
  /** Playwright's connectOverCDP endpoint. */
  playwrightUrl: string;
  /** A browser-level CDP WebSocket, for Puppeteer and the raw clients. */
  browserWsUrl: string;
  /** A CDP WebSocket scoped to one page (`/devtools/page/<id>`). */
  pageWsUrl(targetId: string): string;
  /** A CDP connection of the test's own straight to the browser: it plays the person and the page. */
  harness: CdpClient;
  /** The tab the fuzz drives. */
  targetId: string;
  /** Reloads the extension as an update does, returning once its new worker runs (extension driver only). */
  reloadExtension?: () => Promise<void>;
}

export interface FuzzOptions {
  seed: number;
  rounds: number;
  /** At most this many extension reloads (each takes a second or two). */
  extensionReloads?: number;
  /** At most this many chrome:// detours. */
  detours?: number;
  /** At most this many renderer crashes the run makes itself (Page.crash). */
  crashes?: number;
}

export interface FuzzReport {
  seed: number;
  rounds: number;
  /** Every invariant break, prefixed with the client that saw it. */
  breaks: string[];
  /** A client that died, disconnected, threw where nobody caught it, or could not evaluate afterwards. */
  clientErrors: string[];
  /** The events in order, `round name detail`: the way back to a failure with the seed. */
  trail: string[];
  /**
   * Rounds where something the page started never finished within its bound (a load, a
   * cross-site iframe, a worker, a service worker's unregister): said, not failed on, and the
   * run goes on from a fresh page. Seen only under a whole CI run's load on a 2-core machine,
   * on a managed profile too, where no clawd code is between the page and Chrome.
   */
  stalls: string[];
  /**
   * Rounds after which the tab's renderer had crashed: the run's own `renderer crash` events
   * and any Chromium had by itself (seen once under a whole CI run's load). Said, not failed on:
   * what is checked is that every client works on the tab again once it loads a new document.
   */
  crashes: string[];
  /** Target types the first raw client was shown, with how many attaches: what the run reached. */
  seen: Record<string, number>;
  /** How many times each event ran, and the milliseconds it took in all. */
  counts: Record<string, { n: number; ms: number }>;
  seconds: number;
}

/** An update of the extension in the test browser: `chrome.runtime.reload()`, then its new worker. */
export function extensionReloader(browser: TestBrowser): () => Promise<void> {
  return async () => {
    const worker = (await browser.workerTarget())?.targetId;
    await browser.swEval('setTimeout(() => chrome.runtime.reload(), 50), true');
    // The new worker starts on runtime.onInstalled; a loaded machine has taken over 10 s.
    await until(
      'a new extension worker',
      async () => ((await browser.workerTarget())?.targetId ?? worker) !== worker,
      20_000,
    );
  };
}

/** mulberry32: a small seeded generator, so a seed replays the same sequence of events. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed and round count from CLAWD_FUZZ_SEED and CLAWD_FUZZ_ROUNDS, or a fresh seed and the default. */
export function fuzzSettings(defaultRounds: number): { seed: number; rounds: number } {
  const seed = process.env.CLAWD_FUZZ_SEED ? Number(process.env.CLAWD_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const rounds = process.env.CLAWD_FUZZ_ROUNDS ? Number(process.env.CLAWD_FUZZ_ROUNDS) : defaultRounds;
  if (!Number.isInteger(seed) || !Number.isInteger(rounds) || rounds < 1)
    throw new Error(
      `CLAWD_FUZZ_SEED and CLAWD_FUZZ_ROUNDS must be whole numbers (got ${process.env.CLAWD_FUZZ_SEED}, ${process.env.CLAWD_FUZZ_ROUNDS})`,
    );
  return { seed, rounds };
}

/** What a failed run says: the seed to replay it and the last events before the end. */
export function describeRun(report: Pick<FuzzReport, 'seed' | 'rounds' | 'trail'>, name: string): string {
  return `${name}: replay with CLAWD_FUZZ_SEED=${report.seed} CLAWD_FUZZ_ROUNDS=${report.rounds}; last events:\n  ${report.trail.slice(-25).join('\n  ')}`;
}

// ---- the pages --------------------------------------------------------------------------------

/**
 * The fuzz's pages on a free port, answering as 127.0.0.1 and as localhost (two sites, so a frame
 * of the other is out of process). Each document says which it is (`__doc`), so a reload is seen
 * to have happened. A PageServer, so the usual drivers can open their tab on it.
 */
export async function startFuzzPages(): Promise<PageServer> {
  let documents = 0;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    const html = (body: string) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${body}`);
    const script = (body: string) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    switch (url.pathname) {
      case '/':
      case '/p':
        return html(`<title>fuzz</title><p>fuzz page</p><script>window.__doc = ${++documents}</script>`);
      case '/frame':
        // Sometimes with a worker of its own: a child under the out-of-process frame.
        return html(
          `<title>frame</title><p>frame</p>${url.searchParams.get('w') === '1' ? "<script>new Worker('/worker.js')</script>" : ''}`,
        );
      case '/popup':
        return html('<title>popup</title><p>popup</p>');
      case '/worker.js':
        return script("postMessage('up'); onmessage = () => {};");
      case '/shared.js':
        return script(
          "onconnect = (e) => { const port = e.ports[0]; port.onmessage = (m) => { if (m.data === 'close') close(); }; port.postMessage('up'); };",
        );
      case '/sw.js':
        // A message makes it claim the page too: registering again while an unregistered worker
        // still runs revives that worker without a new activate, so the page would stay unclaimed.
        return script(
          "self.addEventListener('install', () => self.skipWaiting()); self.addEventListener('activate', (e) => e.waitUntil(clients.claim())); self.addEventListener('message', (e) => e.waitUntil(clients.claim()));",
        );
      case '/favicon.ico':
        return void res.writeHead(204).end();
      default:
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    otherSiteUrl: (path) => `http://localhost:${port}${path}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---- the clients ------------------------------------------------------------------------------

interface Watchers {
  playwright: PlaywrightBrowser;
  puppeteer: PuppeteerBrowser;
  checkers: Array<[string, TargetInvariants]>;
  pageClient: CdpClient;
  errors: string[];
  /** A raw client like Playwright joins with its own checker; `leave` closes it (not an error). */
  join(name: string, waiting: boolean): Promise<{ leave(): Promise<void> }>;
  /** Types of the targets the first raw client was shown, with how many times: the fuzz reached them. */
  seen: Record<string, number>;
  close(): Promise<void>;
}

async function connectWatchers(target: FuzzTarget): Promise<Watchers> {
  const errors: string[] = [];
  const checkers: Array<[string, TargetInvariants]> = [];
  const seen: Record<string, number> = {};
  let closing = false;
  const onRejection = (reason: unknown) =>
    errors.push(`unhandled rejection: ${String((reason as Error)?.stack ?? reason).slice(0, 500)}`);
  const onException = (error: Error) =>
    errors.push(`uncaught exception: ${String(error?.stack ?? error).slice(0, 500)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);

  const playwright = await chromium.connectOverCDP(target.playwrightUrl);
  playwright.on('disconnected', () => closing || errors.push('Playwright: the browser disconnected'));
  const pptr = await puppeteer.connect({ browserWSEndpoint: target.browserWsUrl, defaultViewport: null });
  pptr.on('disconnected', () => closing || errors.push('Puppeteer: the browser disconnected'));

  const raw = new Set<CdpClient>();
  const open = async (name: string, url: string, discovering = false) => {
    const client = await CdpClient.connect(url);
    raw.add(client);
    checkers.push([name, new TargetInvariants(client, discovering)]);
    void client.closed.then(
      ({ code, reason }) =>
        closing || !raw.has(client) || errors.push(`${name}: its socket closed (${code} ${reason})`),
    );
    return client;
  };
  // A client that asked not to pause new targets is never told one waits for it: it would not
  // let it run (Chrome keeps a pause per client).
  const unpaused = (name: string, client: CdpClient) =>
    client.onMessage((m) => {
      if (m.method === 'Target.attachedToTarget' && m.params.waitingForDebugger)
        errors.push(
          `${name} was told ${m.params.targetInfo.type} ${m.params.targetInfo.url} waits for it, though it asked not to pause targets`,
        );
    });
  // Like Playwright: auto-attach everywhere, paused on start, each child let run once told.
  const deep = async (name: string, waiting = true) => {
    const client = await open(name, target.browserWsUrl);
    if (!waiting) unpaused(name, client);
    client.onMessage((m) => {
      if (m.method !== 'Target.attachedToTarget') return;
      const { sessionId, targetInfo, waitingForDebugger } = m.params as {
        sessionId: string;
        targetInfo: { type: string };
        waitingForDebugger: boolean;
      };
      void (async () => {
        if (targetInfo.type === 'page' || targetInfo.type === 'iframe')
          await client
            .send(
              'Target.setAutoAttach',
              { autoAttach: true, waitForDebuggerOnStart: waiting, flatten: true },
              sessionId,
            )
            .catch(() => {});
        if (waitingForDebugger && waiting)
          await client.send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
      })();
    });
    await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: waiting, flatten: true });
    return client;
  };
  const first = await deep('raw client (auto-attaching, waiting)');
  first.onMessage((m) => {
    if (m.method === 'Target.attachedToTarget')
      seen[m.params.targetInfo.type] = (seen[m.params.targetInfo.type] ?? 0) + 1;
  });
  // Like a dashboard: discovery and root auto-attach, nothing paused.
  const watching = await open('raw client (discovering)', target.browserWsUrl, true);
  unpaused('raw client (discovering)', watching);
  await watching.send('Target.setDiscoverTargets', { discover: true });
  await watching.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  // Scoped to the tab, auto-attaching its children: also the probe that the tab answers.
  const pageClient = await open('raw page client', target.pageWsUrl(target.targetId));
  unpaused('raw page client', pageClient);
  await pageClient.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });

  return {
    playwright,
    puppeteer: pptr,
    checkers,
    pageClient,
    errors,
    seen,
    async join(name, waiting) {
      const client = await deep(name, waiting);
      return {
        async leave() {
          raw.delete(client);
          await client.close();
        },
      };
    },
    async close() {
      closing = true;
      for (const [, rules] of checkers) rules.stop();
      await playwright.close().catch(() => {});
      await pptr.disconnect().catch(() => {});
      await Promise.all([...raw].map((c) => c.close()));
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

// ---- the run ----------------------------------------------------------------------------------

interface PageState {
  /** 0: 127.0.0.1, 1: localhost. */
  site: 0 | 1;
  doc: number;
  frames: number;
  workers: number;
  shared: number;
  popups: string[];
  /** Sites with a service worker registered. */
  registered: Set<0 | 1>;
  extensionReloads: number;
  detours: number;
  crashes: number;
  /** Raw clients that joined during the run and have not left. */
  joined: Array<{ leave(): Promise<void> }>;
}

interface FuzzEvent {
  name: string;
  weight: number;
  when(state: PageState): boolean;
  run(): Promise<string | void>;
}

/** A promise in the page that fails after `ms` with `what`: no in-page wait is unbounded. */
/** What a page says when something it started never finished within its bound (bounded() below). */
const STALL = /: not within \d+ ms/;
/** How long a load may take before it counts as a stall (a loaded 2-core machine has taken over 10 s). */
const LOAD_MS = 15_000;

const bounded = (code: string, ms: number, what: string) =>
  `Promise.race([(${code}), new Promise((_, reject) => setTimeout(() => reject(new Error(${JSON.stringify(`${what}: not within ${ms} ms`)})), ${ms}))])`;

export async function runTargetFuzz(target: FuzzTarget, pages: PageServer, options: FuzzOptions): Promise<FuzzReport> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const trail: string[] = [];
  const stalls: string[] = [];
  const counts: Record<string, { n: number; ms: number }> = {};
  const started = performance.now();
  const siteUrl = (site: 0 | 1, path: string) => (site === 0 ? pages.url(path) : pages.otherSiteUrl(path));
  let counter = 0;

  const { harness } = target;
  const pageSession = (
    await harness.send<{ sessionId: string }>('Target.attachToTarget', { targetId: target.targetId, flatten: true })
  ).sessionId;
  // A crashed renderer, said by Chrome to the harness's own session on the tab.
  const crashes: string[] = [];
  const crashed = harness.onMessage((m) => {
    if (m.method === 'Inspector.targetCrashed' && m.sessionId === pageSession)
      crashes.push(trail[trail.length - 1] ?? 'before the first round');
  });
  await harness.send('Inspector.enable', {}, pageSession);
  const evalPage = async <T>(expression: string, ms = 8_000): Promise<T> => {
    const { result, exceptionDetails } = await within(
      ms,
      harness.send(
        'Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: true, userGesture: true },
        pageSession,
      ),
      `evaluating ${expression.slice(0, 80)}`,
    );
    if (exceptionDetails)
      throw new Error(`in page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  };
  const pageTargets = async () =>
    (
      await harness.send<{ targetInfos: Array<{ targetId: string; type: string; url: string }> }>('Target.getTargets')
    ).targetInfos.filter((t) => t.type === 'page');

  // The tab starts on a fuzz page of the first site.
  await harness.send('Page.navigate', { url: pages.url('/p') }, pageSession);
  const state: PageState = {
    site: 0,
    doc: 0,
    frames: 0,
    workers: 0,
    shared: 0,
    popups: [],
    registered: new Set(),
    extensionReloads: 0,
    detours: 0,
    crashes: 0,
    joined: [],
  };
  const loaded = async (previous: number) => {
    try {
      state.doc = await until(
        `a new document after document ${previous}`,
        async () => {
          const doc = await evalPage<number | false>(
            "document.readyState === 'complete' && typeof window.__doc === 'number' && window.__doc",
            2_000,
          );
          return doc !== false && doc !== previous ? doc : undefined;
        },
        LOAD_MS,
        20,
      );
    } catch (error) {
      // Said as a stall (the page never finished loading), so the run notes it and goes on.
      throw new Error(
        `a new document after document ${previous}: not within ${LOAD_MS} ms (${(error as Error).message})`,
      );
    }
    state.frames = state.workers = state.shared = 0;
  };
  await loaded(0);

  const watchers = await connectWatchers(target);
  /** The tab answers on the clients' own endpoint again, on the document the harness sees. */
  const settled = async () => {
    const href = await evalPage<string>('location.href');
    await until(
      "the tab to answer through the clients' endpoint",
      async () =>
        (
          await within(
            3_000,
            watchers.pageClient.send('Runtime.evaluate', { expression: 'location.href', returnByValue: true }),
            "the page client's evaluate",
          )
        ).result.value === href,
      20_000,
    );
  };
  const navigate = async (site: 0 | 1, how: 'page' | 'browser') => {
    const previous = state.doc;
    const url = siteUrl(site, `/p?n=${++counter}`);
    if (how === 'page') await evalPage(`void (location.href = ${JSON.stringify(url)})`);
    else await harness.send('Page.navigate', { url }, pageSession);
    state.site = site;
    await loaded(previous);
  };

  const other = () => (state.site === 0 ? 1 : 0) as 0 | 1;
  // Weights: a load (every client attaches to the new document) costs two or three times a frame
  // or a worker, so loads are about a quarter of the rounds: enough to reset the page often.
  let round = 0;
  const events: FuzzEvent[] = [
    {
      name: 'reload',
      weight: 2,
      when: () => true,
      run: async () => {
        const previous = state.doc;
        await evalPage('void location.reload()');
        await loaded(previous);
      },
    },
    {
      name: 'navigate same-site',
      weight: 1.5,
      when: () => true,
      run: () => navigate(state.site, random() < 0.5 ? 'page' : 'browser'),
    },
    {
      name: 'navigate cross-site',
      weight: 1.5,
      when: () => true,
      run: () => navigate(other(), random() < 0.5 ? 'page' : 'browser'),
    },
    {
      name: 'open popup',
      weight: 1.2,
      when: (s) => s.popups.length < 2,
      run: async () => {
        const id = ++counter;
        const site = random() < 0.3 ? other() : state.site;
        const noopener = random() < 0.3;
        await evalPage(
          `void window.open(${JSON.stringify(siteUrl(site, `/popup?id=${id}`))}, '_blank'${noopener ? ", 'noopener'" : ''})`,
        );
        const popup = await until(
          `popup ${id}`,
          async () => (await pageTargets()).find((t) => t.url.includes(`/popup?id=${id}`)),
          10_000,
          20,
        );
        state.popups.push(popup.targetId);
        return `${site === state.site ? 'same' : 'cross'}-site${noopener ? ' noopener' : ''}`;
      },
    },
    {
      name: 'close popup',
      weight: 1.2,
      when: (s) => s.popups.length > 0,
      run: async () => {
        const targetId = state.popups.splice(Math.floor(random() * state.popups.length), 1)[0]!;
        await harness.send('Target.closeTarget', { targetId });
        await until(
          'the popup closed',
          async () => !(await pageTargets()).some((t) => t.targetId === targetId),
          10_000,
          20,
        );
      },
    },
    {
      name: 'add cross-site iframe',
      weight: 3,
      when: (s) => s.frames < 3,
      run: async () => {
        const withWorker = random() < 0.4;
        const src = siteUrl(other(), `/frame?w=${withWorker ? 1 : 0}&n=${++counter}`);
        await evalPage(
          bounded(
            `new Promise((resolve) => { const f = document.createElement('iframe'); f.src = ${JSON.stringify(src)}; f.onload = () => resolve(true); document.body.append(f); })`,
            5_000,
            'the iframe to load',
          ),
        );
        state.frames++;
        return withWorker ? 'with a worker' : '';
      },
    },
    {
      name: 'remove iframe',
      weight: 2,
      when: (s) => s.frames > 0,
      run: async () => {
        await evalPage("document.querySelector('iframe').remove()");
        state.frames--;
      },
    },
    {
      name: 'start worker',
      weight: 2,
      when: (s) => s.workers < 3,
      run: async () => {
        await evalPage(
          bounded(
            "new Promise((resolve) => { const w = new Worker('/worker.js'); (window.__workers ??= []).push(w); w.onmessage = () => resolve(true); })",
            5_000,
            'the worker to start',
          ),
        );
        state.workers++;
      },
    },
    {
      name: 'terminate worker',
      weight: 2,
      when: (s) => s.workers > 0,
      run: async () => {
        await evalPage('window.__workers.shift().terminate()');
        state.workers--;
      },
    },
    {
      name: 'start shared worker',
      weight: 1.5,
      when: (s) => s.shared < 2,
      run: async () => {
        // Another URL each time: another shared worker, not the same one joined again.
        await evalPage(
          bounded(
            `new Promise((resolve) => { const s = new SharedWorker('/shared.js?n=${++counter}'); (window.__shared ??= []).push(s); s.port.onmessage = () => resolve(true); })`,
            5_000,
            'the shared worker to start',
          ),
        );
        state.shared++;
      },
    },
    {
      name: 'close shared worker',
      weight: 1,
      when: (s) => s.shared > 0,
      run: async () => {
        await evalPage("window.__shared.shift().port.postMessage('close')");
        state.shared--;
      },
    },
    {
      name: 'register service worker',
      weight: 1,
      when: (s) => !s.registered.has(s.site),
      run: async () => {
        await evalPage(
          bounded(
            "navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then((r) => navigator.serviceWorker.controller || new Promise((resolve) => { navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }); r.active.postMessage('claim'); })).then(() => true)",
            8_000,
            'the service worker to control the page',
          ),
        );
        state.registered.add(state.site);
      },
    },
    {
      name: 'reload under the service worker',
      weight: 1.5,
      when: (s) => s.registered.has(s.site),
      run: async () => {
        const previous = state.doc;
        await evalPage('void location.reload()');
        await loaded(previous);
      },
    },
    {
      name: 'unregister service worker',
      weight: 0.6,
      when: (s) => s.registered.has(s.site),
      run: async () => {
        await evalPage(
          bounded(
            'navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((r) => r.unregister()))).then(() => true)',
            5_000,
            'unregistering',
          ),
        );
        state.registered.delete(state.site);
      },
    },
    // Hurried: the next thing before the last has settled, where the orders of events race.
    {
      name: 'navigate twice at once',
      weight: 0.7,
      when: () => true,
      run: async () => {
        const previous = state.doc;
        const [first, second] = [pick([0, 1] as const), pick([0, 1] as const)];
        const ms = Math.floor(random() * 30);
        await evalPage(
          `void (location.href = ${JSON.stringify(siteUrl(first, `/p?n=${++counter}`))}, setTimeout(() => (location.href = ${JSON.stringify(siteUrl(second, `/p?n=${++counter}`))}), ${ms}))`,
        );
        await loaded(previous);
        // The second starts only if the first had not yet replaced the page.
        state.site = (await evalPage<string>('location.hostname')) === 'localhost' ? 1 : 0;
        return `after ${ms} ms`;
      },
    },
    {
      name: 'iframe gone at once',
      weight: 1,
      when: () => true,
      run: async () => {
        const ms = Math.floor(random() * 40);
        const src = siteUrl(other(), `/frame?w=${random() < 0.5 ? 1 : 0}&n=${++counter}`);
        await evalPage(
          bounded(
            `new Promise((resolve) => { const f = document.createElement('iframe'); f.src = ${JSON.stringify(src)}; document.body.append(f); setTimeout(() => resolve(f.remove()), ${ms}); })`,
            2_000,
            'the iframe to go',
          ),
        );
        return `after ${ms} ms`;
      },
    },
    {
      name: 'worker gone at once',
      weight: 1,
      when: () => true,
      run: async () => {
        const ms = Math.floor(random() * 20);
        await evalPage(
          bounded(
            `new Promise((resolve) => { const w = new Worker('/worker.js'); setTimeout(() => resolve(w.terminate()), ${ms}); })`,
            2_000,
            'the worker to go',
          ),
        );
        return `after ${ms} ms`;
      },
    },
    {
      name: 'popup gone at once',
      weight: 0.5,
      when: () => true,
      run: async () => {
        const id = ++counter;
        const ms = Math.floor(random() * 60);
        await evalPage(
          bounded(
            `new Promise((resolve) => { const w = window.open(${JSON.stringify(siteUrl(state.site, `/popup?id=${id}`))}); setTimeout(() => resolve(w.close()), ${ms}); })`,
            2_000,
            'the popup to go',
          ),
        );
        await until(
          'the popup gone',
          async () => !(await pageTargets()).some((t) => t.url.includes(`/popup?id=${id}`)),
          10_000,
          20,
        );
        return `after ${ms} ms`;
      },
    },
    // Clients come and go: a newcomer is shown what is there now, each target once.
    {
      name: 'raw client joins',
      weight: 0.4,
      when: (s) => s.joined.length < 2,
      run: async () => {
        const waiting = random() < 0.5;
        state.joined.push(
          await watchers.join(`raw client joining in round ${round}${waiting ? '' : ' (not pausing)'}`, waiting),
        );
        return waiting ? 'pausing new targets' : 'not pausing new targets';
      },
    },
    {
      name: 'raw client leaves',
      weight: 0.3,
      when: (s) => s.joined.length > 0,
      run: () => state.joined.shift()!.leave(),
    },
    {
      name: 'Playwright comes and goes',
      weight: 0.3,
      when: () => true,
      run: async () => {
        const href = await evalPage<string>('location.href');
        const browser = await chromium.connectOverCDP(target.playwrightUrl);
        try {
          const page = await until(
            'the tab in a new Playwright',
            () =>
              browser
                .contexts()
                .flatMap((c) => c.pages())
                .find((p) => p.url() === href),
            10_000,
          );
          const answer = await within(5_000, page.evaluate('1 + 1'), "a new Playwright client's evaluate");
          if (answer !== 2)
            watchers.errors.push(
              `a Playwright client that joined in round ${round} evaluated 1 + 1 as ${String(answer)}`,
            );
        } catch (error) {
          watchers.errors.push(`a Playwright client that joined in round ${round}: ${(error as Error).message}`);
        } finally {
          await browser.close();
        }
      },
    },
    {
      name: 'chrome:// detour',
      weight: 0.4,
      when: (s) => s.detours < (options.detours ?? Infinity),
      run: async () => {
        state.detours++;
        await harness.send('Page.navigate', { url: 'chrome://version' }, pageSession);
        await until(
          'the tab on chrome://version',
          async () =>
            (await pageTargets()).some((t) => t.targetId === target.targetId && t.url.startsWith('chrome://version')),
          10_000,
          20,
        );
        await navigate(pick([0, 1] as const), 'browser');
        await settled();
      },
    },
    {
      // Chrome's renderer dies (as it does by itself, rarely): every client is told, and the
      // tab works again for all of them on its next document.
      name: 'renderer crash',
      weight: 0.3,
      when: (s) => s.crashes < (options.crashes ?? 0),
      run: async () => {
        state.crashes++;
        const told = crashes.length;
        // Not waited on: Chrome answers it with an error at once, or (the extension's debugger
        // attached too) not at all; the crash is what Chrome says next.
        void harness.send('Page.crash', {}, pageSession).catch(() => {});
        await until('Chrome to say the renderer crashed', () => crashes.length > told, 10_000, 20);
        const previous = state.doc;
        await harness.send('Page.navigate', { url: siteUrl(state.site, `/p?n=${++counter}`) }, pageSession);
        await loaded(previous);
        await settled();
      },
    },
    {
      name: 'extension reload',
      weight: 0.2,
      when: (s) => target.reloadExtension !== undefined && s.extensionReloads < (options.extensionReloads ?? Infinity),
      run: async () => {
        state.extensionReloads++;
        await target.reloadExtension!();
        await settled();
      },
    },
  ];

  try {
    for (; round < options.rounds; round++) {
      const possible = events.filter((e) => e.when(state));
      let roll = random() * possible.reduce((sum, e) => sum + e.weight, 0);
      const event = possible.find((e) => (roll -= e.weight) < 0) ?? possible[possible.length - 1]!;
      trail.push(`${round} ${event.name}`);
      const began = performance.now();
      let detail: string | void = undefined;
      try {
        detail = await event.run();
      } catch (error) {
        if (!STALL.test((error as Error).message)) throw error;
        stalls.push(`${trail[trail.length - 1]}: ${(error as Error).message.replace(/^.*?Error: /, '')}`);
        // A fresh document, so what the stalled page left half-done does not carry on.
        trail.push(`${round} recovering: a fresh page`);
        await navigate(state.site, 'browser');
      }
      if (detail) trail[trail.length - 1] += ` (${detail})`;
      const count = (counts[event.name] ??= { n: 0, ms: 0 });
      count.n++;
      count.ms += performance.now() - began;
    }

    // The end: the popups closed, the tab answering, and every client still working on it.
    trail.push('end: closing the popups and asking every client');
    for (const targetId of state.popups.splice(0))
      await harness.send('Target.closeTarget', { targetId }).catch(() => {});
    for (const client of state.joined.splice(0)) await client.leave();
    await settled();
    const href = await evalPage<string>('location.href');
    const ours = (url: string) => url.includes(`:${pages.port}/`);
    const works = async (
      name: string,
      find: () => Promise<{ evaluate(expression: string): Promise<unknown> } | undefined>,
    ) => {
      try {
        await until(
          `${name} to evaluate on the tab`,
          async () =>
            (await within(
              3_000,
              (await find())?.evaluate('1 + 1') ?? Promise.resolve(undefined),
              `${name}'s evaluate`,
            )) === 2,
          20_000,
        );
      } catch (error) {
        watchers.errors.push(`${name} cannot evaluate on the tab afterwards: ${(error as Error).message}`);
      }
    };
    const playwrightPages = () => watchers.playwright.contexts().flatMap((c) => c.pages());
    // Playwright's page is gone for good once its renderer crashed (by its design): after a
    // crash, a Playwright connecting anew must find the tab and evaluate on it.
    if (crashes.length > 0) {
      const fresh = await chromium.connectOverCDP(target.playwrightUrl, { timeout: 20_000 });
      try {
        await works('Playwright (connected after the crash)', async () =>
          fresh
            .contexts()
            .flatMap((c) => c.pages())
            .find((p) => p.url() === href),
        );
      } finally {
        await fresh.close().catch(() => {});
      }
    } else await works('Playwright', async () => playwrightPages().find((p) => p.url() === href));
    await works('Puppeteer', async () => (await watchers.puppeteer.pages()).find((p) => p.url() === href));
    // Closed popups are gone from each client's view: one page of ours left.
    await until(
      'Playwright to show one page of ours',
      () => playwrightPages().filter((p) => ours(p.url())).length === 1,
      10_000,
    ).catch(() =>
      watchers.errors.push(
        `Playwright still shows ${playwrightPages()
          .filter((p) => ours(p.url()))
          .map((p) => p.url())
          .join(', ')}`,
      ),
    );
    await until(
      'Puppeteer to show one page of ours',
      async () => (await watchers.puppeteer.pages()).filter((p) => ours(p.url())).length === 1,
      10_000,
    ).catch(async () =>
      watchers.errors.push(
        `Puppeteer still shows ${(await watchers.puppeteer.pages())
          .filter((p) => ours(p.url()))
          .map((p) => p.url())
          .join(', ')}`,
      ),
    );
  } catch (error) {
    // The harness could not do what it meant to (a page that never loaded, a popup that never
    // came): said with the seed, since a relay bug may be behind it too.
    const targets = await harness
      .send<{ targetInfos: Array<{ type: string; url: string; attached: boolean }> }>('Target.getTargets')
      .then(
        ({ targetInfos }) =>
          targetInfos.map((t) => `${t.type} ${t.url}${t.attached ? ' (attached)' : ''}`).join('\n  '),
        () => 'unknown',
      );
    type Tree = { frame: { url: string; unreachableUrl?: string }; childFrames?: Tree[] };
    const frames = await harness.send<{ frameTree: Tree }>('Page.getFrameTree', {}, pageSession).then(
      ({ frameTree }) => {
        const lines: string[] = [];
        const walk = (t: Tree, depth: number) => {
          lines.push(
            `${'  '.repeat(depth)}${t.frame.url}${t.frame.unreachableUrl ? ` (unreachable ${t.frame.unreachableUrl})` : ''}`,
          );
          for (const c of t.childFrames ?? []) walk(c, depth + 1);
        };
        walk(frameTree, 0);
        return lines.join('\n  ');
      },
      (e: Error) => e.message,
    );
    throw new Error(
      `${(error as Error).message}\n${describeRun({ seed: options.seed, rounds: options.rounds, trail }, target.name)}\nthe browser's targets:\n  ${targets}\nthe tab's frames:\n  ${frames}`,
    );
  } finally {
    // The whole trail, when asked for: the way to what happened before a failure's last events.
    if (process.env.CLAWD_FUZZ_TRAIL) writeFileSync(`${process.env.CLAWD_FUZZ_TRAIL}.${target.name}`, trail.join('\n'));
    crashed();
    await watchers.close();
    await harness.send('Target.detachFromTarget', { sessionId: pageSession }).catch(() => {});
  }
  return {
    seed: options.seed,
    rounds: round,
    breaks: watchers.checkers.flatMap(([name, rules]) => rules.breaks.map((b) => `${name}: ${b}`)),
    clientErrors: watchers.errors,
    trail,
    stalls,
    crashes,
    seen: watchers.seen,
    counts,
    seconds: (performance.now() - started) / 1000,
  };
}
