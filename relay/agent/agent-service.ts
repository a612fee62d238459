// The agent layer's front: the agent operations (relay/operations/ defines them), the same for
// every profile driver because all of them are Playwright over CDP. Every call finds its page and
// keeps to its bound the same way (agent-calls.ts); the reading and page calls are here, one short
// method each, and the groups that are a thing of their own are beside it: an action
// (act-call.ts), what the page asks of a person (hook-calls.ts), storage state
// (storage-calls.ts), who controls a tab (control-calls.ts). What differs by driver is the
// driver's (PagePolicy), never a branch here.
// Kept whole (under the 400-line cap): one short method per operation, each the same few lines of
// find, bound and answer; the groups with state of their own already live beside it.

import path from 'node:path';
import type { Locator } from 'playwright-core';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError } from '../errors';
import { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import type { ActRequest, ActResult } from '../operations/act-operations';
import type {
  ConsoleRequest,
  ConsoleResult,
  ContentRequest,
  ContentResult,
  FindRequest,
  FindResult,
  NavigateRequest,
  NavigateResult,
  ScreenshotRequest,
  ScreenshotResult,
  SnapshotRequest,
  SnapshotResult,
} from '../operations/page-operations';
import type {
  Har,
  NetworkDetail,
  NetworkList,
  NetworkQuery,
  NetworkRequestInput,
} from '../operations/network-operations';
import type { TraceRequest, TraceResult } from '../operations/trace-operations';
import type { ProfileService } from '../profiles/profile-service';
import type { BrowserEndpoint } from '../profiles/profile-driver';
import { seconds, within } from '../time-limit';
import { VERSION } from '../version';
import { ActCall } from './actions/act-call';
import { AgentCalls, MESSAGES_MS, titleOf, type AgentCall } from './agent-calls';
import { toAgentError } from './agent-errors';
import { imageSize, saveCapture } from './capture/capture';
import { ControlCalls } from './control-calls';
import { harOf } from './network/har';
import { ActionWatch } from './actions/action-watch';
import { Downloads } from './capture/downloads';
import { HookCalls } from './hook-calls';
import { Hooks } from './hooks';
import { pageContent } from './capture/page-content';
import { gotoPast } from './tabs/page-goto';
import { PageFinder } from './tabs/page-finder';
import { takeScreenshot } from './capture/screenshots';
import { Snapshots } from './snapshots/snapshots';
import { StorageCalls } from './storage-calls';
import { Traces } from './network/traces';
import { DEFAULT_HOLD_IDLE_MS, TabControl } from './tabs/tab-control';
import { TabGate, type GateCall, type GatePassed } from './tabs/tab-gate';
import { SecretPages } from './secret-pages';
import { PersonActivity } from '../consent/person-activity';
import { PersonQuestions } from '../consent/person-questions';
import { tabKey, tabOfKey, type TabKey } from './tabs/tab-key';

const LEVELS: Record<string, number> = {
  debug: 0,
  trace: 0,
  log: 1,
  info: 1,
  dir: 1,
  dirxml: 1,
  table: 1,
  dialog: 1,
  warning: 2,
  error: 3,
  assert: 3,
  pageerror: 3,
};
const MIN_LEVEL = { debug: 0, info: 1, log: 1, warning: 2, error: 3 } as const;

/** How long the gate's form probe waits for a recipe step's element to come. */
const PROBE_FIND_MS = 2_000;
/** How long reading requests' headers and bodies from the browser may take. */
const NETWORK_READ_MS = 15_000;

export class AgentService {
  readonly #pages: PageFinder;
  readonly #calls: AgentCalls;
  // Agent calls under way, by profile (traced() wraps every one).
  readonly #running = new Map<string, number>();
  readonly #snapshots: Snapshots;
  readonly #traces: Traces;
  readonly #tabControl: TabControl;
  readonly #downloads: Downloads;
  readonly #gate: TabGate;
  readonly #act: ActCall;
  /** Pages an agent typed a secret into: its own code does not run there (secret-pages.ts). */
  readonly #secretPages = new SecretPages();
  /** The calls that wait for what the page asks of a person (file chooser, dialog, download), and PDF. */
  readonly hooks: HookCalls;
  /** storage-export and storage-import. */
  readonly storage: StorageCalls;
  /** Who controls a tab: holds, hand-overs, the person's Stop, raw clients' watches, the live view's side. */
  readonly control: ControlCalls;

  constructor(
    private readonly profiles: ProfileService,
    private readonly home: string,
    log: Logger,
    private readonly events: EventBus = new EventBus(),
    /** The person's say over their browser: their hands on a tab, their answers to questions (the server shares them with the relay). */
    consent: { activity: PersonActivity; questions: PersonQuestions } = {
      activity: new PersonActivity(() => profiles.settings.personIdleMs),
      questions: new PersonQuestions(),
    },
    snapshotOptions: { seeAll: boolean } = { seeAll: false },
  ) {
    this.#snapshots = new Snapshots(snapshotOptions);
    this.#downloads = new Downloads(
      home,
      () => profiles.settings.downloadLimitMb * 1024 * 1024,
      log,
      (page, url) => ActionWatch.judgeDownload(page, url),
    );
    this.#traces = new Traces(path.join(home, 'traces'));
    // Every page the agent finds has its downloads saved (on a person's tab, copies: the relay
    // leaves their own file where their browser put it).
    this.#pages = new PageFinder(profiles, log, (page, driver, profile) =>
      this.#downloads.watch(page, profile, driver.pages.cancelsDownloads),
    );
    this.#tabControl = new TabControl(DEFAULT_HOLD_IDLE_MS, Date.now, (change) => {
      const { profile, targetId } = tabOfKey(change.tab);
      if (change.kind === 'hold')
        events.emit({ type: 'hold', profile, targetId, state: change.state, session: change.session });
      else if (change.state === 'started')
        events.emit({ type: 'handoff', profile, targetId, state: 'started', reason: change.reason });
      else events.emit({ type: 'handoff', profile, targetId, state: 'ended', by: change.by });
    });
    this.#calls = new AgentCalls(this.#pages, this.#snapshots);
    this.#act = new ActCall(this.#calls, this.#snapshots, this.#secretPages);
    this.hooks = new HookCalls(this.#calls, this.#snapshots, new Hooks(), this.#downloads, home, log);
    this.storage = new StorageCalls(this.#calls, profiles, home);
    this.control = new ControlCalls(
      this.#calls,
      this.#tabControl,
      consent.questions,
      this.#secretPages,
      profiles,
      {
        take: (found) => this.#gate.leftWatches.take(found),
        stay: (found, watch, visited) => this.#gate.leftWatches.stay(found, watch, visited),
      },
      (profile) => this.#gate.stopped(profile),
    );
    this.#gate = new TabGate({
      find: (profile, targetId, session, timeoutMs) => this.#pages.find(profile, targetId, true, session, timeoutMs),
      tabId: async (profile, idOrPrefix) => (await profiles.findTab(profile, idOrPrefix)).targetId,
      resolve: (call, found, ref) => this.#calls.target(call, found, ref, PROBE_FIND_MS),
      control: this.#tabControl,
      activity: consent.activity,
      questions: consent.questions,
      askOf: (profile) => profiles.policies.askOf(profile),
      checkUrl: (profile, url) => profiles.policies.checkUrl(profile, url),
      holdPopups: (found) => this.#pages.holdPopups(found),
    });
  }

  /** The one gate of every call whose operation has a `gate` (tab-gate.ts): how long it waited, and the tab it checked. */
  gate(call: GateCall): Promise<GatePassed> {
    return this.#gate.pass(call);
  }

  async snapshot(call: AgentCall, request: SnapshotRequest): Promise<SnapshotResult> {
    const found = await this.#calls.page(call);
    const { page, targetId, tab } = found;
    const what = `snapshot of ${targetId}`;
    return this.#calls.bounded(found, what, request.timeoutMs, async () => {
      const { format, title, ...rest } = await this.#snapshots.take(page, tab, request, what);
      return { format, targetId, url: page.url(), title: title ?? (await titleOf(page)), ...rest };
    });
  }

  /** The lines of the page that hold some text, with their refs and context. */
  async find(call: AgentCall, request: FindRequest): Promise<FindResult> {
    const found = await this.#calls.page(call);
    const { page, targetId, tab } = found;
    const what = `find ${JSON.stringify(request.q)} in ${targetId}`;
    return this.#calls.bounded(found, what, request.timeoutMs, async () => {
      const { title, ...result } = await this.#snapshots.find(page, tab, request, what);
      return { targetId, url: page.url(), title: title ?? (await titleOf(page)), ...result };
    });
  }

  /** One action on refs of the tab's latest snapshot (act-call.ts). */
  act(call: AgentCall, request: ActRequest): Promise<ActResult> {
    return this.#act.act(call, request);
  }

  /** The live view's side of who controls a tab (relay/view/live-views.ts). */
  get view(): ControlCalls['view'] {
    return this.control.view;
  }

  async navigate(call: AgentCall, request: NavigateRequest): Promise<NavigateResult> {
    // Refused before anything is loaded (the browser enforces the policy too; this says which rule).
    const { profile } = call;
    this.profiles.policies.checkUrl(profile, request.url);
    const found = await this.#calls.page(call);
    const { page, targetId, tab } = found;
    const what = `navigate to ${request.url}`;
    return this.#calls.bounded(found, what, request.timeoutMs, async () => {
      try {
        const response = await gotoPast(page, request.url, request.timeoutMs);
        this.events.emit({ type: 'tab', profile, targetId, state: 'navigated', url: page.url() });
        const loaded = (title: string): NavigateResult => ({
          ok: true,
          targetId,
          url: page.url(),
          title,
          status: response?.status() ?? null,
        });
        if (!request.snapshot || request.snapshot === 'none') {
          // Without a view the page's messages are the rest of the answer: read beside the title
          // (each a first evaluation in the new document).
          const [title, messages] = await Promise.all([titleOf(page), this.#calls.messages(page, MESSAGES_MS)]);
          return { ...loaded(title), ...messages };
        }
        // The answer's first line names the page (its title read with the view's walk): a brief
        // view need not repeat it as a heading. A diff against the page before is all of both (as
        // after an action that loaded another page).
        const view = request.snapshot === 'diff' ? 'brief' : request.snapshot;
        const { title, snapshot } = await this.#snapshots.view(
          page,
          tab,
          view,
          request.timeoutMs,
          `snapshot of ${targetId}`,
          true,
        );
        return { ...loaded(title ?? (await titleOf(page))), snapshot };
      } catch (error) {
        throw found.state.crashed ? error : toAgentError(error, { what, timeoutMs: request.timeoutMs });
      }
    });
  }

  async screenshot(call: AgentCall, request: ScreenshotRequest): Promise<ScreenshotResult> {
    const found = await this.#calls.page(call);
    const { page, tab, targetId } = found;
    const shot = await takeScreenshot(found, request, {
      resolve: (ref) => this.#snapshots.resolve(page, tab, ref),
      labelBoxes: () => this.#snapshots.labelBoxes(page, tab),
    });
    const file = await saveCapture(
      path.join(this.home, 'screenshots'),
      call.profile,
      request.type === 'jpeg' ? 'jpg' : 'png',
      shot.buffer,
    );
    return {
      path: file,
      type: request.type,
      ...imageSize(shot.buffer),
      bytes: shot.buffer.length,
      targetId,
      ...(shot.labels !== undefined ? { labels: shot.labels } : {}),
      ...(shot.broughtToFront ? { broughtToFront: true as const } : {}),
    };
  }

  /** The page's main content as Markdown, text or HTML (page-content.ts). */
  async content(call: AgentCall, request: ContentRequest): Promise<ContentResult> {
    const found = await this.#calls.page(call);
    const { page, targetId } = found;
    return this.#calls.bounded(found, `content of ${targetId}`, request.timeoutMs, async () => {
      const result = await pageContent(page, request);
      return { targetId, url: page.url(), format: request.format, ...result };
    });
  }

  async console(call: AgentCall, request: ConsoleRequest): Promise<ConsoleResult> {
    const { targetId, state } = await this.#calls.page(call);
    const min = MIN_LEVEL[request.level];
    const keep = (entry: { type: string }) => (LEVELS[entry.type] ?? 1) >= min;
    return { targetId, level: request.level, messages: state.console.filter(keep), errors: state.errors };
  }

  /** The tab's kept requests, as lines or as HAR (network-log.ts, har.ts). */
  async network(call: AgentCall, request: NetworkQuery): Promise<NetworkList | Har> {
    const { page, targetId, state } = await this.#calls.page(call, false);
    const requests = state.network.list(request);
    if (request.format === 'har') {
      const sources = await within(
        state.network.harSources(requests),
        NETWORK_READ_MS,
        () =>
          new ClawdError(
            'command_timeout',
            `the browser did not give the requests' posted bodies within ${seconds(NETWORK_READ_MS)}`,
          ),
      );
      return harOf(
        sources,
        { id: targetId, title: await titleOf(page), url: page.url() },
        { name: PRODUCT_NAME, version: VERSION },
      );
    }
    return { targetId, requests, ...state.network.counts() };
  }

  /** One kept request with its headers and body, read from the browser now. */
  async networkRequest(call: AgentCall, request: NetworkRequestInput): Promise<NetworkDetail> {
    const { state } = await this.#calls.page(call, false);
    return within(
      state.network.detail(request.id, request),
      NETWORK_READ_MS,
      () =>
        new ClawdError(
          'command_timeout',
          `the browser did not give request ${request.id} within ${seconds(NETWORK_READ_MS)}`,
        ),
    );
  }

  /** Starts or stops the profile's Playwright trace (traces.ts). */
  async trace(call: AgentCall, request: TraceRequest): Promise<TraceResult> {
    const { profile } = call;
    if (request.action === 'stop') return { action: 'stop', ...(await this.#traces.stop(profile)) };
    const { page, targetId } = await this.#calls.page(call);
    await this.#traces.start(profile, page.context(), targetId, {
      screenshots: request.screenshots,
      snapshots: request.snapshots,
    });
    return { action: 'start', targetId };
  }

  /** Runs one agent call as a named action of the profile's trace, when one is running. */
  traced<T>(profile: string, label: () => string, work: () => Promise<T>): Promise<T> {
    this.#running.set(profile, (this.#running.get(profile) ?? 0) + 1);
    return this.#traces.around(profile, label, work).finally(() => {
      const left = (this.#running.get(profile) ?? 1) - 1;
      if (left > 0) this.#running.set(profile, left);
      else this.#running.delete(profile);
    });
  }

  /** A browser made ahead of its calls is up (a pool's warm one): connected now, not on its first call. */
  prepare(endpoint: BrowserEndpoint): Promise<void> {
    return this.#pages.prepare(endpoint);
  }

  /** Whether an agent call is under way on the profile: a person's tab rests only when none is (cdp/tab-rest.ts). */
  callsRunning(profile: string): boolean {
    return this.#running.has(profile);
  }

  /** Tabs about to rest: what resolves their refs stays where the next call finds it (agent-engine.ts). */
  keepRefs(tabs: readonly TabKey[]): Promise<void> {
    return this.#snapshots.keepRefs(tabs);
  }

  /**
   * What a ref showed in the latest snapshot of the call's tab (a call's label and the action log
   * name elements by it): the page the gate found, else the tab named, else the profile's last.
   */
  refInfo(call: AgentCall, ref: string): { role: string; name: string } | undefined {
    const tab = call.found?.targetId ?? call.targetId ?? this.#pages.lastTarget(call.profile);
    return tab === undefined ? undefined : this.#snapshots.refInfo(tabKey(call.profile, tab), ref);
  }

  /** Whether a ref is a password field: asked only to keep its value out of the log (unknown counts as yes). */
  async isPasswordField(call: AgentCall, ref: string): Promise<boolean> {
    try {
      const { page, tab } = await this.#calls.page(call, false);
      const target = await this.#snapshots.resolve(page, tab, ref);
      // Locator and ElementHandle evaluate alike; the relay has no DOM types, so the element is read loosely.
      const asked = (target as Locator).evaluate(
        (el: { tagName?: string; type?: string }) => el.tagName === 'INPUT' && el.type === 'password',
      );
      return await within(asked, 1_000, () => new Error('no answer'));
    } catch {
      return true;
    }
  }

  async close(): Promise<void> {
    await this.#traces.close();
    this.#gate.close();
    this.#tabControl.close();
    await this.#pages.close();
  }
}
