// The agent's `act`: one action on refs of the tab's latest snapshot (actions.ts does it), within
// the caller's bound, answered with what became of the page — a new document's title and how it
// ended, or the view the caller asked for (a diff, the brief view of a page it loaded).

import type { Frame } from 'playwright-core';
import { ClawdError, isClawdError } from '../../errors';
import type { ActRequest, ActResult } from '../../operations/act-operations';
import { callPutsSecret } from '../../operations/secret-use';
import { runAct } from './actions';
import { toAgentError } from '../agent-errors';
import { titleOf, type AgentCalls } from '../agent-calls';
import type { SecretPages } from '../secret-pages';
import type { Snapshots } from '../snapshots/snapshots';

/** How much of an action's bound Playwright's own timeout leaves for its answer to come back. */
const PLAYWRIGHT_RESERVE = (timeoutMs: number): number => Math.min(1_000, timeoutMs / 10);

export class ActCall {
  constructor(
    private readonly calls: AgentCalls,
    private readonly snapshots: Snapshots,
    private readonly secretPages: SecretPages,
  ) {}

  async act(profile: string, request: ActRequest): Promise<ActResult> {
    const found = await this.calls.page(profile, request);
    const { page, targetId, driver, tab } = found;
    const refs = refsOf(request);
    const what = `${request.kind}${refs.length ? ` ${refs.join(' → ')}` : ''}`;
    const resolve = (ref: string) => this.snapshots.resolve(page, tab, ref);
    return this.calls.bounded(found, what, request.timeoutMs, async () => {
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
          const info = this.snapshots.refInfo(tab, ref);
          return info ? `${ref} ${info.role}${info.name ? ` ${JSON.stringify(info.name)}` : ''}` : ref;
        };
        if (callPutsSecret()) this.secretPages.put(profile, targetId, page);
        const secrets = this.secretPages;
        extra = await runAct(
          {
            page,
            resolve,
            describe,
            evaluateRefusal: () => driver.pages.evaluateRefusal() ?? secrets.refusal(profile, page),
            secretRefusal: () => secrets.refusal(profile, page),
            ranCode: () => secrets.ran(profile, targetId, page),
            // Playwright's own timeout ends a little before the call's bound, so its answer (which
            // says why: covered, hidden …) comes before the bound's, which cannot say.
            left: () => Math.max(1, request.timeoutMs - PLAYWRIGHT_RESERVE(request.timeoutMs) - (Date.now() - began)),
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
            ? { title: await titleOf(page, Math.min(5_000, left())), ...(await this.calls.messages(page, left())) }
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
      const snapshot = await this.snapshots.view(
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
