// A site an agent typed a secret into runs none of the agent's own code: masking sees a secret as
// it is and in the forms it takes on the way, but an `evaluate` (or a `wait fn`, one bit a call,
// or a `wait` for a selector on a field's value) could hand it back reversed, sliced or hashed —
// in that page, in a later page of the site that kept it (a field restored on Back, a value the
// page saved), or in another tab of the site reaching the first. So the mark is the site (the
// page's origin) in the profile, held while a tab it was typed in is open; and a secret is not
// typed into a site where the agent's code already ran (a listener it left could copy it).

import type { Page } from 'playwright-core';
import { originOf } from '../../shared/origin-policy';
import { ClawdError } from '../errors';

/** profile → origin → the tabs (target ids) that gave it the mark. */
type Marks = Map<string, Map<string, Set<string>>>;

export class SecretPages {
  /** Sites a secret was typed into. */
  readonly #secret: Marks = new Map();
  /** Sites the agent's own code ran in (evaluate, wait fn). */
  readonly #coded: Marks = new Map();

  /** Before a call puts a secret into `page`: refused where the agent's code ran; else the site is marked. */
  put(profile: string, targetId: string, page: Page): void {
    const origin = originOf(page.url()) ?? page.url();
    if (has(this.#coded, profile, origin))
      throw new ClawdError(
        'secret_refused',
        `the agent's own code ran on ${origin} in this profile (evaluate or wait fn): a secret is not typed where that code could read it; close the tabs it ran in, or use a profile where it did not`,
      );
    add(this.#secret, profile, origin, targetId);
  }

  /** The agent's own code is about to run in `page` (after refusal() said it may). */
  ran(profile: string, targetId: string, page: Page): void {
    add(this.#coded, profile, originOf(page.url()) ?? page.url(), targetId);
  }

  /** Why the agent's code may not run in `page` now, if it may not. */
  refusal(profile: string, page: Page): ClawdError | undefined {
    const origin = originOf(page.url()) ?? page.url();
    if (!has(this.#secret, profile, origin)) return undefined;
    return new ClawdError(
      'evaluate_disabled',
      `a secret the agent typed ({{secret:…}} or {{totp:…}}) is on ${origin}: evaluate, wait fn and a wait for a field's value could read it back in a form clawd cannot mask, so they are refused on that site while a tab it was typed in is open`,
    );
  }

  /** A tab was closed: the marks it gave go with it. */
  forget(profile: string, targetId: string): void {
    for (const marks of [this.#secret, this.#coded])
      for (const [origin, tabs] of marks.get(profile) ?? []) {
        tabs.delete(targetId);
        if (tabs.size === 0) marks.get(profile)!.delete(origin);
      }
  }
}

function add(marks: Marks, profile: string, origin: string, targetId: string): void {
  let sites = marks.get(profile);
  if (!sites) marks.set(profile, (sites = new Map()));
  let tabs = sites.get(origin);
  if (!tabs) sites.set(origin, (tabs = new Set()));
  tabs.add(targetId);
}

const has = (marks: Marks, profile: string, origin: string) => (marks.get(profile)?.get(origin)?.size ?? 0) > 0;
