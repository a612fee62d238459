// The `ai` and `role` snapshots: Playwright's aria snapshot (as JSON) rendered by
// snapshot-render.ts, with our own refs e1, e2, … mapped to Playwright's element refs.
//
// A ref resolves through Playwright's own element identity (page.getByRef) AND the role and name
// the snapshot showed (getByRole). Measured: that pair matches exactly one element while it is the
// one snapshotted, and none after the page navigated, the element was removed or replaced, or
// its name changed — in milliseconds. So a stale ref is refused before anything happens on the
// page, and no action can land on a different element than the one the agent saw.

import type { Locator, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import { SNAPSHOT_TIMEOUT_MS, type SnapshotRequest } from '../../operations/page-operations';
import { labelBoxes } from '../capture/capture';
import type { EngineSnapshot, LabelBox, RefIndex, RefInfo, SnapshotContext, SnapshotEngine } from './snapshot-engine';
import { normalizeRef } from '../../operations/fields';
import { renderSnapshot, type AriaNode, type RefTarget } from './snapshot-render';

/** A snapshot of a very large page (thousands of elements) takes seconds on a busy machine. */
/** Checking a ref takes milliseconds; a page that does not answer in this long is stuck. */
const REF_CHECK_MS = 10_000;
const UNADDRESSABLE_ROLES = new Set(['generic', 'iframe', 'none', 'presentation']);

/** `timeoutMs`: the caller's bound (a 20k-element page's first `ai` walk has taken over 30 s). */
const ariaJson = async (scope: Page | Locator, timeoutMs: number, boxes = false): Promise<AriaNode[]> => {
  const json = (await scope.ariaSnapshotJSON({
    mode: 'ai',
    timeout: timeoutMs,
    ...(boxes ? { boxes: true } : {}),
  })) as unknown as AriaNode[] | AriaNode;
  return Array.isArray(json) ? json : [json];
};

/** Refs of one Playwright-based snapshot. Refs are always numbered over the whole page (iframes included). */
class PlaywrightRefs implements RefIndex {
  constructor(readonly targets: Map<string, RefTarget>) {}

  get size(): number {
    return this.targets.size;
  }

  get(ref: string): RefInfo | undefined {
    return this.targets.get(ref);
  }

  *entries(): IterableIterator<[string, RefInfo]> {
    for (const [ref, { role, name, nth }] of this.targets) yield [ref, { role, name, nth }];
  }

  async resolve(page: Page, ref: string): Promise<Locator> {
    const target = this.targets.get(ref);
    if (!target) {
      throw new ClawdError(
        'ref_unknown',
        `unknown ref ${ref}: the last snapshot of this tab has ${this.targets.size} refs; use one of them, or take a new snapshot`,
      );
    }
    const element = page.getByRef(target.pw);
    // getByRole cannot address some roles (measured: "generic" and "iframe" match nothing): for
    // those the element's identity alone must hold (it still fails after removal or navigation).
    const asShown = UNADDRESSABLE_ROLES.has(target.role)
      ? element
      : element.and(
          target.name
            ? page.getByRole(target.role as never, { name: target.name, exact: true })
            : page.getByRole(target.role as never),
        );
    const count = await within(
      asShown.count().catch(() => 0),
      REF_CHECK_MS,
      () =>
        new ClawdError(
          'action_timeout',
          `ref ${ref}: the page did not answer within ${seconds(REF_CHECK_MS)} while the ref was checked; try again, or take a new snapshot`,
        ),
    );
    if (count !== 1) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
    return asShown;
  }

  async labelBoxes(page: Page): Promise<LabelBox[]> {
    // A fresh snapshot with boxes: Playwright's element refs are stable per element.
    const byPw = new Map([...this.targets].map(([ref, t]) => [t.pw, ref]));
    return labelBoxes(await ariaJson(page, SNAPSHOT_TIMEOUT_MS, true), byPw);
  }
}

export class PlaywrightEngine implements SnapshotEngine {
  async take(page: Page, request: SnapshotRequest, { previous }: SnapshotContext): Promise<EngineSnapshot> {
    const format = request.format === 'role' ? 'role' : 'ai';
    const roots = await ariaJson(request.selector ? page.locator(request.selector).first() : page, request.timeoutMs);
    const inside = request.frame !== undefined ? frameRef(previous, request.frame) : undefined;
    const { interactive, compact, depth, limit } = request;
    const rendered = renderSnapshot(roots, {
      format,
      interactive,
      compact,
      depth,
      limit,
      ...(inside ? { within: inside } : {}),
    });
    if (inside && !rendered.found)
      throw new ClawdError(
        'ref_stale',
        `frame ${normalizeRef(request.frame)} is stale: that iframe is gone; take a new snapshot`,
      );
    return { text: rendered.text, refs: new PlaywrightRefs(rendered.refs) };
  }
}

/**
 * Playwright's ref of the iframe a `frame` parameter names: one of the iframe refs of this
 * tab's last snapshot (refs are numbered over the whole page, so any snapshot's will do).
 */
function frameRef(previous: RefIndex | undefined, frame: string): string {
  const ref = normalizeRef(frame);
  const target = ref && previous instanceof PlaywrightRefs ? previous.targets.get(ref) : undefined;
  if (!target || target.role !== 'iframe') {
    throw new ClawdError(
      'bad_request',
      `frame ${JSON.stringify(frame)} is not the ref of an iframe in this tab's last snapshot: take a snapshot and use an iframe's ref`,
    );
  }
  return target.pw;
}
