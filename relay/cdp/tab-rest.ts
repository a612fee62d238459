// Handed-over tabs at rest: a tab that no agent call and no CDP client has used for `idleMs` is
// let go of by chrome.debugger — the extension detaches it, and Chrome's "… started debugging
// this browser" bar goes with the last attachment — and stays handed over (its group, badge, the
// rules on its loads, the person's say). The next command for it attaches it again first, and
// what clients set up is replayed on the fresh session (session-replay.ts), on the same document
// as if nothing happened; clawd's agent layer finds its refs again (beforeRest). A raw client
// holding a session of the tab keeps it attached: its object ids die with a debugger session and
// nothing would tell it to look for them again. Nor does a tab rest while a stream runs on it
// (the live view), while it shows a service worker (a browser shows those to every tab's clients)
// or a child waits for a client, or while the person's own rules hold its site's workers. Its
// out-of-process frames and workers sleep with it and are the same children when it wakes.

import { socketConditions, type PolicyConfig } from '../../shared/origin-policy';
import type { Logger } from '../log';
import { seconds, within } from '../time-limit';
import type { ExtensionPresence } from './extension-presence';
import { frameMarks, type FrameMark } from './frame-changes';
import type { SessionReplay, RestMark } from './session-replay';
import type { SessionTable } from './session-table';
import type { TabLink } from './tab-link';
import type { TabRecord, TargetRegistry } from './target-registry';
import type { Protocol } from 'devtools-protocol';

/** What the agent layer says of a tab about to rest (server.ts wires it). */
export interface RestHooks {
  /** Whether an agent call is running on the page: a wait for a load sends no command meanwhile. */
  busy(targetId: string): boolean;
  /** The agent layer leaves what it holds in the page where it finds it again (its refs). */
  beforeRest(targetId: string): Promise<void>;
}

/** How long the agent layer's preparation may take; past it the tab stays attached this time. */
const PREPARE_MS = 2_000;

interface Resting {
  /** Settles once the extension let go of the tab (true) or kept it (false). */
  done: Promise<boolean>;
  mark?: RestMark;
  /** The wake the first command after the rest started. */
  waking?: Promise<void>;
}

export interface RestParts {
  presence: ExtensionPresence;
  registry: TargetRegistry;
  table: SessionTable;
  link: TabLink;
  replay: SessionReplay;
  log: Logger;
}

export class TabRest {
  hooks: RestHooks | undefined;
  readonly #timers = new Map<TabRecord, ReturnType<typeof setTimeout>>();
  readonly #inFlight = new Map<TabRecord, number>();
  // When each tab's last command was answered (the rest's own preparation aside).
  readonly #lastUse = new Map<TabRecord, number>();
  readonly #resting = new Map<TabRecord, Resting>();
  // Tabs whose rest is being prepared: the agent layer's own commands then are no use of the tab.
  readonly #preparing = new Set<TabRecord>();
  // The person's own rules hold the sites' workers through the tabs' sessions.
  #personRules = false;

  constructor(
    private readonly parts: RestParts,
    /** 0: tabs never rest. */
    private readonly idleMs: number,
  ) {}

  /**
   * A command is going to the tab: returns what to call once it is answered. On the path of every
   * command, so it only counts and stamps; the one timer per tab reads the stamp when it fires.
   * While a rest is prepared (its own commands among them) the stamp is left alone, but what is
   * in flight is counted: a command still under way when it is ready keeps the tab.
   */
  sending(tab: TabRecord): () => void {
    const preparing = this.#preparing.has(tab);
    this.#inFlight.set(tab, (this.#inFlight.get(tab) ?? 0) + 1);
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      if (!preparing) this.#lastUse.set(tab, Date.now());
      const left = (this.#inFlight.get(tab) ?? 1) - 1;
      if (left > 0) return void this.#inFlight.set(tab, left);
      this.#inFlight.delete(tab);
      // The rest's own commands start no look: the rest decides what comes after it.
      if (!preparing && !this.#timers.has(tab)) this.schedule(tab);
    };
  }

  /** Looks again in `ms` (the whole idle bound unless said) whether the tab has been unused for it. */
  schedule(tab: TabRecord, ms = this.idleMs): void {
    if (this.idleMs <= 0 || !this.parts.registry.holds(tab) || this.#resting.has(tab)) return;
    clearTimeout(this.#timers.get(tab));
    const timer = setTimeout(() => void this.#tryRest(tab), ms);
    timer.unref?.();
    this.#timers.set(tab, timer);
  }

  /**
   * For a command to a resting tab: the wake it waits for (the first such command starts it). It
   * fails when the tab could not be attached again for now (the extension away, no answer): the
   * commands that waited answer with that, and the next one tries again.
   */
  waking(tab: TabRecord): Promise<void> | undefined {
    const resting = this.#resting.get(tab);
    if (!resting) return undefined;
    return (resting.waking ??= resting.done.then((rested) => (rested ? this.#wake(tab, resting) : undefined)));
  }

  childNow(tab: TabRecord, childId: string): string {
    return this.parts.table.child(tab, this.parts.table.knownAs(tab, childId))?.chromeId ?? childId;
  }

  isResting(tab: TabRecord): boolean {
    return this.#resting.get(tab)?.mark !== undefined;
  }

  /** The policy the tabs are held to changed: the person's own rules keep every tab attached. */
  policy(config: PolicyConfig): Promise<void> {
    this.#personRules =
      socketConditions({
        ...(config.block ? { block: config.block } : {}),
        ...(config.allow ? { allow: config.allow } : {}),
      }).length > 0;
    if (!this.#personRules) return Promise.resolve();
    return Promise.all([...this.#resting.keys()].map((tab) => this.waking(tab))).then(
      () => {},
      () => {}, // said in the log; the next command tries again
    );
  }

  /** The tab went, or the extension attached it again itself (a new worker's hello): nothing of its rest stays. */
  forget(tab: TabRecord): void {
    // Children asleep for a wake that will not come are what any replaced session's are: gone.
    if (this.#resting.has(tab)) this.parts.table.restChildren(tab, false);
    clearTimeout(this.#timers.get(tab));
    this.#timers.delete(tab);
    this.#inFlight.delete(tab);
    this.#lastUse.delete(tab);
    this.#resting.delete(tab);
    this.#preparing.delete(tab);
  }

  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Why the tab must stay attached now, if it must. */
  #why(tab: TabRecord): string | undefined {
    if (!this.parts.presence.ready) return 'the extension is away';
    if (!this.parts.registry.holds(tab) || tab.parked !== undefined) return 'it is not attached';
    if (this.#inFlight.has(tab) || this.parts.link.replacing(tab)) return 'a command is under way';
    if (this.#personRules) return "the person's rules hold its site's workers through its debugger session";
    return (
      this.parts.table.keepsAttached(tab) ?? (this.hooks?.busy(tab.targetId) ? 'an agent call runs on it' : undefined)
    );
  }

  async #tryRest(tab: TabRecord): Promise<void> {
    this.#timers.delete(tab);
    if (this.#resting.has(tab) || this.#preparing.has(tab)) return;
    // Used since the timer was set: looked at again when the bound from that use has passed.
    const unusedFor = Date.now() - (this.#lastUse.get(tab) ?? 0);
    if (unusedFor < this.idleMs) return this.schedule(tab, this.idleMs - unusedFor);
    const why = this.#why(tab);
    if (why !== undefined) {
      this.parts.log.debug(`tab ${tab.tabId} stays attached: ${why}`);
      return this.schedule(tab);
    }
    let frames: FrameMark[];
    this.#preparing.add(tab);
    try {
      await within(this.hooks?.beforeRest(tab.targetId) ?? Promise.resolve(), PREPARE_MS, () => new Error('no time'));
      const { frameTree } = (await this.parts.link.request(
        tab,
        undefined,
        'Page.getFrameTree',
      )) as Protocol.Page.GetFrameTreeResponse;
      frames = frameMarks(frameTree);
    } catch (error) {
      this.parts.log.debug(`tab ${tab.tabId} stays attached: ${(error as Error).message}`);
      return this.schedule(tab);
    } finally {
      this.#preparing.delete(tab);
    }
    // Used meanwhile (an agent's call came): not this time.
    if (this.#why(tab) !== undefined) return this.schedule(tab);
    const resting: Resting = { done: Promise.resolve(false) };
    this.#resting.set(tab, resting);
    resting.done = this.#letGo(tab, resting, frames);
  }

  async #letGo(tab: TabRecord, resting: Resting, frames: FrameMark[]): Promise<boolean> {
    const link = this.parts.presence.ready;
    let at = Date.now();
    // Its children sleep first: Chrome says they went as the debugger lets go; attached again when
    // it wakes, they are the children clients know.
    this.parts.table.restChildren(tab, true);
    try {
      if (!link) throw new Error('the extension is away');
      const rested = await link.request({ op: 'restTab', tabId: tab.tabId }, `letting tab ${tab.tabId} rest`);
      // The console messages after it are new to clients; those before were shown.
      if (typeof rested.at === 'number') at = rested.at;
    } catch (error) {
      this.parts.table.restChildren(tab, false);
      this.parts.log.debug(`tab ${tab.tabId} stays attached: ${(error as Error).message}`);
      if (this.#resting.get(tab) === resting) this.#resting.delete(tab);
      this.schedule(tab);
      return false;
    }
    resting.mark = { frames, at };
    this.parts.log.info(`tab ${tab.tabId} rests (unused for ${seconds(this.idleMs)}): the debugger let go of it`);
    return true;
  }

  /** Attaches the tab again, then replays what its clients set up; the commands waiting go after it. */
  async #wake(tab: TabRecord, resting: Resting): Promise<void> {
    try {
      const link = this.parts.presence.ready ?? (await this.parts.presence.awaitLink(`waking tab ${tab.tabId}`));
      // Attached again by the extension itself meanwhile (its hello after a restart): replayed already.
      if (this.#resting.get(tab) !== resting) return;
      const { targetInfo } = await link.request(
        { op: 'wakeTab', tabId: tab.tabId },
        `attaching tab ${tab.tabId} again`,
      );
      this.#resting.delete(tab);
      tab.info = { ...tab.info, url: targetInfo.url, title: targetInfo.title };
      this.parts.log.info(`tab ${tab.tabId} attached again for a command`);
      await this.parts.replay.resync(tab, resting.mark);
    } catch (error) {
      // Parked on a browser page, or gone: the extension said which first; the commands hear it.
      // Else (the extension away, no answer in time) it still rests: the next command tries again.
      this.parts.log.info(`tab ${tab.tabId} could not be attached again: ${(error as Error).message}`);
      if (this.#resting.get(tab) !== resting) return;
      if (!this.parts.registry.holds(tab) || tab.parked !== undefined) return void this.#resting.delete(tab);
      // The commands that waited fail with why; the next one tries again.
      resting.waking = undefined;
      throw error;
    }
  }
}
