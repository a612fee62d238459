// Arming hooks (spec 002): the next file chooser or dialog on a page is answered as the agent
// said, within timeoutMs (default and maximum 2 minutes). The last arm wins: a new arm replaces
// the previous one on that page. Arming happens before the click that opens the chooser or
// dialog, because waiting for an event that is already on screen is a race.

import type { Dialog, FileChooser, Page } from 'playwright-core';
import { ClawdError } from '../errors';
import type { PageState } from './page-tracker';

export const MAX_ARM_MS = 120_000;

export function armTimeout(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(MAX_ARM_MS, Math.max(500, Math.round(value))) : MAX_ARM_MS;
}

interface Arm {
  cancel(reason: string): void;
}

export class Hooks {
  readonly #choosers = new WeakMap<Page, Arm>();
  readonly #dialogs = new WeakMap<Page, Arm>();

  /** Withdraws the page's armed hook of that kind, if any (its promise rejects). */
  disarm(page: Page, hook: 'file-chooser' | 'dialog'): void {
    (hook === 'dialog' ? this.#dialogs : this.#choosers).get(page)?.cancel('disarmed');
  }

  /** Resolves with the file names once the next chooser got them. */
  armFileChooser(page: Page, paths: string[], timeoutMs: number): Promise<string[]> {
    this.#choosers.get(page)?.cancel('replaced by a newer file-chooser hook');
    return new Promise<string[]>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        page.off('filechooser', onChooser);
        if (this.#choosers.get(page) === arm) this.#choosers.delete(page);
      };
      const onChooser = (chooser: FileChooser) => {
        done();
        chooser.setFiles(paths).then(() => resolve(paths), reject);
      };
      const timer = setTimeout(() => {
        done();
        reject(new ClawdError('action_timeout', `file-chooser hook: no file chooser opened within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const arm: Arm = {
        cancel: (reason) => {
          done();
          reject(new ClawdError('action_failed', `file-chooser hook ${reason}`));
        },
      };
      // Playwright intercepts the chooser while a listener is attached, so no native dialog opens.
      page.on('filechooser', onChooser);
      this.#choosers.set(page, arm);
    });
  }

  /** Resolves with the dialog's type and message once the next dialog was answered. */
  armDialog(page: Page, state: PageState, accept: boolean, promptText: string | undefined, timeoutMs: number): Promise<{ type: string; message: string }> {
    this.#dialogs.get(page)?.cancel('replaced by a newer dialog hook');
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        if (state.dialogArm === handle) state.dialogArm = undefined;
        if (this.#dialogs.get(page) === arm) this.#dialogs.delete(page);
      };
      const handle = (dialog: Dialog): boolean => {
        done();
        const answered = accept ? dialog.accept(promptText) : dialog.dismiss();
        answered.then(() => resolve({ type: dialog.type(), message: dialog.message() }), reject);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(new ClawdError('action_timeout', `dialog hook: no dialog opened within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const arm: Arm = {
        cancel: (reason) => {
          done();
          reject(new ClawdError('action_failed', `dialog hook ${reason}`));
        },
      };
      state.dialogArm = handle;
      this.#dialogs.set(page, arm);
    });
  }
}
