// The work behind each operation of the table, in this process: one line per operation, handing
// the checked input to the service that does it (the agent service, the profile service) and
// telling /events what changed. The map is typed by the table, so an operation without its
// handler, or a handler answering the wrong result, does not compile. HTTP (operation-routes.ts)
// and MCP served by this process (`/mcp`, `clawd mcp` running its own server) both call these.

import type { ActionLog } from '../agent/action-log';
import { collectNotes } from '../call-notes';
import type { AgentService } from '../agent/agent-service';
import type { EventBus } from '../events/event-bus';
import type { Invoker } from '../operations/control-client';
import { MAX_HANDOFF_WAIT_MS } from '../operations/control-operations';
import type { InputOf, Operation, ResultOf } from '../operations/operation';
import type { OperationName, OPERATIONS } from '../operations/operation-table';
import type { ProfileService } from '../profiles/profile-service';
import { looseningsOfChange } from '../profiles/rule-changes';
import type { SecretStore } from '../home/secret-store';
import { pageQuote } from '../operations/page-fence';
import { namesSecrets, SecretMask, withCallMask, withSecrets } from '../operations/secret-use';
import { callLabel, recordCall } from './action-recorder';

export interface OperationServices {
  agent: AgentService;
  profiles: ProfileService;
  events: EventBus;
  /** A signed-in live view link to a tab, valid (once) for `ttlMs`: given with a hand-over. */
  viewLink(tab: { profile: string; targetId: string }, ttlMs: number): string;
  /** Where what agents did is recorded. */
  actions: ActionLog;
  /** The person's secrets: put into `type`/`fill` for `{{secret:NAME}}`, masked in every answer. */
  secrets: SecretStore;
  /**
   * A change that loosens the person's rules (each said in words) may go on: refused person_only
   * unless the caller is the person's terminal; then, while their browser is connected, only once
   * they said yes in the side panel (within `timeoutMs`).
   */
  confirmLoosening(changes: string[], timeoutMs: number): Promise<void>;
}

/** `named`: the caller named the profile (else it is the configured default). */
type Handler<O> = (
  services: OperationServices,
  profile: string,
  input: InputOf<O>,
  named: boolean,
) => Promise<ResultOf<O>>;
type Handlers = { [K in OperationName]: Handler<(typeof OPERATIONS)[K]> };

export const HANDLERS: Handlers = {
  snapshot: (s, profile, input) => s.agent.snapshot(profile, input),
  find: (s, profile, input) => s.agent.find(profile, input),
  navigate: (s, profile, input) => s.agent.navigate(profile, input),
  click: (s, profile, input) => s.agent.act(profile, input),
  type: (s, profile, input) => s.agent.act(profile, input),
  fill: (s, profile, input) => s.agent.act(profile, input),
  select: (s, profile, input) => s.agent.act(profile, input),
  press: (s, profile, input) => s.agent.act(profile, input),
  hover: (s, profile, input) => s.agent.act(profile, input),
  drag: (s, profile, input) => s.agent.act(profile, input),
  scroll: (s, profile, input) => s.agent.act(profile, input),
  scrollIntoView: (s, profile, input) => s.agent.act(profile, input),
  focus: (s, profile, input) => s.agent.act(profile, input),
  wait: (s, profile, input) => s.agent.act(profile, input),
  resize: (s, profile, input) => s.agent.act(profile, input),
  evaluate: (s, profile, input) => s.agent.act(profile, input),
  close: (s, profile, input) => s.agent.act(profile, input),
  screenshot: (s, profile, input) => s.agent.screenshot(profile, input),
  content: (s, profile, input) => s.agent.content(profile, input),
  console: (s, profile, input) => s.agent.console(profile, input),
  network: (s, profile, input) => s.agent.network(profile, input),
  networkRequest: (s, profile, input) => s.agent.networkRequest(profile, input),
  trace: (s, profile, input) => s.agent.trace(profile, input),
  pdf: (s, profile, input) => s.agent.hooks.pdf(profile, input),
  upload: (s, profile, input) => s.agent.hooks.fileChooser(profile, input),
  dialog: (s, profile, input) => s.agent.hooks.dialog(profile, input),
  download: (s, profile, input) => s.agent.hooks.download(profile, input),
  downloads: (s, profile, input) => s.agent.hooks.downloads(profile, input),
  handoff: async (s, profile, input) => {
    const given = await s.agent.control.handOff(profile, input);
    // The person's link is good for as long as the hand-over can last.
    return {
      ...given,
      viewUrl: s.viewLink({ profile, targetId: given.targetId }, input.timeoutMs ?? MAX_HANDOFF_WAIT_MS),
    };
  },
  handoffWait: (s, profile, input) => s.agent.control.waitForHandback(profile, input),
  handoffEnd: (s, profile, input) => s.agent.control.endHandoff(profile, input, 'agent'),
  release: (s, profile, input) => s.agent.control.releaseHold(profile, input),
  storageExport: (s, profile, input) => s.agent.storage.export(profile, input),
  storageImport: (s, profile, input) => s.agent.storage.import(profile, input),
  tabs: async (s, profile, _input, named) => {
    const tabs = (await s.profiles.tabs(profile)).map((tab) => {
      const holder = s.agent.control.holderOf(profile, tab.targetId);
      return holder ? { ...tab, holder } : tab;
    });
    // An agent that named no profile is told of the tabs the person handed over elsewhere, and how to reach them.
    const elsewhere = named ? [] : await s.profiles.handedOver(profile);
    return { profile, tabs, ...(elsewhere.length > 0 ? { elsewhere } : {}) };
  },
  tabOpen: async (s, profile, input) => {
    const tab = await s.profiles.openTab(profile, input.url, input.session);
    s.events.emit({ type: 'tab', profile, targetId: tab.targetId, state: 'opened', url: tab.url });
    return tab;
  },
  tabFocus: (s, profile, input) => s.profiles.focusTab(profile, input.targetId),
  tabClose: async (s, profile, input) => {
    // Closing is a change like any other: the gate refused it while another session or the person held the tab.
    const tab = await s.profiles.closeTab(profile, input.targetId);
    s.agent.control.forgetTab(profile, tab.targetId);
    s.events.emit({ type: 'tab', profile, targetId: tab.targetId, state: 'closed' });
    return tab;
  },
  status: (s, profile) => s.profiles.status(profile),
  start: async (s, profile) => {
    const status = await s.profiles.start(profile);
    s.events.emit({ type: 'browser', profile, state: 'started' });
    return status;
  },
  stop: async (s, profile) => {
    const result = await s.profiles.stop(profile);
    if (result.stopped) s.events.emit({ type: 'browser', profile, state: 'stopped' });
    return result;
  },
  profiles: async (s) => ({ defaultProfile: s.profiles.settings.defaultProfile, profiles: await s.profiles.list() }),
  log: async (s, profile, input) => {
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
  policy: async (s, profile) => s.profiles.policies.policyInForce(profile),
  policySet: async (s, profile, input) => {
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

/**
 * Operations carried out in this process: the profile resolved (404 unknown, 503 disabled), then
 * its handler; a call that changes a page or a tab is recorded in the action log, failed or not.
 */
export class LocalInvoker implements Invoker {
  constructor(private readonly services: OperationServices) {}

  async invoke<R>(
    operation: Operation<any, R>,
    profile: string | undefined,
    input: Record<string, unknown>,
    note?: (note: string) => void,
    signal?: AbortSignal,
  ): Promise<R> {
    const handler = HANDLERS[operation.name as OperationName] as unknown as (
      s: OperationServices,
      profile: string,
      input: Record<string, unknown>,
      named: boolean,
    ) => Promise<R>;
    const name = this.services.profiles.resolve(profile);
    const named = profile !== undefined && profile !== '';
    const began = performance.now();
    const deps = {
      log: this.services.actions,
      agent: this.services.agent,
      logText: () => this.services.profiles.settings.logText,
    };
    // The profile's secrets: put in for the call's placeholders (the log, the trace and the gate keep
    // the placeholder), masked in whatever goes back.
    const secrets = await this.services.secrets.valuesOf(name);
    const mask = new SecretMask([...secrets.values()]);
    try {
      const run = namesSecrets(operation.name, input) ? withSecrets(operation.name, input, secrets, name) : input;
      const gate = operation.gate;
      const work = async () => {
        // The one gate (agent/tab-gate.ts): holds, the person's hands, what the person asked to be
        // asked. Time spent waiting there comes off the call's own bound.
        if (!gate) return handler(this.services, name, run, named);
        const passed = await this.services.agent.gate({
          profile: name,
          spec: gate,
          input,
          label: callLabel(deps, operation, name, input, (quoted) => pageQuote(quoted)),
        });
        const checked = { ...run, ...(passed.targetId !== undefined ? { targetId: passed.targetId } : {}) };
        const call = () =>
          handler(
            this.services,
            name,
            passed.waited > 0 && typeof input.timeoutMs === 'number'
              ? { ...checked, timeoutMs: Math.max(1, input.timeoutMs - passed.waited) }
              : checked,
            named,
          );
        return passed.watched ? passed.watched(call) : call();
      };
      // While the profile is traced, each agent call is a named action in the trace.
      const traced =
        operation.cli.group === 'agent' && operation.name !== 'trace'
          ? () => this.services.agent.traced(name, () => callLabel(deps, operation, name, input), work)
          : work;
      // Notes reach the door as they are said (a call waiting for the person says so at once).
      // What reads the page masks before it cuts, searches or counts (currentMask); the answer
      // is masked again whole, for what no reader masked (an evaluate's result, an error).
      const { value } = await withCallMask(
        mask,
        () => collectNotes(traced, note && ((said) => note(mask.text(said))), signal),
        run !== input,
      );
      const result = mask.value(value);
      void recordCall(deps, operation, name, input, { result }, performance.now() - began);
      return result;
    } catch (error) {
      if (error instanceof Error && !mask.empty) error.message = mask.text(error.message);
      void recordCall(deps, operation, name, input, { error }, performance.now() - began);
      throw error;
    }
  }
}
