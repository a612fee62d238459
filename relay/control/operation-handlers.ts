// The work behind each operation of the table, in this process: one line per operation, handing
// the checked input to the service that does it (the agent service, the profile service) and
// telling /events what changed. The map is typed by the table, so an operation without its
// handler, or a handler answering the wrong result, does not compile. HTTP (operation-routes.ts)
// and MCP served by this process (`/mcp`, `clawd mcp` running its own server) both call these.
// Kept whole (under the 400-line cap): the handler table and the invoker are the two halves of one
// rule (every operation goes through the same gate, secrets, log and trace); apart, they would drift.

import type { ActionLog } from '../agent/action-log';
import { callerNotes, callerSignal, collectNotes, noteForCaller } from '../call-notes';
import type { AgentCall } from '../agent/agent-calls';
import type { AgentService } from '../agent/agent-service';
import { elementRefs } from '../operations/element-refs';
import { exportSession } from '../agent/export/session-export';
import { ClawdError } from '../errors';
import { RecipeStore } from '../agent/export/recipe-store';
import type { LocatedElement } from '../../shared/element-locator';
import { RecipeRunner } from './recipe-runner';
import { paramSaid } from '../../shared/recipe';
import type { EventBus } from '../events/event-bus';
import type { Invoker } from '../operations/control-client';
import { MAX_HANDOFF_WAIT_MS } from '../operations/control-operations';
import type { InputOf, Operation, ResultOf } from '../operations/operation';
import type { OperationName, OPERATIONS } from '../operations/operation-table';
import type { ProfileService } from '../profiles/profile-service';
import { looseningsOfChange } from '../profiles/rule-changes';
import type { SecretStore } from '../home/secret-store';
import { pageQuote } from '../operations/page-fence';
import type { PersonQuestions } from '../consent/person-questions';
import {
  checkSecrets,
  maskOf,
  namesCodes,
  namesSecrets,
  widenCallMask,
  withCallMask,
  withCodes,
  withSecrets,
} from '../operations/secret-use';
import { callLabel, recordCall, type RecorderDeps } from './action-recorder';
import { openWatched } from '../agent/tabs/opened-tab';

/** How long a call with no bound of its own waits for the person to type a code. */
const CODE_WAIT_MS = 60_000;

export interface OperationServices {
  agent: AgentService;
  profiles: ProfileService;
  events: EventBus;
  /** A signed-in live view link to a tab, valid (once) for `ttlMs`: given with a hand-over. */
  viewLink(tab: { profile: string; targetId: string }, ttlMs: number): string;
  /** Where what agents did is recorded. */
  actions: ActionLog;
  /** The clawd home: exports are written under it. */
  home: string;
  /** Runs recipes through the invoker (made by LocalInvoker: each step is a call of its own). */
  recipes?: RecipeRunner;
  /** The person's secrets: put into `type`/`fill` for `{{secret:NAME}}` (a TOTP seed's code for `{{totp:NAME}}`), masked in every answer. */
  secrets: SecretStore;
  /**
   * A change that loosens the person's rules (each said in words) may go on: refused person_only
   * unless the caller is the person's terminal; then, while their browser is connected, only once
   * they said yes in the side panel (within `timeoutMs`).
   */
  confirmLoosening(changes: string[], timeoutMs: number): Promise<void>;
  /** ask-wait: a question's answer once it comes (consent/person-questions.ts). */
  askWait: PersonQuestions['wait'];
  /** `{{code:NAME}}`: the code a site sent the person, which they type in the side panel. */
  askCode: PersonQuestions['askCode'];
  /** The codes the person typed for the profile lately: masked as its secrets are. */
  codesGiven(profile: string): string[];
}

/** `call`: the one record of the call (agent-calls.ts) — its profile, tab, session, bound, elements, and the page the gate found. */
type Handler<O> = (services: OperationServices, call: AgentCall, input: InputOf<O>) => Promise<ResultOf<O>>;
type Handlers = { [K in OperationName]: Handler<(typeof OPERATIONS)[K]> };

export const HANDLERS: Handlers = {
  snapshot: (s, call, input) => s.agent.snapshot(call, input),
  find: (s, call, input) => s.agent.find(call, input),
  navigate: (s, call, input) => s.agent.navigate(call, input),
  click: (s, call, input) => s.agent.act(call, input),
  type: (s, call, input) => s.agent.act(call, input),
  fill: (s, call, input) => s.agent.act(call, input),
  select: (s, call, input) => s.agent.act(call, input),
  press: (s, call, input) => s.agent.act(call, input),
  hover: (s, call, input) => s.agent.act(call, input),
  drag: (s, call, input) => s.agent.act(call, input),
  scroll: (s, call, input) => s.agent.act(call, input),
  scrollIntoView: (s, call, input) => s.agent.act(call, input),
  focus: (s, call, input) => s.agent.act(call, input),
  wait: (s, call, input) => s.agent.act(call, input),
  resize: (s, call, input) => s.agent.act(call, input),
  evaluate: (s, call, input) => s.agent.act(call, input),
  close: (s, call, input) => s.agent.act(call, input),
  screenshot: (s, call, input) => s.agent.screenshot(call, input),
  content: (s, call, input) => s.agent.content(call, input),
  console: (s, call, input) => s.agent.console(call, input),
  network: (s, call, input) => s.agent.network(call, input),
  networkRequest: (s, call, input) => s.agent.networkRequest(call, input),
  trace: (s, call, input) => s.agent.trace(call, input),
  pdf: (s, call) => s.agent.hooks.pdf(call),
  upload: (s, call, input) => s.agent.hooks.fileChooser(call, input),
  dialog: (s, call, input) => s.agent.hooks.dialog(call, input),
  download: (s, call, input) => s.agent.hooks.download(call, input),
  downloads: (s, call) => s.agent.hooks.downloads(call),
  handoff: async (s, call, input) => {
    const { profile } = call;
    const given = await s.agent.control.handOff(call, input);
    // The person's link is good for as long as the hand-over can last.
    return {
      ...given,
      viewUrl: s.viewLink({ profile, targetId: given.targetId }, input.timeoutMs ?? MAX_HANDOFF_WAIT_MS),
    };
  },
  handoffWait: (s, call, input) => s.agent.control.waitForHandback(call, input),
  handoffEnd: (s, call, input) => s.agent.control.endHandoff(call, input, 'agent'),
  askWait: async (s, call, input) => {
    const { question, answer } = await s.askWait(input.id, call, input.timeoutMs);
    return { id: question.id, answer, what: question.what };
  },
  release: (s, call, input) => s.agent.control.releaseHold(call, input),
  storageExport: (s, call) => s.agent.storage.export(call),
  storageImport: (s, call, input) => s.agent.storage.import(call, input),
  tabs: async (s, { profile, named }) => {
    const tabs = (await s.profiles.tabs(profile)).map((tab) => {
      const holder = s.agent.control.holderOf(profile, tab.targetId);
      return holder ? { ...tab, holder } : tab;
    });
    // An agent that named no profile is told of the tabs the person handed over elsewhere, and how to reach them.
    const elsewhere = named ? [] : await s.profiles.handedOver(profile);
    return { profile, tabs, ...(elsewhere.length > 0 ? { elsewhere } : {}) };
  },
  tabOpen: async (s, { profile, watchNew }, input) => {
    // Watched (tab-gate.ts `opened`): opened blank, then loaded under the watch.
    const tab = watchNew
      ? await openWatched(watchNew, input.url, {
          open: () => s.profiles.openTab(profile, 'about:blank', input.session),
          close: (targetId) => s.profiles.closeTab(profile, targetId),
        })
      : await s.profiles.openTab(profile, input.url, input.session);
    s.events.emit({ type: 'tab', profile, targetId: tab.targetId, state: 'opened', url: tab.url });
    return tab;
  },
  tabFocus: (s, { profile }, input) => s.profiles.focusTab(profile, input.targetId),
  tabClose: async (s, { profile }, input) => {
    // Closing is a change like any other: the gate refused it while another session or the person held the tab.
    const tab = await s.profiles.closeTab(profile, input.targetId);
    s.agent.control.forgetTab(profile, tab.targetId);
    s.events.emit({ type: 'tab', profile, targetId: tab.targetId, state: 'closed' });
    return tab;
  },
  status: (s, { profile }) => s.profiles.status(profile),
  start: async (s, { profile }) => {
    const status = await s.profiles.start(profile);
    s.events.emit({ type: 'browser', profile, state: 'started' });
    return status;
  },
  stop: async (s, { profile }) => {
    const result = await s.profiles.stop(profile);
    if (result.stopped) s.events.emit({ type: 'browser', profile, state: 'stopped' });
    return result;
  },
  profiles: async (s) => ({ defaultProfile: s.profiles.settings.defaultProfile, profiles: await s.profiles.list() }),
  log: async (s, { profile }, input) => {
    const query = {
      profile,
      limit: input.limit,
      ...(input.targetId ? { targetId: input.targetId } : {}),
      ...(input.session ? { session: input.session } : {}),
      ...(input.since ? { since: input.since } : {}),
    };
    let entries = await s.actions.query(query);
    // A follower waits for what comes next instead of asking again and again.
    if (entries.length === 0 && input.waitMs > 0 && (await s.actions.next(input.waitMs)))
      entries = await s.actions.query(query);
    return { profile, entries };
  },
  recipes: async (s) => ({
    recipes: (await new RecipeStore(s.home).list()).map((r) => ({
      name: r.name,
      source: r.source,
      created: r.created,
      steps: r.steps.filter((step) => step.do !== 'note').length,
      params: r.params.map(paramSaid),
      // The names the person keeps for it (clawd secrets): its secrets and its TOTP seeds.
      secrets: [...r.secrets, ...(r.totp ?? [])],
    })),
  }),
  runRecipe: (s, call, input) => s.recipes!.run(call, input),
  export: async (s, { profile }, input) => {
    if (input.format === 'recipe') return exportSession(s.actions, s.home, profile, input, undefined);
    const status = await s.profiles.status(profile);
    // A script reaches the browser by the profile's URL: only clawd's own doors (the relay, a
    // managed profile's port) keep the policy and the asks for it; a remote or Grid browser's
    // URL is the browser's own.
    if (!SCRIPT_DRIVERS.has(status.driver))
      throw new ClawdError(
        'unsupported',
        `a ${status.driver} profile's browser is reached past clawd: export --format recipe and run it with run-recipe`,
      );
    return exportSession(s.actions, s.home, profile, input, status.cdpUrl);
  },
  policy: async (s, { profile }) => s.profiles.policies.policyInForce(profile),
  policySet: async (s, { profile }, input) => {
    const lists = input.allow !== undefined || input.block !== undefined;
    // Loosening is the person's, and waits for their yes in Chrome while their browser is connected.
    const touchesLists = lists || input.ask === undefined;
    const policy = { ...(input.allow ? { allow: input.allow } : {}), ...(input.block ? { block: input.block } : {}) };
    const loosens = looseningsOfChange(
      s.profiles.settings,
      {
        profile,
        global: input.global,
        ...(touchesLists ? { policy } : {}),
        ...(input.ask !== undefined ? { ask: input.ask } : {}),
      },
      s.profiles.kinds,
    );
    if (loosens.length > 0) await s.confirmLoosening(loosens, input.timeoutMs);
    if (input.ask !== undefined) await s.profiles.policies.setAsk(profile, input.ask);
    if (!lists && input.ask !== undefined) return s.profiles.policies.policyInForce(profile);
    return s.profiles.policies.setPolicy(
      profile,
      { ...(input.allow ? { allow: input.allow } : {}), ...(input.block ? { block: input.block } : {}) },
      input.global,
    );
  },
};

/** The drivers whose CDP URL is clawd's own door (a script exported from them runs under the policy). */
const SCRIPT_DRIVERS = new Set(['managed', 'extension']);

/**
 * Operations carried out in this process: the profile resolved (404 unknown, 503 disabled), then
 * its handler; a call that changes a page or a tab is recorded in the action log, failed or not.
 */
export class LocalInvoker implements Invoker {
  constructor(private readonly services: OperationServices) {
    // A step is a call of its own, within the run's: what it says (waiting for the person) reaches
    // the run's caller, and the run's caller going away ends a step waiting for the person.
    services.recipes ??= new RecipeRunner(new RecipeStore(services.home), (operation, profile, input, elements) =>
      this.invoke(operation, profile, input, callerNotes(), callerSignal(), elements),
    );
  }

  async invoke<R>(
    operation: Operation<any, R>,
    profile: string | undefined,
    input: Record<string, unknown>,
    note?: (note: string) => void,
    signal?: AbortSignal,
    /** A recipe step's elements by ref (recipe-runner.ts): found by their locators. */
    recipeElements?: ReadonlyMap<string, LocatedElement>,
  ): Promise<R> {
    const name = this.services.profiles.resolve(profile);
    // The one record of the call: every part of it (gate, handler, trace, log) reads this.
    let call: AgentCall = {
      profile: name,
      named: profile !== undefined && profile !== '',
      targetId: typeof input.targetId === 'string' ? input.targetId : undefined,
      session: typeof input.session === 'string' ? input.session : undefined,
      timeoutMs: typeof input.timeoutMs === 'number' ? input.timeoutMs : undefined,
      refs: elementRefs(input),
      ...(operation.logged ? { located: new Map() } : {}),
      ...(recipeElements && recipeElements.size > 0 ? { recipeElements } : {}),
    };
    const began = performance.now();
    const deps = this.#recorderDeps();
    // The profile's secrets: put in for the call's placeholders (the log, the trace and the gate keep
    // the placeholder), masked in whatever goes back.
    const kept = await this.services.secrets.kept(name);
    let mask = maskOf(kept).with(this.services.codesGiven(name));
    try {
      const puts = namesSecrets(operation.name, input);
      // A name nothing is kept under is refused before the gate asks the person anything; the values
      // are put in only once it let the call through (a TOTP code is good for its period only).
      if (puts) checkSecrets(operation.name, input, kept, name);
      const codes = namesCodes(operation.name, input);
      const run = puts
        ? async (through: AgentCall) => {
            const filled = withSecrets(operation.name, input, kept, name);
            if (codes.length === 0) return filled;
            const typed = await this.#askCodes(codes, through, callLabel(deps, operation, through, input));
            mask = widenCallMask([...typed.values()]);
            return withCodes(operation.name, filled, typed);
          }
        : async () => input;
      const work = () =>
        this.#gateThenHandle(operation, call, input, run, (passed) => {
          call = passed;
        });
      // While the profile is traced, each agent call is a named action in the trace.
      const traced =
        operation.cli.group === 'agent' && operation.name !== 'trace'
          ? () => this.services.agent.traced(name, () => callLabel(deps, operation, call, input), work)
          : work;
      // Notes reach the door as they are said (a call waiting for the person says so at once).
      // What reads the page masks before it cuts, searches or counts (currentMask); the answer
      // is masked again whole, for what no reader masked (an evaluate's result, an error).
      const { value } = await withCallMask(
        mask,
        () => collectNotes(traced, note && ((said) => note(mask.text(said))), signal),
        puts,
      );
      const result = mask.value(value);
      void recordCall(deps, operation, call, input, { result }, performance.now() - began);
      return result;
    } catch (error) {
      if (error instanceof Error && !mask.empty) error.message = mask.text(error.message);
      void recordCall(deps, operation, call, input, { error }, performance.now() - began);
      throw error;
    }
  }

  /**
   * The one gate (agent/tab-gate.ts: holds, the person's hands, what the person asked to be
   * asked), then the handler with the call as the gate let it through: on the tab it checked,
   * with the page it found, its bound less the time spent waiting for the person.
   */
  async #gateThenHandle<R>(
    operation: Operation<any, R>,
    call: AgentCall,
    input: Record<string, unknown>,
    /** The input with the secrets (and the codes the person typed) put in: made just before the handler runs. */
    run: (through: AgentCall) => Promise<Record<string, unknown>>,
    passedAs: (call: AgentCall) => void,
  ): Promise<R> {
    const handler = HANDLERS[operation.name as OperationName] as unknown as Handler<Operation<any, R>>;
    const gate = operation.gate;
    if (!gate) return handler(this.services, call, await run(call));
    const passed = await this.services.agent.gate({
      call,
      spec: gate,
      input,
      label: callLabel(this.#recorderDeps(), operation, call, input, (quoted) => pageQuote(quoted)),
    });
    const timeoutMs =
      passed.waited > 0 && call.timeoutMs !== undefined ? Math.max(1, call.timeoutMs - passed.waited) : call.timeoutMs;
    const through: AgentCall = {
      ...call,
      ...(passed.targetId !== undefined ? { targetId: passed.targetId } : {}),
      ...(passed.found ? { found: passed.found } : {}),
      ...(passed.opened ? { watchNew: passed.opened } : {}),
      timeoutMs,
    };
    passedAs(through);
    const checked = async () => ({
      ...(await run(through)),
      ...(passed.targetId !== undefined ? { targetId: passed.targetId } : {}),
      ...(timeoutMs !== call.timeoutMs ? { timeoutMs } : {}),
    });
    const handle = async () => handler(this.services, through, await checked());
    return passed.watched ? passed.watched(handle) : handle();
  }

  /** Asks the person for each code the call types, one after another, within what is left of its bound. */
  async #askCodes(names: string[], through: AgentCall, what: string): Promise<Map<string, string>> {
    const typed = new Map<string, string>();
    const until = Date.now() + (through.timeoutMs ?? CODE_WAIT_MS);
    const page = through.found?.page;
    for (const code of names) {
      noteForCaller(`waiting for the person to type the code the site sent them (${code}) in clawd's side panel`);
      const value = await this.services.askCode(
        {
          profile: through.profile,
          ...(through.targetId ? { targetId: through.targetId } : {}),
          ...(through.session ? { session: through.session } : {}),
          kinds: [],
          what,
          ...(page && !page.isClosed() ? { url: page.url() } : {}),
          code,
        },
        Math.max(1, until - Date.now()),
        callerSignal(),
      );
      typed.set(code, value);
    }
    return typed;
  }

  #recorderDeps(): RecorderDeps {
    return {
      log: this.services.actions,
      agent: this.services.agent,
      logText: () => this.services.profiles.settings.logText,
    };
  }
}
