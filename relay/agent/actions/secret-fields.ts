// A field an agent typed a secret into is the secret's until the agent replaces it whole: masking
// finds a secret as it is, so keys that move the caret into it or cut it (Home, arrows, Backspace,
// a key typed slowly where a click left the caret) would split it into parts no mask finds —
// `hun|ter2…` in the next snapshot, or in the form's body. Such a key, on the field or while it
// has focus, is refused (secret_refused), and so is a drag from or onto it and a click with keys
// held (a selection to move); Tab and Escape go, Enter too in a one-line field, and so do a `type`
// or `fill` that replace the value. Kept per page as handles of the page's own elements.

import type { ElementHandle, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import type { ActTarget } from '../snapshots/snapshot-engine';

/** Keys that leave a one-line field's text as it is (and submit, move on or close). */
const KEEPING_KEYS = new Set(['Enter', 'Tab', 'Shift+Tab', 'Escape', 'NumpadEnter']);
/** Of those, the ones that put a line break into a many-line field (a textarea, contenteditable). */
const BREAKING_KEYS = new Set(['Enter', 'NumpadEnter']);

/** What of an action could edit a field's text in place (a key, text typed key by key, a drag, a selecting click). */
export interface FieldEdit {
  kind: string;
  key?: string;
  slowly?: boolean;
  modifiers?: readonly string[];
}

/** How an action may cut a field holding a secret: always, only a many-line one, or not at all. */
type Cut = 'always' | 'many-lines' | false;

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

  /**
   * Refuses an edit in place of a field holding a secret: on one of `targets` (a drag's both
   * ends), or on the focused element when there are none.
   */
  async check(page: Page, edit: FieldEdit, targets: readonly ActTarget[]): Promise<void> {
    const fields = this.#fields.get(page);
    const cut = editsInPlace(edit);
    if (!fields?.length || !cut) return;
    const aimed = await Promise.all(targets.map((t) => handleOf(t).catch(() => undefined)));
    const aims = aimed.filter((a): a is ElementHandle => a !== undefined);
    const live: ElementHandle[] = [];
    let hit = false;
    for (const field of fields) {
      const holds = await field
        .evaluate(
          (el, [aim, manyLinesOnly]) => {
            const aimedAt =
              aim.length > 0 ? aim.includes(el) : (el.getRootNode() as Document | ShadowRoot).activeElement === el;
            const manyLines = (el as Element).tagName === 'TEXTAREA' || (el as HTMLElement).isContentEditable;
            return aimedAt && (!manyLinesOnly || manyLines);
          },
          [aims, cut === 'many-lines'] as const,
        )
        .catch(() => undefined); // its document is gone
      if (holds === undefined) continue;
      live.push(field);
      hit ||= holds;
    }
    this.#fields.set(page, live);
    targets.forEach((t, i) => !('asElement' in t) && void aimed[i]?.dispose().catch(() => {}));
    if (hit)
      throw new ClawdError(
        'secret_refused',
        `${edit.kind === 'press' ? `pressing ${edit.key}` : edit.kind === 'drag' ? 'dragging' : edit.kind === 'click' ? 'a click with keys held' : 'typing key by key'} in the field a secret was typed into would split it where masking cannot see it: replace it whole (type or fill), or press Tab. Nothing was done`,
      );
  }
}

export function editsInPlace(edit: FieldEdit): Cut {
  if (edit.kind === 'press')
    return !KEEPING_KEYS.has(edit.key ?? '') ? 'always' : BREAKING_KEYS.has(edit.key ?? '') ? 'many-lines' : false;
  if (edit.kind === 'type') return edit.slowly === true ? 'always' : false;
  if (edit.kind === 'drag') return 'always';
  if (edit.kind === 'click') return (edit.modifiers?.length ?? 0) > 0 ? 'always' : false;
  return false;
}

async function handleOf(target: ActTarget): Promise<ElementHandle> {
  if ('asElement' in target) return target as ElementHandle;
  const handle = await target.elementHandle();
  if (!handle) throw new Error('no element');
  return handle;
}
