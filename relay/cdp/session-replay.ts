// A tab's debugger session replaced under its clients: after a chrome:// detour, an extension
// reload, or a rest (tab-rest.ts). What the clients set up is replayed on the fresh session so
// each carries on under the same session id. After a detour or a reload the page is another
// document: clients are told its contexts went and where the tab is (a navigation, as Playwright
// expects). After a rest on the same document they are told only what changed meanwhile (frame
// events, frame-changes.ts); Chrome announces the contexts again on the replayed Runtime.enable,
// with their ids, and the console messages a client saw before the rest are not shown again. Its
// children (out-of-process frames, workers), attached again by the replayed auto-attach under new
// session ids, are the same children to their clients (child-targets.ts), and what those set up
// on each is replayed too before the commands held go.

import type { Protocol } from 'devtools-protocol';
import type { Logger } from '../log';
import { say } from './client-events';
import type { EventParams } from './cdp-types';
import type { DebuggeeState } from './debuggee-state';
import { frameChanges, sameDocument, type FrameMark } from './frame-changes';
import type { ChildTarget, SessionTable, Subscription } from './session-table';
import { autoAttachParams } from './tab-commands';
import type { ResyncSend, TabLink } from './tab-link';
import type { TabRecord } from './target-registry';

/** What a rest left to compare with: the frames, and when the debugger let go. */
export interface RestMark {
  frames: FrameMark[];
  at: number;
}

type Told =
  | 'Runtime.executionContextsCleared'
  | 'Page.frameNavigated'
  | 'Page.frameAttached'
  | 'Page.frameDetached'
  | 'Page.navigatedWithinDocument';

export class SessionReplay {
  // Tabs waking from a rest: their sender past the hold, and the children's replays under way.
  readonly #waking = new Map<TabRecord, { send: ResyncSend; children: Array<Promise<void>> }>();

  constructor(
    private readonly table: SessionTable,
    private readonly link: TabLink,
    private readonly log: Logger,
  ) {}

  /**
   * Chrome gave the tab a fresh debugger session while clients were on it: what they had set up
   * is replayed — Page first, then the rest in order, then the init scripts' isolated worlds for
   * the current document. Other commands for the tab wait meanwhile. `rest`: the session went
   * because the tab rested, and what the frames were then.
   */
  resync(tab: TabRecord, rest?: RestMark): Promise<void> {
    this.table.sessionReplaced(tab);
    const state = this.table.debuggee(tab, undefined);
    if (!state) return Promise.resolve();
    const tell = this.#teller(state);
    return this.link.resync(tab, async (send) => {
      const waking = { send, children: [] as Array<Promise<void>> };
      if (rest) this.#waking.set(tab, waking);
      try {
        await this.#page(tab, state, send, tell, rest);
        // The children Chrome attached again meanwhile, and theirs: each replayed; the rest are gone.
        for (let done = 0; done < waking.children.length;) {
          const batch = waking.children.slice(done);
          done += batch.length;
          await Promise.all(batch);
        }
        if (rest) this.table.wokeChildren(tab);
      } finally {
        this.#waking.delete(tab);
      }
    });
  }

  /** A child the tab had before its rest is attached again: what its clients set up goes on its new session. */
  child(tab: TabRecord, child: ChildTarget): void {
    const waking = this.#waking.get(tab);
    if (!waking) return;
    const send: ResyncSend = (method, params) => waking.send(method, params, child.chromeId);
    waking.children.push(this.#setup(tab, child.state, send));
  }

  /** The page's replay: Page first, what its document is told, the rest in order, the init scripts' worlds. */
  async #page(
    tab: TabRecord,
    state: DebuggeeState<Subscription>,
    send: ResyncSend,
    tell: <E extends Told>(method: E, params: EventParams<E>) => void,
    rest: RestMark | undefined,
  ): Promise<void> {
    const commands = state.setup.commands();
    const runtime = (state.domains.get('Runtime')?.size ?? 0) > 0;
    const pageEnable = commands.find((c) => c.method === 'Page.enable');
    if (pageEnable) await send('Page.enable', pageEnable.params);
    const { frameTree } = (await send('Page.getFrameTree')) as Protocol.Page.GetFrameTreeResponse;
    if (rest !== undefined && sameDocument(rest.frames, frameTree)) {
      // Messages Chrome keeps and says again on Runtime.enable: only those after the rest are new.
      tab.seenUpTo = rest.at;
      if (pageEnable) for (const { method, params } of frameChanges(rest.frames, frameTree)) tell(method, params);
    } else {
      if (runtime) tell('Runtime.executionContextsCleared', {});
      if (pageEnable) tell('Page.frameNavigated', { frame: frameTree.frame, type: 'Navigation' });
    }
    await this.#setup(tab, state, send, pageEnable);
    // Init scripts run in their worlds on new documents only; the current one needs them made.
    const worlds = new Set(
      commands.map((c) => c.params.worldName).filter((w): w is string => typeof w === 'string' && w !== ''),
    );
    if (runtime)
      for (const worldName of worlds)
        await send('Page.createIsolatedWorld', {
          frameId: frameTree.frame.id,
          worldName,
          grantUniveralAccess: true,
        }).catch(() => {});
  }

  /** What the clients set up on a debuggee, sent again in order (`done`: already sent). */
  async #setup(tab: TabRecord, state: DebuggeeState<Subscription>, send: ResyncSend, done?: unknown): Promise<void> {
    for (const command of state.setup.commands()) {
      if (command === done) continue;
      const params =
        command.method === 'Target.setAutoAttach' ? autoAttachParams(state, command.params) : command.params;
      const result = (await send(command.method, params).catch((error: Error) =>
        this.log.debug(`replay of ${command.method} on tab ${tab.tabId}: ${error.message}`),
      )) as { identifier?: string } | undefined;
      if (command.identifier !== undefined && typeof result?.identifier === 'string')
        state.setup.alias(command.identifier, result.identifier);
    }
  }

  /**
   * Chrome detached the tab for a page that cannot be automated (chrome://…): to its clients the
   * page navigated there and its documents' contexts and frames are gone, as on a real
   * navigation; a `page.evaluate` then waits for the tab's return instead of failing.
   */
  parked(tab: TabRecord, url: string): void {
    this.table.sessionReplaced(tab);
    const state = this.table.debuggee(tab, undefined);
    if (!state) return;
    const tell = this.#teller(state);
    if ((state.domains.get('Runtime')?.size ?? 0) > 0) tell('Runtime.executionContextsCleared', {});
    const frame: Protocol.Page.Frame = {
      id: tab.targetId,
      loaderId: `clawd-parked-${Date.now()}`,
      url,
      domainAndRegistry: '',
      securityOrigin: new URL(url).origin,
      mimeType: 'text/html',
      secureContextType: 'Secure',
      crossOriginIsolatedContextType: 'NotIsolated',
      gatedAPIFeatures: [],
    };
    if ((state.domains.get('Page')?.size ?? 0) > 0) tell('Page.frameNavigated', { frame, type: 'Navigation' });
  }

  /** Sends an event the relay makes up to the page's subscribers that want it, as if Chrome had. */
  #teller(state: DebuggeeState<Subscription>): <E extends Told>(method: E, params: EventParams<E>) => void {
    return (method, params) => {
      state.arrive(method, params as unknown as Record<string, unknown>);
      for (const sub of state.subscribers) if (state.wants(sub, method)) say(sub.client, sub.sessionId, method, params);
    };
  }
}
