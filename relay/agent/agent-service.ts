// The agent layer's front: one method per agent operation (relay/operations/ defines them), the
// same for every profile driver because all of them are Playwright over CDP. Each method finds
// the page (page-finder.ts), checks who controls the tab (tab-control.ts), bounds the call by
// its timeoutMs, and hands the job to the module that does it: snapshots.ts, actions.ts,
// screenshots.ts, page-content.ts, hooks.ts, downloads.ts, capture.ts. What differs by driver
// is the driver's (PagePolicy), never a branch here. Longer than our usual file because it has
// one short method per operation (about forty): splitting them by group would scatter the same
// find, control and bound steps each method shares, which is what keeps them short.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { PRODUCT_NAME } from '../../shared/defaults';
import { ClawdError, isClawdError } from '../errors';
import { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import type { ActRequest, ActResult } from '../operations/act-operations';
import type { HandbackResult, HandoffRequest, HandoffWaitRequest, HolderView } from '../operations/control-operations';
import type {
  ArmedResult,
  DialogRequest,
  DownloadEntry,
  FileChooserRequest,
  HookRequest,
} from '../operations/hook-operations';
import type {
  ConsoleRequest,
  ConsoleResult,
  ContentRequest,
  ContentResult,
  FindRequest,
  FindResult,
  NavigateRequest,
  NavigateResult,
  SavedFile,
  ScreenshotRequest,
  ScreenshotResult,
  SnapshotRequest,
  SnapshotResult,
  TabRequest,
} from '../operations/page-operations';
import type {
  Har,
  NetworkDetail,
  NetworkList,
  NetworkQuery,
  NetworkRequestInput,
} from '../operations/network-operations';
import type { StorageExportResult, StorageImportResult } from '../operations/storage-operations';
import type { TraceRequest, TraceResult } from '../operations/trace-operations';
import type { ProfileService } from '../profiles/profile-service';
import { seconds, within } from '../time-limit';
import { VERSION } from '../version';
import { runAct } from './actions';
import { headedPdfError, toAgentError } from './agent-errors';
import { imageSize, saveCapture } from './capture';
import { harOf } from './har';
import { Downloads } from './downloads';
import { Hooks, type HookKind } from './hooks';
import { pageContent } from './page-content';
import { browserGone, crashed, PageFinder, type AgentPage } from './page-finder';
import { takeScreenshot } from './screenshots';
import { checkStorageState, readStorageState, writeStorageState } from './storage-state';
import { Snapshots } from './snapshots';
import { Traces } from './traces';
import { DEFAULT_HOLD_IDLE_MS, TabControl } from './tab-control';
import { TabGate, type GateCall, type GatePassed } from './tab-gate';
import { ActionWatch } from './action-watch';
import { SecretPages } from './secret-pages';
import { callPutsSecret } from '../operations/secret-use';
import type { TabWatch, WatchRequest } from '../cdp/raw-watches';
import { PersonActivity } from '../consent/person-activity';
import { PersonQuestions } from '../consent/person-questions';
import { tabKey, tabOfKey, type TabKey } from './tab-key';

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

/** How far past its `timeoutMs` a call may run before the outer bound answers for Playwright's own. */
const BOUND_GRACE_MS = 300;

/** How long reading requests' headers and bodies from the browser may take. */
const NETWORK_READ_MS = 15_000;
/** The page's title, or '' when the page does not answer in time (it is informational). */
/** How long an answer waits to read the page's messages: they are extra, the call is done. */
const MESSAGES_MS = 2_000;
/** How long finding a tab for a raw client's watch may take (its command waits for it). */
const WATCH_FIND_MS = 5_000;
const titleOf = (page: Page, ms = 5_000): Promise<string> =>
  within(page.title(), Math.max(1, ms), () => new Error('no title')).catch(() => '');

export class AgentService {
  readonly #pages: PageFinder;
  readonly #snapshots: Snapshots;
  readonly #traces: Traces;
  readonly #hooks = new Hooks();
  readonly #control: TabControl;
  readonly #downloads: Downloads;
  readonly #gate: TabGate;
  /** Pages an agent typed a secret into: its own code does not run there (secret-pages.ts). */
  readonly #secretPages = new SecretPages();
  readonly #questions: PersonQuestions;

  constructor(
    private readonly profiles: ProfileService,
    private readonly home: string,
    private readonly log: Logger,
    private readonly events: EventBus = new EventBus(),
    /** The person's say over their browser: their hands on a tab, their answers to questions (the server shares them with the relay). */
    consent: { activity: PersonActivity; questions: PersonQuestions } = {
      activity: new PersonActivity(() => profiles.settings.personIdleMs),
      questions: new PersonQuestions(),
    },
    snapshotOptions: { seeAll: boolean } = { seeAll: false },
  ) {
    this.#snapshots = new Snapshots(snapshotOptions);
    this.#downloads = new Downloads(home, () => profiles.settings.downloadLimitMb * 1024 * 1024, log);
    this.#traces = new Traces(path.join(home, 'traces'));
    // Every page the agent finds has its downloads saved (on a person's tab, copies: the relay
    // leaves their own file where their browser put it).
    this.#pages = new PageFinder(profiles, log, (page, driver, profile) =>
      this.#downloads.watch(page, profile, driver.pages.cancelsDownloads),
    );
    this.#control = new TabControl(DEFAULT_HOLD_IDLE_MS, Date.now, (change) => {
      const { profile, targetId } = tabOfKey(change.tab);
      if (change.kind === 'hold')
        events.emit({ type: 'hold', profile, targetId, state: change.state, session: change.session });
      else if (change.state === 'started')
        events.emit({ type: 'handoff', profile, targetId, state: 'started', reason: change.reason });
      else events.emit({ type: 'handoff', profile, targetId, state: 'ended', by: change.by });
    });
    this.#questions = consent.questions;
    this.#gate = new TabGate({
      find: (profile, targetId, session, timeoutMs) => this.#pages.find(profile, targetId, true, session, timeoutMs),
      tabId: async (profile, idOrPrefix) => (await profiles.findTab(profile, idOrPrefix)).targetId,
      resolve: (page, tab, ref) => this.#snapshots.resolve(page, tab, ref),
      control: this.#control,
      activity: consent.activity,
      questions: consent.questions,
      askOf: (profile) => profiles.askOf(profile),
      checkUrl: (profile, url) => profiles.checkUrl(profile, url),
    });
  }

  /** The one gate of every call whose operation has a `gate` (tab-gate.ts): how long it waited, and the tab it checked. */
  gate(call: GateCall): Promise<GatePassed> {
    return this.#gate.pass(call);
  }

  async snapshot(profile: string, request: SnapshotRequest): Promise<SnapshotResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, targetId, tab } = found;
    const what = `snapshot of ${targetId}`;
    return this.#bounded(found, what, request.timeoutMs, async () => {
      const { format, ...rest } = await this.#snapshots.take(page, tab, request, what);
      return { format, targetId, url: page.url(), title: await titleOf(page), ...rest };
    });
  }

  /** The lines of the page that hold some text, with their refs and context. */
  async find(profile: string, request: FindRequest): Promise<FindResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, targetId, tab } = found;
    const what = `find ${JSON.stringify(request.q)} in ${targetId}`;
    return this.#bounded(found, what, request.timeoutMs, async () => {
      const result = await this.#snapshots.find(page, tab, request, what);
      return { targetId, url: page.url(), title: await titleOf(page), ...result };
    });
  }

  async act(profile: string, request: ActRequest): Promise<ActResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, targetId, driver, tab } = found;
    const refs = refsOf(request);
    const what = `${request.kind}${refs.length ? ` ${refs.join(' → ')}` : ''}`;
    const resolve = (ref: string) => this.#snapshots.resolve(page, tab, ref);
    return this.#bounded(found, what, request.timeoutMs, async () => {
      const began = Date.now();
      let extra: Partial<ActResult>;
      // Whether the action loaded another document (a submit, a link; not a pushState or a #hash):
      // the main frame committed a navigation and the tab's request log saw a new document for it.
      const documents = found.state.network.documents();
      const from = page.url();
      let navigated = false;
      const onNavigated = (frame: Frame) => {
        if (frame === page.mainFrame()) navigated = true;
      };
      page.on('framenavigated', onNavigated);
      try {
        const describe = (ref: string) => {
          const info = this.#snapshots.refInfo(tab, ref);
          return info ? `${ref} ${info.role}${info.name ? ` ${JSON.stringify(info.name)}` : ''}` : ref;
        };
        if (callPutsSecret()) this.#secretPages.put(profile, targetId, page);
        const secrets = this.#secretPages;
        extra = await runAct(
          {
            page,
            resolve,
            describe,
            evaluateRefusal: () => driver.pages.evaluateRefusal() ?? secrets.refusal(profile, page),
            secretRefusal: () => secrets.refusal(profile, page),
            ranCode: () => secrets.ran(profile, targetId, page),
          },
          request,
        );
      } catch (error) {
        if (isClawdError(error) || found.state.crashed) throw error;
        // The element went away while the action waited for it: that is a stale ref, not a timeout.
        for (const ref of refs) {
          const stale = await resolve(ref).then(
            () => false,
            (e: unknown) => isClawdError(e) && e.code === 'ref_stale',
          );
          if (stale) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
        }
        throw toAgentError(error, { what, timeoutMs: request.timeoutMs });
      } finally {
        page.off('framenavigated', onNavigated);
      }
      const answer: ActResult = {
        ok: true,
        kind: request.kind,
        targetId,
        url: page.isClosed() ? null : page.url(),
        timeoutMs: request.timeoutMs,
        ...extra,
      };
      const left = () => request.timeoutMs - (Date.now() - began);
      if (page.isClosed()) return answer;
      const newDocument = navigated && (documents === undefined || found.state.network.documents() !== documents);
      if (!request.snapshot || request.snapshot === 'none') {
        if (!newDocument) return answer;
        // The new page's title once it has one (its DOM parsed), within what is left of the
        // call's bound: the action itself succeeded, so running short answers without a title.
        if (left() > 0) await page.waitForLoadState('domcontentloaded', { timeout: left() }).catch(() => {});
        // How it ended, when the new page says (an "Added to your cart" after a POST and redirect).
        const said =
          left() > 0
            ? { title: await titleOf(page, Math.min(5_000, left())), ...(await this.#messages(page, left())) }
            : {};
        return { ...answer, url: page.url(), ...said, navigated: true, from };
      }
      // What changed between two documents is all of both: on another page a diff is its brief view,
      // read once its DOM is parsed (within the call's bound).
      const view = newDocument && request.snapshot === 'diff' ? 'brief' : request.snapshot;
      if (newDocument && left() > 0)
        await page.waitForLoadState('domcontentloaded', { timeout: left() }).catch(() => {});
      // Where the action led, read before the view (which, on another page, need not repeat its title).
      const title = await titleOf(page, Math.min(5_000, left()));
      const snapshot = await this.#snapshots.view(
        page,
        tab,
        view,
        request.timeoutMs,
        `snapshot of ${targetId}`,
        newDocument ? title : undefined,
      );
      return {
        ...answer,
        url: page.url(),
        title,
        snapshot,
        ...(newDocument ? { navigated: true as const, from } : {}),
      };
    });
  }

  /** The page's status and alert messages and refused fields, as an answer's `messages` (none: no field). */
  async #messages(page: Page, timeoutMs: number): Promise<{ messages?: string[] }> {
    const messages = await this.#snapshots.messages(page, Math.min(MESSAGES_MS, timeoutMs));
    return messages.length > 0 ? { messages } : {};
  }

  /**
   * A whole agent call within the caller's bound (Playwright's own timeouts cover only part of
   * it: a ref check or an evaluation in a page whose script is stuck waits as long as the page).
   * Playwright's more precise timeout wins when it comes first; a crash is named as one.
   */
  async #bounded<T>(found: AgentPage, what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    try {
      return await within(
        work(),
        timeoutMs + BOUND_GRACE_MS,
        () =>
          new ClawdError(
            'action_timeout',
            `${what}: timed out after ${seconds(timeoutMs)} waiting for the page to answer (is a script stuck in it?)`,
          ),
      );
    } catch (error) {
      if (found.state.crashed) throw crashed(found.targetId);
      if (this.#pages.lost(found))
        throw browserGone(profileOf(found), found.targetId, found.driver.describeBrowser?.(found.endpoint));
      throw error;
    }
  }

  async navigate(profile: string, request: NavigateRequest): Promise<NavigateResult> {
    // Refused before anything is loaded (the browser enforces the policy too; this says which rule).
    this.profiles.checkUrl(profile, request.url);
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, targetId, tab } = found;
    const what = `navigate to ${request.url}`;
    return this.#bounded(found, what, request.timeoutMs, async () => {
      try {
        const response = await page.goto(request.url, { timeout: request.timeoutMs, waitUntil: 'load' });
        this.events.emit({ type: 'tab', profile, targetId, state: 'navigated', url: page.url() });
        const loaded: NavigateResult = {
          ok: true,
          targetId,
          url: page.url(),
          title: await titleOf(page),
          status: response?.status() ?? null,
        };
        if (!request.snapshot || request.snapshot === 'none')
          return { ...loaded, ...(await this.#messages(page, MESSAGES_MS)) };
        // The answer's first line names the page: a brief view need not repeat its title as a heading.
        // A diff against the page before is all of both (as after an action that loaded another page).
        const view = request.snapshot === 'diff' ? 'brief' : request.snapshot;
        return {
          ...loaded,
          snapshot: await this.#snapshots.view(
            page,
            tab,
            view,
            request.timeoutMs,
            `snapshot of ${targetId}`,
            loaded.title,
          ),
        };
      } catch (error) {
        throw found.state.crashed ? error : toAgentError(error, { what, timeoutMs: request.timeoutMs });
      }
    });
  }

  async screenshot(profile: string, request: ScreenshotRequest): Promise<ScreenshotResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session);
    const { page, tab, targetId } = found;
    const shot = await takeScreenshot(found, request, {
      resolve: (ref) => this.#snapshots.resolve(page, tab, ref),
      labelBoxes: () => this.#snapshots.labelBoxes(page, tab),
    });
    const file = await saveCapture(
      path.join(this.home, 'screenshots'),
      profile,
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
  async content(profile: string, request: ContentRequest): Promise<ContentResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, targetId } = found;
    return this.#bounded(found, `content of ${targetId}`, request.timeoutMs, async () => {
      const result = await pageContent(page, request);
      return { targetId, url: page.url(), format: request.format, ...result };
    });
  }

  async console(profile: string, request: ConsoleRequest): Promise<ConsoleResult> {
    const { targetId, state } = await this.#pages.find(profile, request.targetId, true, request.session);
    const min = MIN_LEVEL[request.level];
    const keep = (entry: { type: string }) => (LEVELS[entry.type] ?? 1) >= min;
    return { targetId, level: request.level, messages: state.console.filter(keep), errors: state.errors };
  }

  /** The tab's kept requests, as lines or as HAR (network-log.ts, har.ts). */
  async network(profile: string, request: NetworkQuery): Promise<NetworkList | Har> {
    const { page, targetId, state } = await this.#pages.find(profile, request.targetId, false, request.session);
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
  async networkRequest(profile: string, request: NetworkRequestInput): Promise<NetworkDetail> {
    const { state } = await this.#pages.find(profile, request.targetId, false, request.session);
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

  async pdf(profile: string, request: TabRequest): Promise<SavedFile> {
    const { page, targetId } = await this.#pages.find(profile, request.targetId, true, request.session);
    let buffer: Buffer;
    try {
      buffer = await page.pdf();
    } catch (error) {
      throw headedPdfError(error, profile) ?? toAgentError(error, { what: 'pdf' });
    }
    const file = await saveCapture(path.join(this.home, 'pdfs'), profile, 'pdf', buffer);
    return { path: file, bytes: buffer.length, targetId };
  }

  async fileChooser(profile: string, request: FileChooserRequest): Promise<ArmedResult> {
    for (const [i, file] of request.paths.entries()) {
      const stat = await fs.stat(file).catch(() => undefined);
      if (!stat?.isFile())
        throw new ClawdError('bad_request', `paths[${i}] ${JSON.stringify(file)} does not exist or is not a file`);
    }
    return this.#arm(profile, request, 'file-chooser', ({ page }) =>
      this.#hooks.armFileChooser(page, request.paths, request.timeoutMs).then((files) => ({ files })),
    );
  }

  async dialog(profile: string, request: DialogRequest): Promise<ArmedResult> {
    return this.#arm(profile, request, 'dialog', ({ page, state }) =>
      this.#hooks
        .armDialog(page, state, request.accept, request.promptText, request.timeoutMs)
        .then((dialog) => ({ dialog })),
    );
  }

  /** What downloads the tab's page caused, saved under the home. */
  async downloads(profile: string, request: TabRequest): Promise<{ targetId: string; downloads: DownloadEntry[] }> {
    const { page, targetId } = await this.#pages.find(profile, request.targetId, true, request.session);
    return { targetId, downloads: this.#downloads.list(page) };
  }

  /**
   * The download hook: waits for the tab's next download to be saved (with `ref`, clicks it
   * first) and answers its path; a download that fails or is cancelled (past the size limit)
   * says so.
   */
  async download(profile: string, request: HookRequest): Promise<ArmedResult & { download: DownloadEntry }> {
    const { page, tab, targetId } = await this.#pages.find(
      profile,
      request.targetId,
      true,
      request.session,
      request.timeoutMs,
    );
    const target = request.ref ? await this.#snapshots.resolve(page, tab, request.ref) : undefined;
    const next = this.#downloads.next(page);
    try {
      if (target)
        await target
          .click({ timeout: request.clickTimeoutMs })
          .catch((error: unknown) =>
            Promise.reject(toAgentError(error, { what: `download hook, clicking ${request.ref}` })),
          );
      const entry = await within(
        next.done,
        request.timeoutMs,
        () =>
          new ClawdError(
            'action_timeout',
            `download hook: no download finished within ${seconds(request.timeoutMs)}${request.ref ? `; did ${request.ref} start one?` : ''}`,
          ),
      );
      if (entry.state !== 'complete')
        throw new ClawdError('action_failed', `download of ${entry.suggestedFilename} ${entry.error ?? entry.state}`);
      return { ok: true, armed: 'download', targetId, download: entry };
    } finally {
      next.cancel();
    }
  }

  /** Arms a hook; with `ref`, clicks it and waits for the hook to be answered. */
  async #arm(
    profile: string,
    request: HookRequest,
    kind: HookKind,
    arm: (found: AgentPage) => Promise<Partial<ArmedResult>>,
  ): Promise<ArmedResult> {
    const found = await this.#pages.find(profile, request.targetId, true, request.session, request.timeoutMs);
    const { page, tab, targetId } = found;
    const target = request.ref ? await this.#snapshots.resolve(page, tab, request.ref) : undefined;
    const answered = arm(found);
    if (!target || !request.ref) {
      answered.catch((error: Error) => this.log.debug(`${kind} hook: ${error.message}`));
      return { armed: kind, targetId, timeoutMs: request.timeoutMs };
    }
    const answer = await this.#hooks.clickAndAwait(page, kind, answered, target, request.ref, request.clickTimeoutMs);
    return { ok: true, armed: kind, targetId, ...answer };
  }

  /** The profile's cookies and the local storage its tabs show, saved as storageState JSON (0600). */
  async storageExport(profile: string, request: TabRequest): Promise<StorageExportResult> {
    const { page } = await this.#pages.find(profile, request.targetId, true, request.session);
    const read = await within(
      readStorageState(page.context()),
      30_000,
      () => new ClawdError('action_timeout', 'storage export: the browser did not answer within 30 s'),
    );
    // Cookies of hosts the profile's policy blocks are never handed out (the relay hides them from
    // the person's tabs already; a managed or remote browser's are left out here).
    const policy = this.profiles.policy(profile);
    const state = { ...read, cookies: read.cookies.filter((cookie) => policy.cookieVerdict(cookie).allowed) };
    const file = await saveCapture(
      path.join(this.home, 'storage-states'),
      profile,
      'json',
      Buffer.from(`${JSON.stringify(state, null, 2)}\n`),
    );
    return { path: file, cookies: state.cookies.length, origins: state.origins.map((o) => o.origin), state };
  }

  /** Puts a storageState back: every cookie, and local storage where a tab shows its origin. */
  async storageImport(
    profile: string,
    request: TabRequest & { path?: string; state?: Record<string, unknown> },
  ): Promise<StorageImportResult> {
    const { page } = await this.#pages.find(profile, request.targetId, true, request.session);
    let raw: unknown = request.state;
    if (request.path !== undefined) {
      const text = await fs
        .readFile(request.path, 'utf8')
        .catch((error: Error) =>
          Promise.reject(
            new ClawdError('bad_request', `path ${JSON.stringify(request.path)} cannot be read: ${error.message}`),
          ),
        );
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ClawdError(
          'bad_request',
          `path ${JSON.stringify(request.path)} is not JSON: give a file storage-export wrote`,
        );
      }
    }
    const state = checkStorageState(raw);
    const policy = this.profiles.policy(profile);
    for (const cookie of state.cookies) {
      const verdict = policy.cookieVerdict(cookie);
      if (!verdict.allowed)
        throw new ClawdError(
          'origin_blocked',
          `storage import: ${verdict.reason} (the origin policy of profile ${profile}); nothing was imported`,
        );
    }
    return within(
      writeStorageState(page.context(), state),
      30_000,
      () => new ClawdError('action_timeout', 'storage import: the browser did not answer within 30 s'),
    );
  }

  /** Starts or stops the profile's Playwright trace (traces.ts). */
  async trace(profile: string, request: TraceRequest): Promise<TraceResult> {
    if (request.action === 'stop') return { action: 'stop', ...(await this.#traces.stop(profile)) };
    const { page, targetId } = await this.#pages.find(profile, request.targetId, true, request.session);
    await this.#traces.start(profile, page.context(), targetId, {
      screenshots: request.screenshots,
      snapshots: request.snapshots,
    });
    return { action: 'start', targetId };
  }

  /** Runs one agent call as a named action of the profile's trace, when one is running. */
  traced<T>(profile: string, label: () => string, work: () => Promise<T>): Promise<T> {
    return this.#traces.around(profile, label, work);
  }

  /** What a ref showed in the tab's latest snapshot (the action log names elements by it); without a tab, the one last used. */
  describeRef(profile: string, targetId: string | undefined, ref: string): { role: string; name: string } | undefined {
    const tab = targetId ?? this.#pages.lastTarget(profile);
    return tab === undefined ? undefined : this.#snapshots.refInfo(tabKey(profile, tab), ref);
  }

  /** What a ref showed in the tab's latest snapshot (the action log names elements by it). */
  refInfo(profile: string, targetId: string, ref: string): { role: string; name: string } | undefined {
    return this.#snapshots.refInfo(tabKey(profile, targetId), ref);
  }

  /** Whether a ref is a password field: asked only to keep its value out of the log (unknown counts as yes). */
  async isPasswordField(profile: string, targetId: string, ref: string): Promise<boolean> {
    try {
      const { page, tab } = await this.#pages.find(profile, targetId, false);
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

  /**
   * A watch on a tab's document requests, for a raw CDP client acting on the person's tab
   * (cdp/raw-watches.ts): the same judge as an agent call's, on a session of clawd's own.
   */
  async watchTab(profile: string, request: WatchRequest): Promise<TabWatch> {
    const { targetId, ...options } = request;
    const found = await within(
      this.#pages.find(profile, targetId, false),
      WATCH_FIND_MS,
      () => new Error(`tab ${targetId} was not found within ${WATCH_FIND_MS / 1000} s`),
    );
    return ActionWatch.start(found.page, { ...options, asked: new Set() });
  }

  /** After a tab is closed: nobody holds it any more. */
  forgetTab(profile: string, targetId: string): void {
    this.#secretPages.forget(profile, targetId);
    this.#control.forget(tabKey(profile, targetId));
  }

  /** The person dragged a tab of their browser into an agent session's tab group: that session holds it. */
  assignTab(profile: string, targetId: string, session: string): void {
    this.#control.assign(tabKey(profile, targetId), session);
  }

  /** The person pressed Stop: no session holds any tab of the profile, no hand-over goes on. */
  releaseAll(profile: string): void {
    this.#control.releaseProfile(profile);
  }

  /** The tabs agents handed to the person, on every profile (the side panel offers to open each). */
  handedOver(): Array<{ profile: string; targetId: string; reason: string }> {
    return this.#control.handedOver().map(({ tab, reason }) => ({ ...tabOfKey(tab), reason }));
  }

  /** Who holds a tab (for GET /tabs), if anyone. */
  holderOf(profile: string, targetId: string): HolderView | undefined {
    return this.#control.holder(tabKey(profile, targetId));
  }

  async releaseHold(profile: string, request: TabRequest): Promise<{ targetId: string; released: boolean }> {
    const { targetId, tab } = await this.#pages.find(profile, request.targetId, true, request.session);
    return { targetId, released: this.#control.release(tab, request.session) };
  }

  /** Gives the tab to the person until they give it back (or the agent ends it, or it times out). */
  async handOff(
    profile: string,
    request: HandoffRequest,
  ): Promise<{ handedOff: true; targetId: string; reason: string; timeoutMs?: number }> {
    const { targetId, tab } = await this.#pages.find(
      profile,
      request.targetId,
      true,
      request.session,
      request.timeoutMs,
    );
    this.#control.handOff(tab, request.reason, request.timeoutMs);
    return {
      handedOff: true,
      targetId,
      reason: request.reason,
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    };
  }

  async waitForHandback(profile: string, request: HandoffWaitRequest): Promise<HandbackResult> {
    const { page, targetId, tab } = await this.#pages.find(
      profile,
      request.targetId,
      true,
      request.session,
      request.timeoutMs,
    );
    const returned = await this.#control.wait(tab, request.timeoutMs);
    return {
      targetId,
      returned,
      url: page.isClosed() ? null : page.url(),
      title: page.isClosed() ? null : await titleOf(page),
    };
  }

  async endHandoff(
    profile: string,
    request: TabRequest,
    by: 'person' | 'agent',
  ): Promise<{ targetId: string; ended: boolean }> {
    const { targetId, tab } = await this.#pages.find(profile, request.targetId, true, request.session);
    return { targetId, ended: this.#control.giveBack(tab, by) };
  }

  /** The live view's side of who controls a tab (relay/view/live-views.ts). */
  readonly view = {
    /** The person's address bar obeys the profile's origin policy, as everything in the tab does. */
    checkUrl: (tab: TabKey, url: string) => this.profiles.checkUrl(tabOfKey(tab).profile, url),
    viewPage: (profile: string, targetId: string | undefined) => this.#pages.find(profile, targetId, false),
    holder: (tab: TabKey) => this.#control.holder(tab) ?? null,
    personTakes: (tab: TabKey) => this.#control.takeOver(tab),
    personDone: (tab: TabKey) => void this.#control.giveBack(tab, 'person'),
    /** The questions waiting for the person on a profile, and their answer from the live view. */
    questions: (profile: string) => this.#questions.pending(profile).filter((q) => !q.terminal),
    answer: (id: string, allow: boolean) => this.#questions.answer(id, allow, 'live view'),
  };

  async close(): Promise<void> {
    await this.#traces.close();
    this.#gate.close();
    this.#control.close();
    await this.#pages.close();
  }
}

function refsOf(request: ActRequest): string[] {
  switch (request.kind) {
    case 'drag':
      return [request.startRef, request.endRef];
    case 'fill':
      return request.fields.map((f) => f.ref);
    case 'click':
    case 'type':
    case 'hover':
    case 'scrollIntoView':
    case 'focus':
    case 'select':
      return [request.ref];
    case 'press':
    case 'evaluate':
    case 'scroll':
      return request.ref ? [request.ref] : [];
    default:
      return [];
  }
}

/** The profile a found page belongs to. */
const profileOf = (found: AgentPage): string => tabOfKey(found.tab).profile;
