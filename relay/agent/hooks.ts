// Arming hooks (spec 002): the next file chooser or dialog on a page is answered as the agent
// said, within timeoutMs (default and maximum 2 minutes). The last arm wins: a new arm replaces
// the previous one on that page. Arming happens before the click that opens the chooser or
// dialog, because waiting for an event that is already on screen is a race. Both kinds share
// one skeleton (#arm: one arm per page, a deadline, a withdrawal) and one click-and-wait.

import type { Dialog, FileChooser, Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { seconds, settlesWithin } from '../time-limit';
import { toAgentError } from './agent-errors';
import type { PageState } from './tabs/page-tracker';
import type { ActTarget } from './snapshots/snapshot-engine';

/** How long a hook's click may take to open the chooser or dialog it was armed for (less when the hook's own bound is shorter). */
const AFTER_CLICK_MS = 5_000;
/** The after-click wait ends this long before the hook's own bound, so that its answer says why. */
const BEFORE_BOUND_MS = 100;

export type HookKind = 'file-chooser' | 'dialog';
const NOUN: Record<HookKind, string> = { 'file-chooser': 'file chooser', dialog: 'dialog' };

interface Arm {
  cancel(reason: string): void;
}

/** Hooks the page; calls `answer` with the work of answering once the event came; returns the unhook. */
type Install<T> = (answer: (work: Promise<T>) => void) => () => void;

export class Hooks {
  // One arm per page and kind; removed when it is answered, times out or is withdrawn.
  readonly #armed: Record<HookKind, WeakMap<Page, Arm>> = { 'file-chooser': new WeakMap(), dialog: new WeakMap() };

  /** Withdraws the page's armed hook of that kind, if any (its promise rejects). */
  disarm(page: Page, kind: HookKind): void {
    this.#armed[kind].get(page)?.cancel('disarmed');
  }

  /** Resolves with the file names once the next chooser got them. */
  armFileChooser(page: Page, paths: string[], timeoutMs: number): Promise<string[]> {
    return this.#arm(page, 'file-chooser', timeoutMs, (answer) => {
      const onChooser = (chooser: FileChooser) => answer(chooser.setFiles(paths).then(() => paths));
      // Playwright intercepts the chooser while a listener is attached, so no native dialog opens.
      page.on('filechooser', onChooser);
      return () => page.off('filechooser', onChooser);
    });
  }

  /** Resolves with the dialog's type and message once the next dialog was answered. */
  armDialog(
    page: Page,
    state: PageState,
    accept: boolean,
    promptText: string | undefined,
    timeoutMs: number,
  ): Promise<{ type: string; message: string }> {
    return this.#arm(page, 'dialog', timeoutMs, (answer) => {
      // The page tracker's dialog listener offers each dialog here first (see page-tracker.ts).
      const handle = (dialog: Dialog): boolean => {
        const answered = accept ? dialog.accept(promptText) : dialog.dismiss();
        answer(answered.then(() => ({ type: dialog.type(), message: dialog.message() })));
        return true;
      };
      state.dialogArm = handle;
      return () => {
        if (state.dialogArm === handle) state.dialogArm = undefined;
      };
    });
  }

  /**
   * Clicks `target` with the hook armed and waits for the hook's answer. A click that opens a
   * chooser or dialog does so at once: one that opened nothing must not leave the hook armed for
   * minutes, for some later click to meet, so the hook is withdrawn after a few seconds (or just
   * before the hook's own bound, `deadline`, when that comes first).
   */
  async clickAndAwait<T>(
    page: Page,
    kind: HookKind,
    answered: Promise<T>,
    target: ActTarget,
    ref: string,
    clickTimeoutMs: number,
    deadline: number,
  ): Promise<T> {
    answered.catch(() => {}); // answered below; a click that fails first must not leave it unhandled
    try {
      await target.click({ timeout: clickTimeoutMs });
    } catch (error) {
      this.disarm(page, kind);
      throw toAgentError(error, { what: `${kind} hook, clicking ${ref}` });
    }
    const afterClickMs = Math.max(0, Math.min(AFTER_CLICK_MS, deadline - Date.now() - BEFORE_BOUND_MS));
    // A hook that failed has settled too: its error is answered below.
    if (
      !(await settlesWithin(
        answered.catch(() => {}),
        afterClickMs,
      ))
    ) {
      this.disarm(page, kind);
      const what = NOUN[kind];
      throw new ClawdError(
        'action_failed',
        `clicking ${ref} opened no ${what} within ${seconds(afterClickMs)}, so the hook was disarmed: use the ref of the element that opens the ${what}${kind === 'file-chooser' ? ' (the file input, or its button)' : ''}`,
      );
    }
    try {
      return await answered;
    } catch (error) {
      throw toAgentError(error, { what: `${kind} hook` });
    }
  }

  #arm<T>(page: Page, kind: HookKind, timeoutMs: number, install: Install<T>): Promise<T> {
    const armed = this.#armed[kind];
    armed.get(page)?.cancel(`replaced by a newer ${kind} hook`);
    return new Promise<T>((resolve, reject) => {
      let unhook = () => {};
      const done = () => {
        clearTimeout(timer);
        unhook();
        if (armed.get(page) === arm) armed.delete(page);
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new ClawdError(
            'action_timeout',
            `${kind} hook: no ${NOUN[kind]} opened within ${Math.round(timeoutMs / 1000)} s`,
          ),
        );
      }, timeoutMs);
      const arm: Arm = {
        cancel: (reason) => {
          done();
          reject(new ClawdError('action_failed', `${kind} hook ${reason}`));
        },
      };
      armed.set(page, arm);
      unhook = install((work) => {
        done();
        work.then(resolve, reject);
      });
    });
  }
}
