// The agent's `act`: one action on refs of the tab's latest snapshot (actions.ts does it), within
// the caller's bound, answered with what became of the page — a new document's title and how it
// ended, or the view the caller asked for (a diff, the brief view of a page it loaded).

import type { Frame } from 'playwright-core';
import { elementLine } from '../../../shared/element-line';
import type { LocatedElement } from '../../../shared/element-locator';
import { locateElement } from './locate-element';
import { ClawdError, isClawdError } from '../../errors';
import type { ActRequest, ActResult } from '../../operations/act-operations';
import { callPutsSecret } from '../../operations/secret-use';
import { runAct, type ActContext } from './actions';
import { SecretFields, editsInPlace } from './secret-fields';
import { toAgentError } from '../agent-errors';
import { MESSAGES_MS, titleOf, type AgentCall, type AgentCalls } from '../agent-calls';
import type { SecretPages } from '../secret-pages';
import type { Snapshots } from '../snapshots/snapshots';
import type { ActTarget } from '../snapshots/snapshot-engine';
import type { AgentPage } from '../tabs/page-finder';

/** How long the watch of what an action changes may take, each way: it is extra to the answer. */
const WATCH_MS = (call: OneAct): number =>
  Math.max(1, Math.min(MESSAGES_MS, call.request.timeoutMs - (Date.now() - call.began)));

/**
 * How much of an action's bound Playwright's own timeout leaves for its answer to come back (its
 * error, then each ref looked up again to tell a stale one from a timeout). A tenth was not
 * enough on a loaded machine: 400 ms of a 4 s bound ran out and the bound's 408 came instead of
 * the covered element's 409 (a clean-clone CI run).
 */
const PLAYWRIGHT_RESERVE = (timeoutMs: number): number => Math.min(1_500, timeoutMs / 5);

/** One act call, as its steps read it. */
interface OneAct {
  profile: string;
  request: ActRequest;
  found: AgentPage;
  /** The refs it acts on, and the call named by them (`click e3`), for errors. */
  refs: string[];
  what: string;
  resolve(ref: string): Promise<ActTarget>;
  began: number;
}

/** Where the page was before the action: its URL and the request log's document count. */
interface Before {
  from: string;
  documents: number | undefined;
}

export class ActCall {
  constructor(
    private readonly calls: AgentCalls,
    private readonly snapshots: Snapshots,
    private readonly secretPages: SecretPages,
    private readonly secretFields = new SecretFields(),
  ) {}

  async act(agentCall: AgentCall, request: ActRequest): Promise<ActResult> {
    const found = await this.calls.page(agentCall);
    const { page } = found;
    const refs = agentCall.refs.map((element) => element.ref);
    const what = `${request.kind}${refs.length ? ` ${refs.join(' → ')}` : ''}`;
    const resolve = (ref: string) => this.calls.target(agentCall, found, ref, request.timeoutMs);
    return this.calls.bounded(found, what, request.timeoutMs, async () => {
      const call: OneAct = { profile: agentCall.profile, request, found, refs, what, resolve, began: Date.now() };
      // Whether the action loaded another document (a submit, a link; not a pushState or a #hash):
      // the main frame committed a navigation and the tab's request log saw a new document for it.
      const before: Before = { documents: found.state.network.documents(), from: page.url() };
      if (agentCall.located) await this.locate(call, agentCall, agentCall.located);
      // With no view of the page (or a brief one, which shows no text), the answer says the words
      // the action made appear: the page is watched from just before it.
      const view = request.snapshot ?? 'none';
      const watched =
        view === 'none' || view === 'brief' ? await this.snapshots.watchChanges(page, WATCH_MS(call)) : undefined;
      // A failed action ends the watch too: it keeps what the page takes out while it runs.
      const { extra, navigated } = await this.perform(call).catch((error: unknown) => {
        if (watched !== undefined) void this.snapshots.changes(page, watched, WATCH_MS(call));
        throw error;
      });
      const answer: ActResult = {
        ok: true,
        kind: request.kind,
        targetId: found.targetId,
        url: page.isClosed() ? null : page.url(),
        timeoutMs: request.timeoutMs,
        ...extra,
      };
      if (page.isClosed()) return answer;
      const newDocument =
        navigated && (before.documents === undefined || found.state.network.documents() !== before.documents);
      if (newDocument)
        return view === 'none' ? this.loaded(call, answer, before) : this.viewed(call, answer, view, before);
      const changed = watched !== undefined ? await this.snapshots.changes(page, watched, WATCH_MS(call)) : undefined;
      if (changed?.words.length) answer.changed = changed.words;
      if (changed?.more) answer.changedMore = changed.more;
      if (changed?.view) answer.changedView = true;
      return view === 'none' ? answer : this.viewed(call, answer, view, undefined);
    });
  }

  /**
   * How a script would find each element the action is about to touch (it may be gone after):
   * for the session export, kept with the action log's line. A ref that does not resolve is the
   * action's own error to say.
   */
  private async locate(call: OneAct, agentCall: AgentCall, located: Map<string, LocatedElement>): Promise<void> {
    // Each element at once: a fill of many fields waits for the slowest, not for their sum.
    await Promise.all(
      call.refs.map(async (ref) => {
        const saved = agentCall.recipeElements?.get(ref);
        if (saved) return void located.set(ref, saved);
        const target = await call.resolve(ref).catch(() => undefined);
        const shown = this.snapshots.refInfo(call.found.tab, ref);
        const element = target && (await locateElement(target, shown, call.found.page.mainFrame()));
        if (element) located.set(ref, element);
      }),
    );
  }

  /** The action itself, and whether the main frame navigated meanwhile. */
  private async perform(call: OneAct): Promise<{ extra: Partial<ActResult>; navigated: boolean }> {
    const { page } = call.found;
    let navigated = false;
    const onNavigated = (frame: Frame) => {
      if (frame === page.mainFrame()) navigated = true;
    };
    page.on('framenavigated', onNavigated);
    try {
      const puts = callPutsSecret();
      if (puts) this.secretPages.put(call.profile, call.found.targetId, page);
      await this.#secretFieldCheck(call);
      const extra = await runAct(this.actContext(call), call.request);
      // A field a secret went into is the secret's; one replaced whole with no secret is not any more.
      if (puts) await this.secretFields.mark(page, await this.#targets(call));
      else if (replacesValue(call.request) && this.secretFields.holds(page))
        await this.secretFields.unmark(page, await this.#targets(call));
      return { extra, navigated };
    } catch (error) {
      return await this.failed(call, error);
    } finally {
      page.off('framenavigated', onNavigated);
    }
  }

  /** A key that would edit in place a field holding a secret is refused (secret-fields.ts). */
  async #secretFieldCheck(call: OneAct): Promise<void> {
    const { request } = call;
    const edit = {
      kind: request.kind,
      ...('key' in request ? { key: request.key } : {}),
      ...('slowly' in request ? { slowly: request.slowly } : {}),
      ...('modifiers' in request && request.modifiers ? { modifiers: request.modifiers } : {}),
    };
    if (!editsInPlace(edit) || !this.secretFields.holds(call.found.page)) return;
    await this.secretFields.check(call.found.page, edit, await this.#targets(call));
  }

  /** The elements the call's refs name now (one that does not resolve is the action's to say). */
  async #targets(call: OneAct): Promise<ActTarget[]> {
    const found = await Promise.all(call.refs.map((ref) => call.resolve(ref).catch(() => undefined)));
    return found.filter((t): t is ActTarget => t !== undefined);
  }

  private actContext(call: OneAct): ActContext {
    const { profile, request, found, began } = call;
    const { page, targetId, driver, tab } = found;
    const describe = (ref: string) => elementLine({ ref, ...this.snapshots.refInfo(tab, ref) });
    const secrets = this.secretPages;
    return {
      page,
      resolve: call.resolve,
      describe,
      evaluateRefusal: () => driver.pages.evaluateRefusal() ?? secrets.refusal(profile, page),
      secretRefusal: () => secrets.refusal(profile, page),
      ranCode: () => secrets.ran(profile, targetId, page),
      // Playwright's own timeout ends a little before the call's bound, so its answer (which
      // says why: covered, hidden …) comes before the bound's, which cannot say.
      left: () => Math.max(1, request.timeoutMs - PLAYWRIGHT_RESERVE(request.timeoutMs) - (Date.now() - began)),
    };
  }

  /** The action failed: a ref gone meanwhile is said as stale, anything else in an agent's words. */
  private async failed(call: OneAct, error: unknown): Promise<never> {
    if (isClawdError(error) || call.found.state.crashed) throw error;
    // The element went away while the action waited for it: that is a stale ref, not a timeout.
    for (const ref of call.refs) {
      const stale = await call.resolve(ref).then(
        () => false,
        (e: unknown) => isClawdError(e) && e.code === 'ref_stale',
      );
      if (stale) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
    }
    throw toAgentError(error, { what: call.what, timeoutMs: call.request.timeoutMs });
  }

  /** No view asked for, and the action loaded another document: its title and how it ended. */
  private async loaded(call: OneAct, answer: ActResult, { from }: Before): Promise<ActResult> {
    const { page } = call.found;
    const left = () => call.request.timeoutMs - (Date.now() - call.began);
    // The new page's title once it has one (its DOM parsed), within what is left of the
    // call's bound: the action itself succeeded, so running short answers without a title.
    if (left() > 0) await page.waitForLoadState('domcontentloaded', { timeout: left() }).catch(() => {});
    // How it ended, when the new page says (an "Added to your cart" after a POST and redirect).
    // The title and the messages are read at once: each is a first evaluation in the new document.
    const said =
      left() > 0
        ? await Promise.all([titleOf(page, Math.min(5_000, left())), this.calls.messages(page, left())]).then(
            ([title, messages]) => ({ title, ...messages }),
          )
        : {};
    return { ...answer, url: page.url(), ...said, navigated: true, from };
  }

  /** The view the caller asked for; `newDocument` (where it came from) when the action loaded another. */
  private async viewed(
    call: OneAct,
    answer: ActResult,
    asked: 'brief' | 'diff' | 'full',
    newDocument: Before | undefined,
  ): Promise<ActResult> {
    const { request } = call;
    const { page, tab, targetId } = call.found;
    const left = () => request.timeoutMs - (Date.now() - call.began);
    // What changed between two documents is all of both: on another page a diff is its brief view,
    // read once its DOM is parsed (within the call's bound).
    const view = newDocument && asked === 'diff' ? 'brief' : asked;
    if (newDocument && left() > 0) await page.waitForLoadState('domcontentloaded', { timeout: left() }).catch(() => {});
    // Where the action led, read with the view's walk (which, on another page, need not repeat
    // the title the answer says); asked of the page only when the walk did not read it.
    const { title: read, snapshot } = await this.snapshots.view(
      page,
      tab,
      view,
      request.timeoutMs,
      `snapshot of ${targetId}`,
      newDocument !== undefined,
    );
    const title = read ?? (await titleOf(page, Math.min(5_000, left())));
    return {
      ...answer,
      url: page.url(),
      title,
      snapshot,
      ...(newDocument ? { navigated: true as const, from: newDocument.from } : {}),
    };
  }
}

/** A `type` (not key by key) or `fill` puts a whole new value into its fields. */
const replacesValue = (request: ActRequest): boolean =>
  request.kind === 'fill' || (request.kind === 'type' && !request.slowly);
