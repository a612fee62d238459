// A navigate call's load, past a commit that was already under way when it began. A page's own
// load (a link's, a form's, a script's: one the person allowed a moment before) that Chrome was
// committing when the agent's navigation started commits anyway, and Playwright's goto then fails
// "interrupted by another navigation" — while the agent's own navigation goes on and commits
// after it (measured on 156: the site saw both loads). So the call waits for its own.

import type { Frame, Page, Response } from 'playwright-core';

/**
 * The most it waits for its own commit once interrupted: a navigation the page began after it
 * (which Chrome let win) leaves none to come, and the call then fails within this.
 */
const OWN_COMMIT_MS = 10_000;
/** Playwright's word for a goto another document's commit came in the way of. */
const INTERRUPTED = /is interrupted by another navigation to "([^"]*)"/;

/**
 * page.goto(url) until the page's load event, within `timeoutMs`. When a commit that began before
 * it interrupts it, it waits for the main frame's next commit (its own navigation's, or where
 * that redirected) and that document's load; the response is then not known (null).
 */
export async function gotoPast(page: Page, url: string, timeoutMs: number): Promise<Response | null> {
  const began = Date.now();
  const commits: string[] = [];
  let next: (() => void) | undefined;
  const committed = (frame: Frame) => {
    if (frame !== page.mainFrame()) return;
    commits.push(frame.url());
    next?.();
  };
  page.on('framenavigated', committed);
  try {
    return await page.goto(url, { timeout: timeoutMs, waitUntil: 'load' });
  } catch (error) {
    const other = INTERRUPTED.exec(error instanceof Error ? error.message : '')?.[1];
    if (other === undefined) throw error;
    const left = () => Math.max(1, timeoutMs - (Date.now() - began));
    // The commit that came in the way is the first of that address seen; one after it is ours.
    const ours = () => commits.indexOf(other) >= 0 && commits.length > commits.indexOf(other) + 1;
    // No commit of its own within the bound (another navigation after it, or none): the interruption stands.
    if (!ours() && !(await ownCommit(page, Math.min(left(), OWN_COMMIT_MS), (listener) => (next = listener), ours)))
      throw error;
    await page.waitForLoadState('load', { timeout: left() });
    return null;
  } finally {
    page.off('framenavigated', committed);
  }
}

/** Whether `mine()` holds by a main-frame commit (told through `tell`) within `ms`, the page open. */
function ownCommit(
  page: Page,
  ms: number,
  tell: (listener: () => void) => void,
  mine: () => boolean,
): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const end = (came: boolean) => {
      clearTimeout(timer);
      page.off('close', closed);
      resolve(came);
    };
    const closed = () => end(false);
    const timer = setTimeout(() => end(false), ms);
    page.on('close', closed);
    tell(() => {
      if (mine()) end(true);
    });
  });
}
