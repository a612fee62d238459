// Wiring of the person's say over their own browser, kept out of server.ts for its size: the
// questions they are asked and their hands on a tab (relay/consent/), told to /events and the
// action log; what the extension hears from them (their input, the side panel's Allow, Deny,
// Stop, "Block this site", what to be asked) turned into calls on the services; and the side
// panel's state, sent while a panel is open. The relay is made before the services it reaches,
// so its hooks reach them once `connect` has run.
// Kept whole (under the 400-line cap): each part here is one hook from the relay or the
// extension to a service; the work is in relay/consent/ and the gates.

import { PAGE_MARKS } from '../shared/page-marks';
import type { ConsentAction, ConsentTab } from '../shared/consent-state';
import type { PersonFrame } from '../shared/protocol';
import type { ActionLog } from './agent/action-log';
import type { AgentService } from './agent/agent-service';
import { ClientGate } from './cdp/client-gate';
import type { RelayServer } from './cdp/relay-server';
import type { RelayConsent } from './cdp/switchboard';
import { ConsentFeed } from './consent/consent-feed';
import { PersonActivity } from './consent/person-activity';
import { PersonQuestions, SIDE_PANEL, kindsText } from './consent/person-questions';
import { callerAuthority } from './caller-authority';
import { callerSignal, noteForCaller } from './call-notes';
import { ClawdError } from './errors';
import type { EventBus } from './events/event-bus';
import { DEFAULT_PERSON_IDLE_MS } from './home/config-schema';
import type { Logger } from './log';
import type { ProfileService } from './profiles/profile-service';
import type { RecipeStore } from './agent/export/recipe-store';
import { PersonRecording } from './consent/person-recording';
import { askNotice } from './consent/ask-notices';
import { UnallowedSites } from './consent/unallowed-sites';

interface World {
  profiles: ProfileService;
  agent: AgentService;
  relay: RelayServer;
  recipes: RecipeStore;
}

export class PersonConsent {
  readonly questions: PersonQuestions;
  readonly activity: PersonActivity;
  readonly feed: ConsentFeed;
  /** The gate the relay holds raw CDP clients to. */
  readonly relay: RelayConsent;
  #world: World | undefined;
  #recording: PersonRecording | undefined;
  readonly #rawGates = new Map<string, ClientGate>();
  /** Sites asked about and not allowed since, heard from the start (a raw client's gate comes later). */
  readonly #unallowed: UnallowedSites;
  readonly #unsubscribe: () => void;
  #unsubscribePolicy: () => void = () => {};

  constructor(
    private readonly events: EventBus,
    private readonly actions: ActionLog,
    private readonly log: Logger,
  ) {
    const profile = () => this.#profile();
    // Where the person looks: their side panel shows their browser's questions; a live view that
    // answers shows its profile's. Elsewhere a call hears `waiting_for_person` at once.
    this.questions = new PersonQuestions({
      looking: (named) => (named === profile() && this.feed.isOpen) || this.viewsAnswering?.(named) === true,
    });
    this.#unallowed = new UnallowedSites(this.questions);
    this.activity = new PersonActivity(
      () => this.#world?.profiles.settings.personIdleMs ?? DEFAULT_PERSON_IDLE_MS,
      (targetId, state) => {
        const named = profile();
        if (named) events.emit({ type: 'person', profile: named, targetId, state });
      },
    );
    this.questions.onChange((change) => {
      this.#told(change);
      this.#notify();
    });
    this.feed = new ConsentFeed({
      profile,
      tabs: (named) => this.#tabs(named),
      policy: (named) => this.#world!.profiles.policies.policyInForce(named),
      questions: (named) => this.questions.pending(named),
      handoffs: () => {
        const person = profile();
        return (this.#world?.agent.control.handedOver() ?? []).filter((h) => h.profile !== person);
      },
      recipeSaid: () => this.#recording?.said,
      approvals: (named) => this.questions.approvals.list(named).map(({ profile: _p, ...approval }) => approval),
      history: async (named, limit) =>
        (await actions.query({ profile: named, limit })).map(({ profile: _p, ...entry }) => entry as ConsentAction),
      send: (state) => this.#world?.relay.switchboard.sendConsent(state),
    });
    this.#unsubscribe = events.subscribe((event) => {
      if (event.type === 'action') {
        const { type: _t, profile: named, ...entry } = event;
        this.feed.action(named, entry);
        return;
      }
      if (event.type === 'tab' && (event.state === 'detached' || event.state === 'closed')) {
        this.activity.forget(event.targetId);
        this.questions.forgetTab(event.targetId);
        this.#recording?.forget(event.profile, event.targetId);
      }
      this.feed.changed();
    });
    this.relay = this.#relayConsent(profile);
  }

  /** What the relay hears from the person's browser, and the gate it holds raw CDP clients to there. */
  #relayConsent(profile: () => string | undefined): RelayConsent {
    const log = this.log;
    return {
      gate: new ClientGate({
        activity: this.activity,
        questions: this.questions,
        profile,
        asked: () => this.#world?.profiles.policies.askOf(profile() ?? '') ?? [],
        watch: () => {
          const [agent, named] = [this.#world?.agent, profile()];
          return agent && named ? (request) => agent.control.watchTab(named, request) : undefined;
        },
        personHas: (targetId) => {
          const named = profile();
          return named ? this.#world?.agent.control.personHas(named, targetId) : undefined;
        },
        unallowed: (profile, site) => this.#unallowed.has(profile, site),
        warn: (message) => log.warn(message),
      }),
      personInput: (targetId) => this.activity.input(targetId),
      panel: (open) => {
        this.feed.panel(open);
        // A recording is the side panel's: with the last one closed, nobody sees its steps.
        const named = profile();
        if (!open && named) this.#recording?.stopAll(named);
      },
      said: (say) =>
        void this.#said(say).catch((error: Error) =>
          this.log.warn(`the side panel's ${Object.keys(say)[0]}: ${error.message}`),
        ),
      connected: () => this.#notify(),
      handedTo: (targetId, session) => {
        const named = profile();
        if (named) this.#world?.agent.control.assignTab(named, targetId, session);
      },
    };
  }

  /**
   * The gate a profile's raw CDP clients are held to (a managed profile's port; the person's tabs
   * have the relay's, above): the profile's asks, its tabs watched by the agent layer.
   */
  rawGate(named: string): ClientGate {
    let gate = this.#rawGates.get(named);
    if (!gate)
      this.#rawGates.set(
        named,
        (gate = new ClientGate({
          activity: this.activity,
          questions: this.questions,
          profile: () => named,
          asked: () => this.#world?.profiles.policies.askOf(named) ?? [],
          watch: () => {
            const agent = this.#world?.agent;
            return agent ? (request) => agent.control.watchTab(named, request) : undefined;
          },
          personHas: (targetId) => this.#world?.agent.control.personHas(named, targetId),
          unallowed: (profile, site) => this.#unallowed.has(profile, site),
          warn: (message) => this.log.warn(message),
        })),
      );
    return gate;
  }

  /** Whether a live view that answers questions shows the profile now (the control API's views). */
  viewsAnswering: ((profile: string) => boolean) | undefined;

  #notify(): void {
    this.#world?.relay.switchboard.sendAsks(this.questions.pending().map(askNotice));
  }

  /** A live view link of the person's own (it acts), bound to one tab: the control API mints it once it listens. */
  viewLink: ((tab: { profile: string; targetId: string }) => string) | undefined;

  /** The services exist: the relay's hooks reach them from now on. */
  connect(world: World): void {
    this.#world = world;
    this.#recording = new PersonRecording(world.agent.control, world.recipes, (targetId) =>
      world.relay.switchboard.tabs().some((tab) => tab.targetId === targetId),
    );
    this.#unsubscribePolicy = world.profiles.policies.onPolicyChange(() => this.feed.changed());
  }

  close(): void {
    this.#unsubscribe();
    this.#unsubscribePolicy();
    this.feed.close();
    this.relay.gate.close();
    for (const gate of this.#rawGates.values()) gate.close();
    this.#unallowed.close();
    this.questions.close();
    this.activity.close();
  }

  /**
   * A change that loosens the person's rules may go on (`changes` say how, in words): never on an
   * agent's word (person_only); on the person's terminal's, once they said yes in the side panel
   * while their browser is connected, and at once when it is not (nothing of theirs to ask in).
   */
  async confirmLoosening(changes: string[], timeoutMs: number): Promise<void> {
    const what = changes.join('; ');
    if (callerAuthority() !== 'person')
      throw new ClawdError(
        'person_only',
        `loosening the person's rules (${what}) is the person's to do, from their terminal, and they confirm it in clawd's side panel: an agent's token cannot`,
      );
    const profile = this.#profile();
    if (!profile || !this.#world?.relay.switchboard.extensionConnected) {
      noteForCaller("no browser of the person's is connected: the terminal's word was taken");
      return;
    }
    noteForCaller(`waiting for your yes in clawd's side panel in Chrome: ${what}`);
    await this.questions.ask({ profile, kinds: [], what, terminal: true }, timeoutMs, callerSignal());
  }

  /** The person's browser: the first extension profile. */
  #profile(): string | undefined {
    return this.#world?.profiles.personsProfiles()[0];
  }

  #tabs(profile: string): ConsentTab[] {
    const { relay, agent } = this.#world!;
    return relay.switchboard.tabs().map((tab) => {
      const holder = agent.control.holderOf(profile, tab.targetId);
      return {
        tabId: tab.tabId,
        targetId: tab.targetId,
        title: tab.info.title,
        url: tab.info.url,
        holder: !holder
          ? null
          : holder.kind === 'agent'
            ? { kind: 'agent', session: holder.session }
            : { kind: 'person', reason: holder.reason },
        personActive: this.activity.busyFor(tab.targetId) > 0,
      };
    });
  }

  /** What the person said in the side panel. */
  async #said(say: PersonFrame['say']): Promise<void> {
    const profile = this.#profile();
    const world = this.#world;
    if (!profile || !world) return;
    if ('answer' in say) {
      this.questions.answer(say.answer, say.allow, SIDE_PANEL, say.for, say.value);
    } else if ('revoke' in say) {
      this.questions.approvals.revoke(say.revoke);
    } else if ('stop' in say) {
      // The extension releases every tab itself; here nothing of the agents' goes on waiting or holding.
      this.questions.declineAll(profile, SIDE_PANEL);
      world.agent.control.releaseAll(profile);
      this.actions.record({
        profile,
        kind: 'stop',
        outcome: 'ok',
        durationMs: 0,
        detail: 'the person pressed Stop in the side panel: every tab released',
      });
    } else if ('view' in say) {
      // The person, in their side panel, opens their own live view of a tab an agent handed them
      // (the agent's link only watches): one that acts, bound to that tab, opened in a tab of theirs.
      const { profile: handed, targetId } = say.view;
      if (!world.agent.control.handedOver().some((h) => h.profile === handed && h.targetId === targetId)) return;
      const url = this.viewLink?.({ profile: handed, targetId });
      if (url) await world.relay.switchboard.openView(url);
    } else if ('block' in say) {
      const { allow, block = [] } = world.profiles.policies.policyInForce(profile);
      if (!block.includes(say.block))
        await world.profiles.policies.setPolicy(
          profile,
          { ...(allow ? { allow } : {}), block: [...block, say.block] },
          false,
        );
    } else if ('ask' in say) {
      await world.profiles.policies.setAsk(profile, say.ask);
    } else {
      await this.#recorded(profile, say);
    }
    this.feed.changed();
  }

  /** The person records a task in a tab of theirs (Record in the side panel), stops, or saves it. */
  async #recorded(
    profile: string,
    say: Extract<PersonFrame['say'], { record: unknown }> | Extract<PersonFrame['say'], { recipe: unknown }>,
  ): Promise<void> {
    const recording = this.#recording!;
    const entry = (targetId: string, detail: string, outcome = 'ok') =>
      this.actions.record({ profile, targetId, kind: 'record', outcome, durationMs: 0, detail });
    if ('record' in say) {
      const { targetId, on } = say.record;
      if (!on) return recording.stop(profile, targetId);
      recording.start(profile, targetId);
      return entry(targetId, 'the person records a recipe in the side panel: no agent changes the tab meanwhile');
    }
    const { name, targetId, recipe } = say.recipe;
    const day = new Date().toISOString().slice(0, 10);
    try {
      await recording.save(profile, say.recipe, {
        ...recipe,
        source: `recorded by the person on ${profile}, ${day}`,
      });
      entry(targetId, `the person saved recipe ${name} (${recipe.steps.length} steps)`);
    } catch (error) {
      entry(targetId, `the person's recipe ${name} was not saved: ${(error as Error).message}`, 'failed');
    }
  }

  /** A question asked or answered: on /events and in the action log. */
  #told(change: Parameters<Parameters<PersonQuestions['onChange']>[0]>[0]): void {
    const { question } = change;
    const by = change.state === 'asked' ? undefined : change.by;
    const where = {
      ...(question.targetId ? { targetId: question.targetId } : {}),
      ...(question.url ? { url: question.url } : {}),
      ...(question.session ? { session: question.session } : {}),
    };
    this.events.emit({
      type: 'question',
      profile: question.profile,
      state: change.state,
      id: question.id,
      kinds: question.kinds,
      what: question.what,
      ...where,
      ...(by ? { by } : {}),
    });
    const outcome = {
      asked: 'asked',
      allowed: 'allowed',
      declined: 'person_declined',
      unanswered: 'person_no_answer',
      withdrawn: 'withdrawn',
    }[change.state];
    const durationMs = change.state === 'asked' ? 0 : Date.now() - Date.parse(question.asked);
    this.actions.record({
      profile: question.profile,
      // A loosening the person's terminal asked for is its own kind of entry, not an agent's question.
      kind: question.terminal ? 'rules' : 'ask',
      ...where,
      outcome,
      durationMs,
      detail: `${question.terminal ? "the person's terminal asks to loosen their rules" : kindsText(question.kinds)}: ${question.what.replace(PAGE_MARKS, '')}${by ? (by.startsWith('your ') ? ` (by ${by})` : ` (answered in the ${by})`) : ''}`,
    });
  }
}
