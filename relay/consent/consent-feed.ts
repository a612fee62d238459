// What the person's side panel shows, kept current: while a panel (or the options page) is open
// in their browser, the consent state (shared/consent-state.ts) is sent to the extension at once
// and again whenever something changes (a tab handed over, an action, a question, a hold, the
// policy) — at most once per `settleMs`, so a burst of actions is one message. The last actions
// are kept here as they happen (read from the action log once, when the first panel opens), so
// a change costs no file reads. Owns one timer, ended by close().

import type { AskKind } from '../../shared/ask-kinds';
import type {
  ConsentAction,
  ConsentApproval,
  ConsentHandoff,
  ConsentQuestion,
  ConsentState,
  ConsentTab,
} from '../../shared/consent-state';

/** The newest actions a panel shows. */
export const PANEL_ACTIONS = 30;

export interface ConsentFeedDeps {
  /** The profile the person's browser is (the extension profile), if there is one. */
  profile(): string | undefined;
  tabs(profile: string): ConsentTab[];
  policy(profile: string): { allow?: string[]; block?: string[]; ask: AskKind[] };
  questions(profile: string): ConsentQuestion[];
  /** The tabs agents handed to the person in clawd's other browsers. */
  handoffs(): ConsentHandoff[];
  /** The person's standing yeses in force (person-approvals.ts). */
  approvals(profile: string): ConsentApproval[];
  /** The last recipe the person saved from a recording (person-recording.ts). */
  recipeSaid(): ConsentState['recipeSaid'];
  /** The profile's last actions from the log, oldest first. */
  history(profile: string, limit: number): Promise<ConsentAction[]>;
  send(state: ConsentState): void;
}

export class ConsentFeed {
  #open = false;
  #actions: ConsentAction[] | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly deps: ConsentFeedDeps,
    private readonly settleMs = 50,
  ) {}

  /** Whether a side panel (or the options page) is open in the person's browser. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** A panel opened (the state goes at once) or the last one closed (nothing goes until one opens). */
  panel(open: boolean): void {
    this.#open = open;
    if (open) this.changed();
    else {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** An action was recorded: kept for the panel (of the profile it shows). */
  action(profile: string, entry: ConsentAction): void {
    if (this.#actions === undefined || profile !== this.deps.profile()) return;
    this.#actions.push(entry);
    if (this.#actions.length > PANEL_ACTIONS) this.#actions.splice(0, this.#actions.length - PANEL_ACTIONS);
    this.changed();
  }

  /** Something the panel shows changed: sent soon, once. */
  changed(): void {
    if (!this.#open || this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#send().catch(() => {}); // the extension went meanwhile: the next panel asks again
    }, this.settleMs);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #send(): Promise<void> {
    const profile = this.deps.profile();
    if (!profile || !this.#open) return;
    this.#actions ??= await this.deps.history(profile, PANEL_ACTIONS);
    const { ask, ...policy } = this.deps.policy(profile);
    const recipeSaid = this.deps.recipeSaid();
    this.deps.send({
      profile,
      tabs: this.deps.tabs(profile),
      actions: [...this.#actions],
      policy,
      ask,
      questions: this.deps.questions(profile),
      handoffs: this.deps.handoffs(),
      approvals: this.deps.approvals(profile),
      ...(recipeSaid ? { recipeSaid } : {}),
    });
  }
}
