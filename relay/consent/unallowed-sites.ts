// The sites the person was asked about going to, per profile, and has not allowed since —
// whoever asked (an agent's call, a watch, a raw client) and in whichever tab (a pop-up's loads
// are asked as its opener's). A tab whose load of one was refused, or still waits, or was given
// up, shows its error page under that address: a raw client working in a tab there has not been
// there (cdp/client-gate.ts). Heard from every question from the start, so a refusal before the
// first raw client of a profile connected counts too; one owner (PersonConsent) closes it.

import { originOf } from '../../shared/origin-policy';
import type { PersonQuestions } from './person-questions';

/** Sites kept, over every profile; past it the oldest is dropped (one asked about again is new). */
const KEPT = 10_000;

export class UnallowedSites {
  /** `${profile}\n${site}`, in the order last asked about. */
  readonly #sites = new Set<string>();
  readonly #off: () => void;

  constructor(questions: PersonQuestions) {
    this.#off = questions.onChange(({ state, question }) => {
      const { url, kinds, profile } = question;
      const site = kinds.includes('new-site') && url ? originOf(url) : undefined;
      if (!site) return;
      const key = `${profile}\n${site}`;
      // Allowed, the asker went there: the site's page may be showing. Any other end (declined,
      // unanswered, withdrawn) leaves the tab on its error page, as a question still open does.
      this.#sites.delete(key);
      if (state !== 'allowed') this.#sites.add(key);
      if (this.#sites.size > KEPT) this.#sites.delete(this.#sites.values().next().value!);
    });
  }

  /** Whether the person was asked about going to `site` on `profile` and has not allowed it since. */
  has(profile: string, site: string): boolean {
    return this.#sites.has(`${profile}\n${site}`);
  }

  close(): void {
    this.#off();
  }
}
