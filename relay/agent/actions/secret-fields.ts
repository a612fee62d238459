// A field an agent typed a secret into is the secret's until the agent replaces it whole: masking
// finds a secret as it is, so keys that move the caret into it or cut it (Home, arrows, Backspace,
// a key typed slowly where a click left the caret) would split it into parts no mask finds —
// `hun|ter2…` in the next snapshot, or in the form's body. Such a key, on the field or while it
// has focus, is refused (secret_refused); Enter, Tab and Escape go, and so do a `type` or `fill`
// that replace the value. Kept per page as handles of the page's own elements (gone with its document).

import type { ElementHandle, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import type { ActTarget } from '../snapshots/snapshot-engine';

/** Keys that leave a field's text as it is (and submit, move on or close). */
const KEEPING_KEYS = new Set(['Enter', 'Tab', 'Shift+Tab', 'Escape', 'NumpadEnter']);

/** What of an action edits a field's text in place (a key, text typed key by key). */
export interface FieldEdit {
  kind: string;
  key?: string;
  slowly?: boolean;
}

export class SecretFields {
  // Page → the fields a secret went into; pruned when a handle's document is gone.
  readonly #fields = new WeakMap<Page, ElementHandle[]>();

  /** Whether any field of the page holds a secret (else nothing here costs a round trip). */
  holds(page: Page): boolean {
    return (this.#fields.get(page)?.length ?? 0) > 0;
  }

  /** The call put a secret into these elements. */
  async mark(page: Page, targets: readonly ActTarget[]): Promise<void> {
    const handles = await Promise.all(targets.map((t) => handleOf(t).catch(() => undefined)));
    const kept = this.#fields.get(page) ?? [];
    this.#fields.set(page, [...kept, ...handles.filter((h): h is ElementHandle => h !== undefined)]);
  }

  /** The call replaced these elements' values with no secret: they are the agent's fields again. */
  async unmark(page: Page, targets: readonly ActTarget[]): Promise<void> {
    const fields = this.#fields.get(page);
    if (!fields?.length || targets.length === 0) return;
    const aimed = await Promise.all(targets.map((t) => handleOf(t).catch(() => undefined)));
    const kept: ElementHandle[] = [];
    for (const field of fields) {
      const replaced = await field
        .evaluate(
          (el, aims) => aims.includes(el),
          aimed.filter((a): a is ElementHandle => a !== undefined),
        )
        .catch(() => true); // its document is gone: nothing to keep
      if (!replaced) kept.push(field);
    }
    this.#fields.set(page, kept);
  }

  /** Refuses an edit in place of a field holding a secret: on `target`, or on the focused element when none. */
  async check(page: Page, edit: FieldEdit, target: ActTarget | undefined): Promise<void> {
    const fields = this.#fields.get(page);
    if (!fields?.length || !editsInPlace(edit)) return;
    const own = target !== undefined && !('asElement' in target); // a handle made here: let go after
    const aimed = target ? await handleOf(target).catch(() => undefined) : undefined;
    const live: ElementHandle[] = [];
    let hit = false;
    for (const field of fields) {
      const holds = await field
        .evaluate(
          (el, aim) => (aim ? el === aim : (el.getRootNode() as Document | ShadowRoot).activeElement === el),
          aimed ?? null,
        )
        .catch(() => undefined); // its document is gone
      if (holds === undefined) continue;
      live.push(field);
      hit ||= holds;
    }
    this.#fields.set(page, live);
    if (own) void aimed?.dispose().catch(() => {});
    if (hit)
      throw new ClawdError(
        'secret_refused',
        `${edit.kind === 'press' ? `pressing ${edit.key}` : 'typing key by key'} in the field a secret was typed into would split it where masking cannot see it: replace it whole (type or fill), or press Enter or Tab. Nothing was done`,
      );
  }
}

export function editsInPlace(edit: FieldEdit): boolean {
  if (edit.kind === 'press') return !KEEPING_KEYS.has(edit.key ?? '');
  return edit.kind === 'type' && edit.slowly === true;
}

async function handleOf(target: ActTarget): Promise<ElementHandle> {
  if ('asElement' in target) return target as ElementHandle;
  const handle = await target.elementHandle();
  if (!handle) throw new Error('no element');
  return handle;
}
