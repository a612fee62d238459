// A managed or remote browser held to its profile's origin policy by the relay itself: one CDP
// connection of its own, auto-attached (flat, paused on start) to every target — pages, popups,
// iframes, workers, service workers — each target's requests paused (Fetch) and judged before
// they go out (the verdicts: policy-judge.ts); redirects pause again. WebSockets are not requests
// Fetch sees (measured, and Network.setBlockedURLs lets them through too), so every target also
// gets the browser's own network conditions taking a blocked WebSocket offline
// (Network.emulateNetworkConditionsByRule, outside the page: measured on 150 and 156 for pages,
// dedicated, shared and service workers), and, as a second wall, every page, frame and worker the
// WebSocket constructor held to the policy before its own scripts run. clawd's own addresses are
// always among its rules (no agent's page loads them, shared/own-origins.ts); while the person set
// no rule of their own, only loopback requests are paused and judged, and no script is put in
// pages (a page's WebSocket to clawd is refused by clawd itself: it carries the page's Origin).
// A new policy is a new guard; a target that cannot be set up is let run rather than left paused.
// Kept whole (under the 400-line cap): holding a target, its stand-in session and whenSetUp share
// one table of targets and their sessions; apart, each would reach into the others'.

import type { Protocol } from 'devtools-protocol';
import { CdpSocket, type CdpEvent } from '../browser/cdp-socket';
import type { OriginPolicy } from '../../shared/origin-policy';
import type { Logger } from '../log';
import { judge, LOOPBACK_PATTERNS, type GuardBlock, type Judge } from './policy-judge';
import { CONDITIONS_BY_RULE, conditions, webSocketGuard, workerWalls } from './policy-walls';

export type { GuardBlock } from './policy-judge';

/** How long a target may take to be set up before it is let run anyway. */
const SETUP_MS = 5_000;
/**
 * How long a raw client's first command on a target the guard has not heard of yet waits for it
 * to: the guard's connection may hear of a new target a moment after the client's — more than a
 * second on a loaded machine (a new service worker ran unruled once in a clean-clone CI with
 * other browsers busy). The guard hears of every target a page or the browser starts; one it
 * never attaches to (a worker's own worker) costs its client's first command there this bound.
 */
const UNSEEN_MS = 3_000;
/** Targets kept as set up while they live (detached, they go): a bound should detaches be missed. */
const SET_UP_KEPT = 5_000;
/** How long the guard's connection may take when the call gave no bound of its own. */
export const GUARD_START_MS = 5_000;

export class PolicyGuard {
  /** Targets being set up, each done when its walls are up (or it was let run anyway). */
  readonly #settingUp = new Map<string, Promise<void>>();
  /** Targets set up and still attached (oldest first, at most SET_UP_KEPT), by the guard's session. */
  readonly #setUp = new Set<string>();
  readonly #sessionTargets = new Map<string, string>();
  /** Words to run that came before the guard heard of their target: told when it does. */
  readonly #unseen = new Map<string, Array<(setUp: Promise<void>) => void>>();
  /** Frames the guard attached to itself (whenSetUp): the session walled, undefined until attached. */
  readonly #standIns = new Map<string, string | undefined>();
  #closed = false;
  #ready: Promise<void> = Promise.resolve();
  /** What a paused request's verdict needs of the guard (policy-judge.ts). */
  readonly #judge: Judge;
  /** Settles when its connection has closed (the browser went, or close()). */
  readonly gone: Promise<void>;

  private constructor(
    private readonly socket: CdpSocket,
    private readonly policy: () => OriginPolicy,
    private readonly log: Logger,
    blocked: (block: GuardBlock) => void,
  ) {
    this.#judge = { send: (method, params, sessionId) => this.#send(method, params, sessionId), policy, blocked, log };
    socket.onEvent((event) => this.#onEvent(event));
    this.gone = socket.gone;
  }

  /** Connects to the browser's WebSocket and holds every target, present and future, to the policy. */
  static async start(
    browser: { url: string; headers?: Record<string, string> },
    policy: () => OriginPolicy,
    log: Logger,
    blocked: (block: GuardBlock) => void = () => {},
    startMs = GUARD_START_MS,
  ): Promise<PolicyGuard> {
    // The endpoint's own headers (a Grid's basic auth) on the guard's socket too. A Grid's browser
    // is reached through its hub (and maybe a proxy): under load that takes the call's own bound.
    const socket = await CdpSocket.open(browser, startMs, SETUP_MS, (said) => log.debug(`policy guard: ${said}`));
    const guard = new PolicyGuard(socket, policy, log, blocked);
    const filter = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];
    try {
      await guard.#send(
        'Target.setAutoAttach',
        { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter },
        undefined,
        startMs,
      );
    } catch (error) {
      guard.close(); // its socket is not left open behind a guard nobody holds
      throw error;
    }
    guard.#ready = guard.#allSetUp(SETUP_MS);
    return guard;
  }

  /** Until every target heard of has its walls up, or `boundMs`. */
  async #allSetUp(boundMs: number): Promise<void> {
    const deadline = performance.now() + boundMs;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    try {
      while (this.#settingUp.size > 0 && performance.now() < deadline)
        await Promise.race([Promise.all(this.#settingUp.values()), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Settles once the targets already open when the guard started have their walls up (or past
   * SETUP_MS): Chrome tells of them before it answers the auto-attach, and they run on meanwhile,
   * nothing holding them. What an agent's call in the browser waits for (PolicyGuards.hold): not
   * waited for, a policy change let the agent's next call load a page there unwalled (a clean-clone
   * CI: its WebSockets reached the blocked origin). Not part of start(): a raw client's word to run
   * a new target waits for the guard's start (whenSetUp), and an open target can be one such
   * client's to let run, whose walls are answered only then.
   */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** Still connected to its browser. */
  get open(): boolean {
    return !this.#closed && this.socket.open;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.socket.close();
  }

  #send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
    boundMs = SETUP_MS,
  ): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the policy guard is closed'));
    return this.socket.send(method, params, sessionId, boundMs);
  }

  #onEvent(message: CdpEvent): void {
    if (message.method === 'Target.attachedToTarget') {
      const attached = message.params as Protocol.Target.AttachedToTargetEvent;
      if (this.#standIn(attached, message.sessionId === undefined)) return;
      // A service worker is shown to its pages' sessions too, and it is the one the browser-level
      // session holds already: let it go there, walls once. Held twice, its interception on a
      // page's session went with the page's next navigation and left a frame of its scope that
      // was loading then never to load (a cross-site frame, once its worker had a request refused).
      // Its word there (that copy's word is what starts it) waits for whenSetUp, behind the walls
      // on that session too (workerWalls says why), the network rules among them: nobody is shown
      // that session's events.
      if (message.sessionId !== undefined && attached.targetInfo.type === 'service_worker') {
        if (attached.waitingForDebugger)
          void Promise.resolve(this.whenSetUp(attached.targetInfo.targetId)).then(() => {
            const policy = this.policy();
            const walls = workerWalls(policy);
            if (walls.length > 0)
              walls.push(
                { method: 'Network.enable', params: {} },
                { method: CONDITIONS_BY_RULE, params: conditions(policy) },
              );
            for (const wall of walls) this.#send(wall.method, wall.params, attached.sessionId).catch(() => {});
            return this.#resume(attached.sessionId);
          });
        return;
      }
      void this.#hold(attached);
    } else if (message.method === 'Target.detachedFromTarget') {
      const session = message.params?.sessionId as string;
      const gone = this.#sessionTargets.get(session);
      if (gone === undefined) return;
      this.#sessionTargets.delete(session);
      if (this.#standIns.get(gone) === session) this.#standIns.delete(gone);
      this.#setUp.delete(gone);
    } else if (message.method === 'Fetch.requestPaused' && message.sessionId)
      void judge(this.#judge, message.params as Protocol.Fetch.RequestPausedEvent, message.sessionId);
  }

  /**
   * What a raw client's word to run `targetId` waits for: the guard's walls in it (answered, and
   * its own word sent; a service worker's word goes at once, right behind them). Any session's word
   * starts a shared worker whose script has not arrived, whoever else holds it, so a client that
   * let it run at once beat the rules (#45); another holder's word can start a brand-new service
   * worker too, whose walls in it are answered only once it runs: for it, the wait is until the
   * browser has answered the network rules, sent behind the other walls (and Fetch) — queued there,
   * not yet run — and each word that ends it goes behind the walls on its own session as well.
   * A raw client's other commands on a new target wait for it too (raw-client-rules.ts). A target
   * the guard has not heard of yet is waited for, up to UNSEEN_MS; one it set up and still holds,
   * or never will (closed), waits for nothing. An out-of-process frame it has not heard of it
   * attaches to itself (#standIn says why).
   */
  whenSetUp(targetId: string, type?: string): Promise<void> | undefined {
    const pending = this.#settingUp.get(targetId);
    if (pending) return pending;
    if (this.#setUp.has(targetId) || !this.open) return undefined;
    if (type === 'iframe' && !this.#standIns.has(targetId)) {
      this.#standIns.set(targetId, undefined);
      this.#send('Target.attachToTarget', { targetId, flatten: true }).catch(() => {
        if (this.#standIns.get(targetId) === undefined) this.#standIns.delete(targetId);
      });
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const left = (this.#unseen.get(targetId) ?? []).filter((w) => w !== told);
        if (left.length > 0) this.#unseen.set(targetId, left);
        else this.#unseen.delete(targetId);
        this.log.debug(`policy guard: ${type ?? 'target'} ${targetId} not heard of within ${UNSEEN_MS} ms: let go`);
        resolve();
      }, UNSEEN_MS);
      const told = (setUp: Promise<void>) => {
        clearTimeout(timer);
        void setUp.then(resolve);
      };
      this.#unseen.set(targetId, [...(this.#unseen.get(targetId) ?? []), told]);
    });
  }

  /**
   * Chrome tells a page's sessions of a new out-of-process frame one at a time, in the order they
   * asked to auto-attach there, each holding the frame until its word (measured, 156): behind a
   * client that asked before this guard (clawd's own connection, once a new policy made a new
   * guard), the guard hears of it only once that client's word is sent, which waits for the guard
   * (whenSetUp): each such frame took two UNSEEN_MS. So a frame a client asks about first, the guard
   * attaches to itself and walls; Chrome's own attach to it (still paused, after the client's word)
   * is then only let run. Whichever comes second is not set up twice: a stand-in of a frame
   * already held is let go. True when `attached` is done with here.
   */
  #standIn(attached: Protocol.Target.AttachedToTargetEvent, atRoot: boolean): boolean {
    const { targetId } = attached.targetInfo;
    if (!this.#standIns.has(targetId)) return false;
    const walled = this.#standIns.get(targetId);
    if (walled === undefined && atRoot) {
      if (!this.#settingUp.has(targetId) && !this.#setUp.has(targetId)) {
        this.#standIns.set(targetId, attached.sessionId);
        return false;
      }
      this.#standIns.delete(targetId);
      this.#send('Target.detachFromTarget', { sessionId: attached.sessionId }).catch(() => {});
      return true;
    }
    if (walled === undefined) return false;
    // A stand-in whose session went walls nothing now (the frame went back into its parent's
    // process, and out again under the same id): this attach is walled as a new one.
    if (this.#sessionTargets.get(walled) !== targetId) {
      this.#standIns.delete(targetId);
      return false;
    }
    if (attached.waitingForDebugger)
      void Promise.resolve(this.whenSetUp(targetId)).then(() => this.#resume(attached.sessionId));
    return true;
  }

  /** A new target: its requests paused for judgement, its own children held too, then let run. */
  async #hold(attached: Protocol.Target.AttachedToTargetEvent): Promise<void> {
    const { targetId } = attached.targetInfo;
    let done!: () => void;
    const setUp = new Promise<void>((resolve) => (done = resolve));
    this.#settingUp.set(targetId, setUp);
    // Its session known from the start: one detached during the set-up is heard, and the target
    // is then not taken as set up (a later attach of the same id is walled anew).
    this.#sessionTargets.set(attached.sessionId, targetId);
    for (const told of this.#unseen.get(targetId) ?? []) told(setUp);
    this.#unseen.delete(targetId);
    try {
      await this.#setUpTarget(attached, done);
    } finally {
      if (this.#settingUp.get(targetId) === setUp) this.#settingUp.delete(targetId);
      if (this.#sessionTargets.get(attached.sessionId) === targetId) this.#setUp.add(targetId);
      if (this.#setUp.size > SET_UP_KEPT) this.#setUp.delete(this.#setUp.values().next().value!);
      done();
    }
  }

  /** `sent` ends whenSetUp's wait: a service worker's walls queued in the browser, another's answered and its word sent. */
  async #setUpTarget(attached: Protocol.Target.AttachedToTargetEvent, sent: () => void): Promise<void> {
    const since = performance.now();
    const { sessionId, targetInfo } = attached;
    const framed = targetInfo.type === 'page' || targetInfo.type === 'iframe';
    const pipelined = targetInfo.type === 'service_worker';
    const policy = this.policy();
    const ownOnly = policy.ownOnly;
    const sockets = ownOnly ? undefined : webSocketGuard(policy);
    // Each on its own. A dedicated worker has no Fetch domain (its requests are its page's): not
    // asked, as now and then its session answered nothing until the worker ran, which waits for
    // the guard (measured: the target fuzz's popups' workers each took the whole SETUP_MS).
    const fetching =
      targetInfo.type === 'worker'
        ? undefined
        : this.#send(
            'Fetch.enable',
            { patterns: ownOnly ? LOOPBACK_PATTERNS : [{ urlPattern: '*', requestStage: 'Request' }] },
            sessionId,
          );
    let rules: Promise<unknown> | undefined;
    const steps = Promise.allSettled([
      fetching,
      // Out-of-process iframes and dedicated workers are the page's children, not the browser's.
      framed
        ? this.#send(
            'Target.setAutoAttach',
            { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
            sessionId,
          )
        : undefined,
      // Every document from now on (same-process frames too), and the one already there. Chrome
      // runs a session's init scripts only once its Page domain is on.
      framed && sockets
        ? this.#send('Page.enable', {}, sessionId).then(() =>
            this.#send('Page.addScriptToEvaluateOnNewDocument', { source: sockets, runImmediately: true }, sessionId),
          )
        : undefined,
      sockets ? this.#send('Runtime.evaluate', { expression: sockets }, sessionId) : undefined,
      // Outside the page too: the browser's own network conditions take a blocked WebSocket
      // offline, whatever the page does to its constructor (the rules need the Network domain on;
      // a service worker's are sent behind it at once, see below).
      sockets
        ? pipelined
          ? Promise.all([
              this.#send('Network.enable', {}, sessionId),
              (rules = this.#send(CONDITIONS_BY_RULE, conditions(policy), sessionId)),
            ])
          : this.#send('Network.enable', {}, sessionId).then(() =>
              this.#send(CONDITIONS_BY_RULE, conditions(policy), sessionId),
            )
        : undefined,
    ]);
    // What needs a new service worker itself (the evaluate, Network.enable) is answered only once
    // it runs, and that takes its page's copy's word: awaited, each took the whole SETUP_MS. A
    // session runs its commands in order, so they go first and the guard's word right behind; any
    // other word waits (whenSetUp) until the browser answered Fetch and the rules, the rules sent
    // behind the other walls (both answered within ms while the worker is paused) — so the walls
    // are queued in the browser, not only written (a raw client's word comes over another
    // connection; released at the write, one reached the worker first under load) — and goes
    // behind the constructor's wall on its own session (workerWalls: queued on another session is
    // not sure to run first). Waiting for the guard's word's answer instead deadlocked: Chrome
    // answers it only once the worker runs, which takes the page copy's word (measured, 156).
    const resumed = pipelined && attached.waitingForDebugger ? this.#resume(sessionId) : undefined;
    if (pipelined) void Promise.allSettled([fetching, rules]).then(() => sent());
    for (const step of await steps)
      if (step.status === 'rejected')
        this.log.debug(`policy guard: ${targetInfo.type} ${targetInfo.url}: ${(step.reason as Error).message}`);
    await resumed;
    // What a target's first line met: whether it waited for the guard, and how long that took.
    if (!framed || !attached.waitingForDebugger)
      this.log.debug(
        `policy guard: ${targetInfo.type} ${targetInfo.url} ${attached.waitingForDebugger ? 'held' : 'already running'} (${Math.round(performance.now() - since)} ms)`,
      );
    // The walls answered are in place: the others' words go with the guard's, not after its
    // answer, which Chrome gives a new popup only once it runs — once every holder said so
    // (measured: each popup of the target fuzz took the whole SETUP_MS with a client holding it).
    if (!pipelined && attached.waitingForDebugger) {
      const resumed = this.#resume(sessionId);
      sent();
      await resumed;
    }
  }

  #resume(sessionId: string): Promise<unknown> {
    return this.#send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
  }
}
