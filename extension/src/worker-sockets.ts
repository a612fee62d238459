// The origin policy for the WebSockets of a held tab's site's service and shared workers: Chrome's
// rules (policy-rules.ts) do not stop those (their requests are of no tab; measured), but network
// conditions set on a debugger session of the worker itself take a blocked one offline.
//
// A page registers its service worker after it loads: the workers are looked for on every change
// of the rules and every SCAN_MS meanwhile. A worker that stops keeps our session (Chrome cannot
// detach a stopped one) and, started again, waits for us: it gets the rules before it runs again.
// A worker waiting for us (at its start or its first line) is in the book of pauses (holds.ts):
// one the extension's last worker left waiting is let run by the next.

import { hostOfUrl } from '../../shared/host-spelling';
import { originOf, socketConditions, type PolicyConfig } from '../../shared/origin-policy';
import { NO_BOOK, type PauseBook } from './holds';
import type { HeldPause } from './worker-state';

const SCAN_MS = 1_000;
/** How long a restarted worker waits for its rules before it runs anyway. */
const SEND_MS = 2_000;
/** How often a worker that refused its rules is sent them again (at each look). */
const SEND_TRIES = 5;

/** The policy's WebSocket conditions as a debugger session takes them: offline or not, nothing slowed. */
export function socketRules(conditions: ReturnType<typeof socketConditions>): Array<Record<string, unknown>> {
  return conditions.map((rule) => ({ ...rule, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }));
}

/** Waits for `work`, but not over `ms` (a worker waiting for us must not wait for good). */
async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class WorkerSockets {
  #conditions: ReturnType<typeof socketConditions> = [];
  #sites: string[] = [];
  /** The workers we are attached to (target id), their script and the conditions last sent (JSON). */
  readonly #attached = new Map<string, { url: string; sent: string; tried?: string; failures?: number }>();
  /** Workers caught before their first line, stopping there (`starting`). */
  readonly #firstLine = new Set<string>();
  /** Workers another session holds: not asked again every scan. */
  readonly #refused = new Set<string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  // One scan at a time, at most one waiting (it reads the newest policy when it runs).
  #scanning: Promise<void> = Promise.resolve();
  #queued = false;
  /** Workers the last worker of the extension left waiting (`restore`), let run once the policy is known. */
  #left: string[] = [];
  /** Whether the policy is known (the first `hold`). */
  #told = false;
  /** Lets the scans (and restarted workers) go on once the policy is known, or none is coming. */
  #ready: () => void = () => {};

  constructor(
    /** Where the workers it holds are kept while held (holds.ts). */
    private readonly pauses: PauseBook = NO_BOOK,
  ) {
    // A restarted worker's event may be what woke this worker: it waits for the policy, or it
    // would run without its rules (and be let go as of no held site).
    this.#scanning = new Promise((resolve) => (this.#ready = resolve));
  }

  /** The policy and the hosts of the held tabs (policy-rules.ts), after each change of either. */
  hold(config: PolicyConfig, sites: string[]): Promise<void> {
    this.#conditions = socketConditions(config);
    this.#sites = this.#conditions.length > 0 ? sites : [];
    if (this.#sites.length === 0) this.#stopTimer();
    else this.#timer ??= setInterval(() => void this.#scan().catch(() => {}), SCAN_MS);
    this.#told = true;
    this.#ready();
    this.#letLeftRun();
    return this.#scan();
  }

  /**
   * After a worker start: the workers of ours the last worker left waiting (`left`) — at their
   * start or their first line, for a word it never said.
   */
  restore(left: HeldPause[], policyComing: boolean): void {
    for (const pause of left) if ('targetId' in pause) this.#left.push(pause.targetId);
    if (this.#told) this.#letLeftRun();
    // No policy coming: nothing to wait for; one coming that never does: not for good.
    if (!policyComing) this.#ready();
    else setTimeout(() => this.#ready(), SEND_MS);
  }

  /** Each one left waiting: the rules if it is of a held site (once it answers, bounded), then it runs. */
  #letLeftRun(): void {
    for (const targetId of this.#left.splice(0)) {
      const letRun = async () => {
        const url = (await chrome.debugger.getTargets()).find((t) => t.id === targetId)?.url;
        if (url === undefined) return; // gone, and its pause with it
        if (
          this.#conditions.length > 0 &&
          this.#held(url) &&
          (this.#attached.has(targetId) || (await this.#attach(targetId, url)))
        )
          return this.#atFirstLine(targetId);
        await this.#release(targetId);
        await this.#letGo(targetId);
      };
      // In turn with the scans, as a restart is; bounded, so a worker that never answers does not
      // stop the scans (it stays in the book for a next worker of the extension).
      const turn = () =>
        bounded(
          letRun().then(() => this.pauses.done({ targetId })),
          3 * SEND_MS,
        );
      this.#scanning = this.#scanning.then(turn, turn).catch(() => {});
    }
  }

  /**
   * A held tab's request for a worker's script, paused (tab-fetch.ts): a shared worker exists and
   * has not run yet — the one moment to catch it, as a tab's session is never told of it. It is
   * attached and stopped before its first line, where it gets the rules (sent any earlier, they
   * are lost; measured). Bounded: the request waits for this.
   */
  async starting(url: string): Promise<void> {
    if (this.#conditions.length === 0 || !this.#held(url)) return;
    await bounded(
      (async () => {
        // A new worker is nobody's yet (a running one of the same script may be someone's).
        const target = (await chrome.debugger.getTargets()).find(
          (t) => t.type === 'worker' && t.url === url && !t.attached,
        );
        if (!target || !(await this.#attach(target.id, url))) return;
        // Until it starts, the scans send it nothing (rules sent before its start are lost).
        this.#firstLine.add(target.id);
        // Kept while held: a next worker of the extension lets it run should this one stop meanwhile.
        this.pauses.add({ targetId: target.id });
        // Not awaited: the worker takes commands only once it starts, after its script arrives;
        // Chrome keeps them for it, in order, and they race its first line (DEVELOPERS.md).
        const debuggee = { targetId: target.id };
        void chrome.debugger.sendCommand(debuggee, 'Debugger.enable').catch(() => {});
        void chrome.debugger
          .sendCommand(debuggee, 'Debugger.setInstrumentationBreakpoint', { instrumentation: 'beforeScriptExecution' })
          .catch(() => {});
      })().catch(() => {}),
      SEND_MS,
    );
  }

  /**
   * A worker caught before its first line stopped there (`Debugger.paused`), or started without
   * stopping (the breakpoint came late): the rules now, then it runs.
   */
  async #atFirstLine(targetId: string): Promise<void> {
    this.#firstLine.delete(targetId);
    const debuggee = { targetId };
    const worker = this.#attached.get(targetId);
    try {
      if (worker) {
        worker.sent = '';
        // Started, the worker answers: a rule is kept only once the Network domain is on.
        await bounded(
          chrome.debugger
            .sendCommand(debuggee, 'Network.enable')
            .catch(() => {})
            .then(() => this.#send(targetId)),
          SEND_MS,
        );
      }
    } finally {
      await this.#release(targetId);
      this.pauses.done({ targetId });
    }
  }

  /**
   * A worker of ours runs: off its first-line breakpoint, and on from its start (one left waiting
   * by the last worker of the extension may wait at either; to one that runs, each is nothing).
   */
  async #release(targetId: string): Promise<void> {
    for (const [method, params] of [
      ['Debugger.removeInstrumentationBreakpoint', { instrumentation: 'beforeScriptExecution' }],
      ['Debugger.resume', {}],
      ['Debugger.disable', {}],
      ['Runtime.runIfWaitingForDebugger', {}],
    ] as const)
      await chrome.debugger.sendCommand({ targetId }, method, params).catch(() => {});
  }

  /** An event of a worker's session (background.ts routes those here). */
  event(targetId: string, method: string): void {
    if ((method === 'Debugger.paused' || method === 'Inspector.workerScriptLoaded') && this.#firstLine.has(targetId))
      return void this.#atFirstLine(targetId);
    // In turn with the scans (one of them could let it go while it gets the rules).
    if (method === 'Inspector.targetReloadedAfterCrash')
      this.#scanning = this.#scanning.then(
        () => this.#restarted(targetId),
        () => this.#restarted(targetId),
      );
  }

  /** Chrome detached a worker (it is gone, or the person cancelled): a new one is a new target. */
  detached(targetId: string): void {
    this.#attached.delete(targetId);
    this.#firstLine.delete(targetId);
    this.pauses.done({ targetId });
  }

  /** Lets every worker go and stops looking. */
  close(): Promise<void> {
    this.#sites = [];
    this.#stopTimer();
    return this.#scan();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #scan(): Promise<void> {
    if (!this.#queued) {
      this.#queued = true;
      const run = () => {
        this.#queued = false;
        return this.#sweep();
      };
      this.#scanning = this.#scanning.then(run, run);
    }
    return this.#scanning;
  }

  /** Whether a worker's script is of a held site (a subdomain too, as the rules' initiatorDomains). */
  #held(url: string): boolean {
    // A blob: worker's host is its creator's (its origin); a data: one has none and is not found.
    const host = hostOfUrl(originOf(url) ?? '')?.replace(/^\[|\]$/g, '');
    return host !== undefined && this.#sites.some((site) => host === site || host.endsWith(`.${site}`));
  }

  async #sweep(): Promise<void> {
    if (this.#sites.length === 0 && this.#attached.size === 0) return this.#refused.clear();
    const targets = await chrome.debugger.getTargets();
    // Service and shared workers are "worker" targets (dedicated ones, "other", are their page's).
    const workers = new Map(targets.filter((t) => t.type === 'worker').map((t) => [t.id, t.url]));
    const wanted = [...workers].filter(([, url]) => this.#held(url));
    // One that is not listed has stopped: ours until it starts again (#restarted) or is gone.
    for (const targetId of this.#attached.keys())
      if (workers.has(targetId) && !wanted.some(([id]) => id === targetId)) await this.#letGo(targetId);
    for (const targetId of this.#refused) if (!workers.has(targetId)) this.#refused.delete(targetId);
    for (const [targetId, url] of wanted) {
      if (this.#refused.has(targetId) || (!this.#attached.has(targetId) && !(await this.#attach(targetId, url))))
        continue;
      if (!this.#firstLine.has(targetId)) void this.#send(targetId);
    }
  }

  async #attach(targetId: string, url: string): Promise<boolean> {
    try {
      await chrome.debugger.attach({ targetId }, '1.3');
    } catch (error) {
      const message = (error as Error).message;
      // Ours already: the extension's sessions outlive its own worker, a new one takes them on.
      // (A CDP client's session on the worker, a child of a tab's, does not stand in the way.)
      if (!/already attached/i.test(message)) {
        this.#refused.add(targetId);
        console.warn(`clawd: a worker of a held site could not be attached: ${message}`);
        return false;
      }
    }
    this.#attached.set(targetId, { url, sent: '' });
    return true;
  }

  /**
   * A held site's worker that a tab's child session gave the rules is about to lose that session:
   * it gets a session of ours with the rules first (the look every second would find it later).
   */
  async take(targetId: string, url: string): Promise<void> {
    if (this.#conditions.length === 0 || !this.#held(url)) return;
    await bounded(
      (async () => {
        if (this.#attached.has(targetId) || (await this.#attach(targetId, url))) await this.#send(targetId);
      })(),
      SEND_MS,
    );
  }

  /** The policy's rules to a worker, unless it has them. */
  async #send(targetId: string): Promise<void> {
    const worker = this.#attached.get(targetId);
    const sent = JSON.stringify(this.#conditions);
    if (!worker || worker.sent === sent) return;
    worker.sent = sent;
    const target = { targetId };
    // Sent again at the next look, a few times for the same rules (a worker just starting may
    // refuse them; once, under a whole test run's load, a shared worker went on without them).
    if (worker.tried !== sent) worker.failures = 0;
    worker.tried = sent;
    const refused = (error: Error) => {
      worker.failures = (worker.failures ?? 0) + 1;
      if (this.#attached.get(targetId) === worker && worker.failures < SEND_TRIES) worker.sent = '';
      console.warn(`clawd: a worker's WebSocket rules: ${error.message}`);
    };
    // The rules do nothing without the Network domain on (measured); not awaited, as a worker
    // waiting for a debugger never answers it (its refusal is watched all the same).
    chrome.debugger.sendCommand(target, 'Network.enable').catch(refused);
    await chrome.debugger
      .sendCommand(target, 'Network.emulateNetworkConditionsByRule', {
        matchedNetworkConditions: socketRules(this.#conditions),
      })
      .catch(refused);
  }

  /** A worker we stayed attached to started again, paused until we say: the rules first, if it is held. */
  async #restarted(targetId: string): Promise<void> {
    let url: string | undefined;
    // Kept while it waits: a next worker of the extension lets it run should this one stop meanwhile.
    this.pauses.add({ targetId });
    try {
      url =
        this.#attached.get(targetId)?.url ??
        (await chrome.debugger.getTargets().catch(() => [])).find((t) => t.id === targetId)?.url;
      if (url !== undefined && this.#held(url)) {
        this.#attached.set(targetId, { url, sent: '' });
        // Bounded: the worker waits for us, and must not wait for good.
        await bounded(this.#send(targetId), SEND_MS);
      }
    } finally {
      await chrome.debugger.sendCommand({ targetId }, 'Runtime.runIfWaitingForDebugger').catch(() => {});
      this.pauses.done({ targetId });
    }
    if (url === undefined || !this.#held(url)) await this.#letGo(targetId);
  }

  async #letGo(targetId: string): Promise<void> {
    this.#attached.delete(targetId);
    await chrome.debugger.detach({ targetId }).catch(() => {}); // stopped or gone: it cannot be
  }
}
