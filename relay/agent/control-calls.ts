// Who controls a tab, as agents, the person and raw clients' watches ask it: holds, hand-overs
// to the person and back (tab-control.ts), the person's Stop, and the live view's side of it.

import type { HandbackResult, HandoffRequest, HandoffWaitRequest, HolderView } from '../operations/control-operations';
import type { TabRequest } from '../operations/page-operations';
import type { ProfileService } from '../profiles/profile-service';
import type { TabWatch, WatchRequest } from '../cdp/raw-watches';
import type { PersonQuestions } from '../consent/person-questions';
import { within } from '../time-limit';
import { ActionWatch } from './actions/action-watch';
import { titleOf, type AgentCall, type AgentCalls } from './agent-calls';
import type { SecretPages } from './secret-pages';
import type { AskKind } from '../../shared/ask-kinds';
import type { LeftWatches } from './tabs/lingering-watches';
import type { TabControl } from './tabs/tab-control';
import { tabKey, tabOfKey, type TabKey } from './tabs/tab-key';

/** How long finding a tab for a raw client's watch may take (its command waits for it). */
const WATCH_FIND_MS = 5_000;

export class ControlCalls {
  constructor(
    private readonly calls: AgentCalls,
    private readonly control: TabControl,
    private readonly questions: PersonQuestions,
    private readonly secretPages: SecretPages,
    private readonly profiles: ProfileService,
    /** The tab's watches left by calls and clients (tab-gate.ts): a client's takes the tab's over, and stays after it. */
    private readonly left: LeftWatches = {
      take: () => undefined,
      stay: (_found, watch) => void watch.leave(),
    },
    /** After the person's Stop: what agents left running on the profile's tabs is no longer watched. */
    private readonly stopped: (profile: string) => void = () => {},
  ) {}

  /**
   * A watch on a tab's document requests, for a raw CDP client acting on the person's tab
   * (cdp/raw-watches.ts): the same judge as an agent call's, on a session of clawd's own.
   */
  async watchTab(profile: string, request: WatchRequest): Promise<TabWatch> {
    const { targetId, ...options } = request;
    const found = await within(
      this.calls.pages.find(profile, targetId, false),
      WATCH_FIND_MS,
      () => new Error(`tab ${targetId} was not found within ${WATCH_FIND_MS / 1000} s`),
    );
    // New pages of its browser held first: failing, the watch left on the tab stays as it was.
    await this.calls.pages.holdPopups(found);
    // The watch a call or client left on the tab goes on as this client's (one judge a request, not two).
    const during = { ...options, asked: new Set<AskKind>() };
    const taken = this.left.take(found);
    if (taken) taken.use(during);
    const watch =
      taken ??
      (await ActionWatch.start({ page: found.page, targetId: found.targetId, browser: found.endpoint }, during));
    // The client went: what it holds is answered first, then its watch stays on the tab, as a
    // call's does, for what a script it left does later.
    return {
      stop: async () => {
        try {
          await watch.settle();
        } finally {
          this.left.stay(found, watch, options.visited);
        }
      },
    };
  }

  /** After a tab is closed: nobody holds it any more. */
  forgetTab(profile: string, targetId: string): void {
    this.secretPages.forget(profile, targetId);
    this.control.forget(tabKey(profile, targetId));
  }

  /** The person dragged a tab of their browser into an agent session's tab group: that session holds it. */
  assignTab(profile: string, targetId: string, session: string): void {
    this.control.assign(tabKey(profile, targetId), session);
  }

  /** The person pressed Stop: no session holds any tab of the profile, no hand-over goes on. */
  releaseAll(profile: string): void {
    this.control.releaseProfile(profile);
    this.stopped(profile);
  }

  /** The tabs agents handed to the person, on every profile (the side panel offers to open each). */
  handedOver(): Array<{ profile: string; targetId: string; reason: string }> {
    return this.control.handedOver().map(({ tab, reason }) => ({ ...tabOfKey(tab), reason }));
  }

  /** The person records a recipe in a tab of theirs: no agent changes it meanwhile (person-recording.ts). */
  personRecords(profile: string, targetId: string, reason: string): boolean {
    return this.control.takeOver(tabKey(profile, targetId), reason);
  }

  /** The recording that took the tab (for `reason`) ended: it goes back to agents, if that is still what holds it. */
  personRecorded(profile: string, targetId: string, reason: string): void {
    this.control.endTakeOver(tabKey(profile, targetId), reason);
  }

  /** Why the person has the tab (a hand-over, a take-over, a recording), if they have it: raw clients may not change it. */
  personHas(profile: string, targetId: string): string | undefined {
    const holder = this.control.holder(tabKey(profile, targetId));
    return holder?.kind === 'person' ? holder.reason : undefined;
  }

  /** Who holds a tab (for GET /tabs), if anyone. */
  holderOf(profile: string, targetId: string): HolderView | undefined {
    return this.control.holder(tabKey(profile, targetId));
  }

  async releaseHold(call: AgentCall, request: TabRequest): Promise<{ targetId: string; released: boolean }> {
    const { targetId, tab } = await this.calls.page(call);
    return { targetId, released: this.control.release(tab, request.session) };
  }

  /** Gives the tab to the person until they give it back (or the agent ends it, or it times out). */
  async handOff(
    call: AgentCall,
    request: HandoffRequest,
  ): Promise<{ handedOff: true; targetId: string; reason: string; timeoutMs?: number }> {
    const { targetId, tab } = await this.calls.page(call);
    this.control.handOff(tab, request.reason, request.timeoutMs);
    return {
      handedOff: true,
      targetId,
      reason: request.reason,
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    };
  }

  async waitForHandback(call: AgentCall, request: HandoffWaitRequest): Promise<HandbackResult> {
    const { page, targetId, tab } = await this.calls.page(call);
    const returned = await this.control.wait(tab, request.timeoutMs);
    return {
      targetId,
      returned,
      url: page.isClosed() ? null : page.url(),
      title: page.isClosed() ? null : await titleOf(page),
    };
  }

  async endHandoff(
    call: AgentCall,
    request: TabRequest,
    by: 'person' | 'agent',
  ): Promise<{ targetId: string; ended: boolean }> {
    const { targetId, tab } = await this.calls.page(call);
    return { targetId, ended: this.control.giveBack(tab, by) };
  }

  /** The live view's side of who controls a tab (relay/view/live-views.ts). */
  readonly view = {
    /** The person's address bar obeys the profile's origin policy, as everything in the tab does. */
    checkUrl: (tab: TabKey, url: string) => this.profiles.policies.checkUrl(tabOfKey(tab).profile, url),
    viewPage: (profile: string, targetId: string | undefined) => this.calls.pages.find(profile, targetId, false),
    holder: (tab: TabKey) => this.control.holder(tab) ?? null,
    personTakes: (tab: TabKey) => void this.control.takeOver(tab),
    personDone: (tab: TabKey) => void this.control.giveBack(tab, 'person'),
    /** The questions waiting for the person on a profile, and their answer from the live view. */
    questions: (profile: string) => this.questions.pending(profile).filter((q) => !q.terminal),
    answer: (id: string, allow: boolean) => this.questions.answer(id, allow, 'live view'),
  };
}
