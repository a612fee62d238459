// The watches agent calls leave on their tabs (action-watch.ts): a call's watch stays on after it
// answers, so what it left running — a click's handler that loads another site once its request
// comes back, a timer that sends a form — is judged as the call itself would be. Nothing an agent
// can do ends it but another watched call on the tab, which judges with its own options: not
// releasing or handing over the tab, not input the person's hands are told apart from by a guess
// (cdp/agent-inputs.ts). Every load of the tab stays judged until then, the person's Stop, its
// page closing, or clawd stopping — the person's own loads in it too, asked about as "after …".
// One per tab. A new tab it holds (action-watch.ts) outlives it: judged on until its own page
// goes, a watch of its own takes it over, or the person's Stop.

import type { Page } from 'playwright-core';
import { WATCHED_ASK_KINDS, type AskKind } from '../../../shared/ask-kinds';
import { QUESTION_LIFE_MS, type PersonQuestions } from '../../consent/person-questions';
import type { ActionWatch } from '../actions/action-watch';
import type { AgentPage } from './page-finder';
import { tabOfKey, type TabKey } from './tab-key';

/** What judging after the call needs: the person's answers and their asks now. */
export interface LingeringDeps {
  questions: PersonQuestions;
  askOf(profile: string): readonly AskKind[];
}

/** The watches calls and clients leave on tabs, as a raw client's watch meets them (control-calls.ts `watchTab`). */
export interface LeftWatches {
  /** The tab's watch, taken over (out of the list), if one was left on that page. */
  take(found: AgentPage): ActionWatch | undefined;
  /** Leaves a gone client's watch on its tab. */
  stay(found: AgentPage, watch: ActionWatch, visited: Set<string>): void;
}

/** The call that leaves the watch: its profile, session and label (the person's question names it). */
interface LeavingCall {
  profile: string;
  session: string | undefined;
  label: string;
}

interface Lingering {
  watch: ActionWatch;
  page: Page;
  /** Ends it when the page closes (the hold's session went with it). */
  offClose: () => void;
}

export class LingeringWatches {
  readonly #byTab = new Map<TabKey, Lingering>();
  /** Watches whose tab is no longer theirs that still judge new tabs they hold, by profile. */
  readonly #newTabsOnly = new Map<ActionWatch, string>();
  #closed = false;

  constructor(private readonly deps: LingeringDeps) {}

  /**
   * After a call settled: its watch stays on the tab, judging its loads by the person's asks as
   * they are then, against the sites the session has been on.
   */
  stay(call: LeavingCall, found: AgentPage, watch: ActionWatch, visited: Set<string>): void {
    const { profile, session, label } = call;
    const { tab, targetId, page } = found;
    const deps = this.deps;
    watch.use({
      // The person's asks as they are now: one they drop is no longer judged.
      get kinds() {
        return new Set(WATCHED_ASK_KINDS.filter((kind) => deps.askOf(profile).includes(kind)));
      },
      visited,
      asked: new Set(),
      ask: (kinds, url, what) =>
        deps.questions.ask(
          { profile, targetId, kinds, ...(session ? { session } : {}), what: `after ${label}: ${what}`, url },
          QUESTION_LIFE_MS,
        ),
      left: () => QUESTION_LIFE_MS,
    });
    this.keep(tab, page, watch);
  }

  /** The tab's watch, for a call that goes on with it on the same page; taken out of the list. */
  take(tab: TabKey, page: Page): ActionWatch | undefined {
    const lingering = this.#byTab.get(tab);
    if (!lingering) return undefined;
    this.#forget(tab, lingering);
    if (lingering.page === page && !page.isClosed()) return lingering.watch;
    this.#letGo(tab, lingering.watch);
    return undefined;
  }

  /** Keeps a call's watch on its tab (one the tab had already ends: a call beside it left it). */
  keep(tab: TabKey, page: Page, watch: ActionWatch): void {
    this.end(tab);
    if (this.#closed) return void watch.leave();
    if (page.isClosed()) return this.#letGo(tab, watch);
    const closed = () => this.end(tab);
    page.once('close', closed);
    this.#byTab.set(tab, { watch, page, offClose: () => page.off('close', closed) });
  }

  /** The tab's watch ends: what happens there now is not the call's. */
  end(tab: TabKey): void {
    const lingering = this.#byTab.get(tab);
    if (!lingering) return;
    this.#forget(tab, lingering);
    this.#letGo(tab, lingering.watch);
  }

  /** Every watch on the profile's tabs ends, new tabs they hold too (the person's Stop: what agents left there is theirs now). */
  endProfile(profile: string): void {
    for (const [tab, lingering] of [...this.#byTab])
      if (tabOfKey(tab).profile === profile) {
        this.#forget(tab, lingering);
        void lingering.watch.leave();
      }
    for (const [watch, of] of [...this.#newTabsOnly])
      if (of === profile) {
        this.#newTabsOnly.delete(watch);
        void watch.leave();
      }
  }

  close(): void {
    this.#closed = true;
    for (const [tab, lingering] of [...this.#byTab]) {
      this.#forget(tab, lingering);
      void lingering.watch.leave();
    }
    for (const watch of this.#newTabsOnly.keys()) void watch.leave();
    this.#newTabsOnly.clear();
  }

  /** A watch's tab is no longer its: it judges on the new tabs it holds, kept until they go. */
  #letGo(tab: TabKey, watch: ActionWatch): void {
    for (const [kept] of this.#newTabsOnly)
      if (!kept.holdsNewTabs) {
        this.#newTabsOnly.delete(kept);
        void kept.leave();
      }
    if (watch.holdsNewTabs && !this.#closed) this.#newTabsOnly.set(watch, tabOfKey(tab).profile);
    void watch.leaveTab();
  }

  #forget(tab: TabKey, lingering: Lingering): void {
    this.#byTab.delete(tab);
    lingering.offClose();
  }
}
