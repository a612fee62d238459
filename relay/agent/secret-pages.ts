// A page an agent typed a secret into runs none of the agent's own code while that document
// lives: masking sees a secret as it is and in the forms it takes on the way, but an `evaluate`
// (or a `wait fn`, one bit a call) could hand it back reversed, sliced or hashed. The document is
// told by the browser (its main frame's loaderId, which a page cannot change, and which a page
// restored from the back/forward cache keeps), so loading another page lifts the refusal.

import type { Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { within } from '../time-limit';

/** Asking the browser which document a page shows is one CDP round trip on a session of its own. */
const DOCUMENT_MS = 5_000;

export class SecretPages {
  /** Per page: the documents (loaderIds) a secret was put into. */
  readonly #documents = new WeakMap<Page, Set<string>>();

  /** Before a call puts a secret into `page`: its document is marked (a page that cannot say is marked for good). */
  async mark(page: Page): Promise<void> {
    let marked = this.#documents.get(page);
    if (!marked) this.#documents.set(page, (marked = new Set()));
    marked.add(await documentOf(page).catch(() => ANY));
  }

  /** Why the agent's code may not run in `page` now, if it may not. */
  async refusal(page: Page): Promise<ClawdError | undefined> {
    const marked = this.#documents.get(page);
    if (!marked || marked.size === 0) return undefined;
    const now = marked.has(ANY) ? ANY : await documentOf(page).catch(() => ANY);
    if (now !== ANY && !marked.has(now)) return undefined;
    return new ClawdError(
      'evaluate_disabled',
      "this tab's page holds a secret the agent typed ({{secret:…}}): evaluate and wait fn could read it back in a form clawd cannot mask, so they are refused until the tab loads another page",
    );
  }
}

/** Stands for "a document the browser did not name". */
const ANY = '';

async function documentOf(page: Page): Promise<string> {
  const session = await page.context().newCDPSession(page);
  try {
    const { frameTree } = await within(session.send('Page.getFrameTree'), DOCUMENT_MS, () => new Error('no answer'));
    return frameTree.frame.loaderId || ANY;
  } finally {
    await session.detach().catch(() => {});
  }
}
