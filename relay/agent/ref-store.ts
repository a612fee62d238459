// The refs of the latest snapshot of each target (tab), and turning a ref back into the exact
// element the snapshot showed. Kept per target, not per Playwright Page, so they survive a new
// Page object for the same tab; at most 50 targets are remembered (least recently used go).
//
// A ref resolves through Playwright's own element identity (page.getByRef) AND the role and name
// the snapshot showed (getByRole). Measured: that pair matches exactly one element while it is the
// one snapshotted, and none after the page navigated, the element was removed or replaced, or
// its name changed — in milliseconds. So a stale ref is refused before anything happens on the
// page, and no action can land on a different element than the one the agent saw.

import type { Locator, Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { seconds, within } from '../time-limit';
import { normalizeRef, type RefTarget } from './snapshot-render';

export interface SnapshotRefs {
  format: 'ai' | 'role';
  /** Refs are always numbered over the whole page (iframes included), whatever part was shown. */
  refs: Map<string, RefTarget>;
}

const MAX_TARGETS = 50;
/** Checking a ref takes milliseconds; a page that does not answer in this long is stuck. */
const REF_CHECK_MS = 10_000;
const UNADDRESSABLE_ROLES = new Set(['generic', 'iframe', 'none', 'presentation']);

export class RefStore {
  // Least recently used first (a Map keeps insertion order; set() moves an entry to the end).
  readonly #entries = new Map<string, SnapshotRefs>();

  set(target: string, refs: SnapshotRefs): void {
    this.#entries.delete(target);
    this.#entries.set(target, refs);
    while (this.#entries.size > MAX_TARGETS) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get(target: string): SnapshotRefs | undefined {
    const entry = this.#entries.get(target);
    if (entry) this.set(target, entry);
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Checks a ref's form; the field name goes into the message. */
export function refParam(raw: unknown, field = 'ref'): string {
  const ref = normalizeRef(raw);
  if (!ref) {
    throw new ClawdError('bad_request', raw === undefined || raw === '' ? `${field} is required (a ref from the snapshot, like e12)` : `${field} ${JSON.stringify(raw)} is not a ref: use one from the snapshot, like e12`);
  }
  return ref;
}

/** The locator for a ref of the latest snapshot, or a clear refusal. */
export async function resolveRef(page: Page, entry: SnapshotRefs | undefined, ref: string): Promise<Locator> {
  if (!entry) throw new ClawdError('ref_unknown', `ref ${ref}: this tab has no snapshot yet; take one (GET /snapshot) and use its refs`);
  const target = entry.refs.get(ref);
  if (!target) {
    throw new ClawdError('ref_unknown', `unknown ref ${ref}: the last snapshot of this tab has ${entry.refs.size} refs; use one of them, or take a new snapshot`);
  }
  const element = page.getByRef(target.pw);
  // getByRole cannot address some roles (measured: "generic" and "iframe" match nothing): for
  // those the element's identity alone must hold (it still fails after removal or navigation).
  const asShown = UNADDRESSABLE_ROLES.has(target.role)
    ? element
    : element.and(target.name ? page.getByRole(target.role as never, { name: target.name, exact: true }) : page.getByRole(target.role as never));
  const count = await within(asShown.count().catch(() => 0), REF_CHECK_MS, () => new ClawdError('action_timeout', `ref ${ref}: the page did not answer within ${seconds(REF_CHECK_MS)} while the ref was checked; try again, or take a new snapshot`));
  if (count !== 1) throw new ClawdError('ref_stale', `ref ${ref} is stale: take a new snapshot`);
  return asShown;
}
