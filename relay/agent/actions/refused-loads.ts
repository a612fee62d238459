// A tab whose page load the person refused shows Chrome's error page only a while later: the
// refusal fails the request, and Chrome then commits an error document (120–410 ms on a loaded
// two-core VM, more when its process must start). A call on the tab meanwhile raced it: a
// navigate sent then was "interrupted by another navigation to chrome-error://", and one sent
// again was interrupted by the first. So the tab's next call waits for that commit, bounded.
// Chrome then loads an error page again by itself (after 1 s, 5 s, 30 s … while the tab shows),
// which asked the person again about what they had refused (measured on the person's tabs, where
// no launch flag turns it off): the page is stopped once the error page is in, which ends that —
// once its DOM is parsed: stopped before, the error page never says it is (no DOMContentLoaded),
// and a call that waits for the document it led to waited its whole bound (20 s measured, in 3 of
// 5 runs of a refused download's click on a fresh tab).

import type { Frame, Page } from 'playwright-core';
import { within } from '../../time-limit';

/** The most a call waits for a refused load's error page (a load that commits nothing ends no sooner). */
export const REFUSED_LOAD_MS = 3_000;
/** The most the stop after it may take (it is one command). */
const STOP_MS = 1_000;
/** The most the error page's DOM may take to be parsed before it is stopped anyway (it is Chrome's own, small). */
const PARSED_MS = 1_000;

/** By page: the refused load whose error page has not committed yet. */
const ending = new WeakMap<Page, Promise<void>>();

/**
 * The main frame of `page` had its load refused: until the frame commits a document (the error
 * page, or whatever the page loads next) and, an error page, `stop` has answered (Page.stopLoading:
 * a stop calls off Chrome's own reload of an error page), the page closes or `ms` pass, the
 * tab's calls wait — so no call's navigation can be the one the stop ends. The wait owns its
 * listener and timer, and ends them itself within `ms` and the stop's bound.
 */
export function loadRefused(page: Page, stop?: () => Promise<unknown>, ms = REFUSED_LOAD_MS): void {
  const ended = new Promise<void>((resolve) => {
    const committed = (frame: Frame) => {
      if (frame !== page.mainFrame()) return;
      // Another document came instead (the page went on elsewhere): its loads are not stopped.
      if (!stop || !frame.url().startsWith('chrome-error:')) return end();
      page.off('framenavigated', committed);
      void parsed(page, PARSED_MS)
        // Past the wait's bound the next call may be navigating, and another document may have
        // come meanwhile (the person's): a stop would end their load.
        .then(() =>
          done || !page.mainFrame().url().startsWith('chrome-error:')
            ? undefined
            : within(stop(), STOP_MS, () => new Error('no stop')),
        )
        .catch(() => {})
        .finally(end);
    };
    const timer = setTimeout(() => end(), ms);
    let done = false;
    function end() {
      done = true;
      clearTimeout(timer);
      page.off('framenavigated', committed);
      page.off('close', end);
      if (ending.get(page) === ended) ending.delete(page);
      resolve();
    }
    page.on('framenavigated', committed);
    page.on('close', end);
  });
  ending.set(page, ended);
}

/** Resolves once no refused load of `page` is still ending (at once, mostly). */
export function refusedLoadsEnded(page: Page): Promise<void> {
  return ending.get(page) ?? Promise.resolve();
}

/** Resolves once the page's main frame says its DOM is parsed, or after `ms`; its listener goes with it. */
function parsed(page: Page, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      page.off('domcontentloaded', done);
      page.off('close', done);
      resolve();
    }
    page.once('domcontentloaded', done);
    page.once('close', done);
  });
}
