// What the agent layer remembers about each Playwright page: its CDP target id (pages are found
// by the ids /tabs shows), the last console messages (500) and page errors (200), and its
// requests (network-log.ts). Listeners
// are installed once per page and go with it. Dialogs nobody armed a hook for are dismissed or
// left to the person, as the profile's driver says (PagePolicy); either way they are recorded.

import type { Browser, ConsoleMessage, Dialog, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import type { Logger } from '../../log';
import type { ConsoleEntry } from '../../operations/page-operations';
import type { PagePolicy } from '../../profiles/profile-driver';
import { matchTab } from '../../profiles/tabs';
import { seconds, within } from '../../time-limit';
import { NetworkLog } from '../network/network-log';

export interface PageState {
  console: ConsoleEntry[];
  /** Its requests (the last 1,000). */
  network: NetworkLog;
  errors: ConsoleEntry[];
  /** A hook armed for the next dialog (see hooks.ts). */
  dialogArm?: (dialog: Dialog) => boolean;
  /** The page's renderer died (Inspector.targetCrashed): Playwright's page is gone for good. */
  crashed: boolean;
}

/** Asking a tab its id is one CDP round trip. */
const TARGET_ID_MS = 5_000;
const LIMITS = { console: 500, errors: 200 };

function push<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

export class PageTracker {
  readonly #states = new WeakMap<Page, PageState>();

  constructor(private readonly log: Logger) {}

  readonly #targetIds = new WeakMap<Page, Promise<string>>();

  /** The page's state, installing its listeners the first time. */
  state(page: Page, dialogs: PagePolicy['unarmedDialogs']): PageState {
    let state = this.#states.get(page);
    if (state) return state;
    const fresh: PageState = {
      console: [],
      network: new NetworkLog(page, this.targetId(page), this.log),
      errors: [],
      crashed: false,
    };
    state = fresh;
    this.#states.set(page, fresh);
    const now = () => new Date().toISOString();
    page.on('console', (message: ConsoleMessage) => {
      const location = message.location();
      push(
        fresh.console,
        {
          type: message.type(),
          text: message.text(),
          ...(location.url ? { url: location.url, line: location.lineNumber } : {}),
          time: now(),
        },
        LIMITS.console,
      );
    });
    page.on('crash', () => (fresh.crashed = true));
    page.on('pageerror', (error) =>
      push(fresh.errors, { type: 'pageerror', text: error.message, time: now() }, LIMITS.errors),
    );
    // A listener is always present so Playwright never auto-dismisses a user's dialog unasked.
    page.on('dialog', (dialog: Dialog) => {
      push(
        fresh.console,
        { type: 'dialog', text: `${dialog.type()}: ${dialog.message()}`, time: now() },
        LIMITS.console,
      );
      if (fresh.dialogArm?.(dialog)) return;
      if (dialogs === 'dismiss') void dialog.dismiss().catch(() => {});
    });
    return fresh;
  }

  /** The CDP target id of a page (the id /tabs and /json/list show), asked once. */
  targetId(page: Page): Promise<string> {
    let id = this.#targetIds.get(page);
    if (!id) {
      // Bounded: a page that never answers would otherwise hold up finding every other page.
      const asked = (async () => {
        const session = await page.context().newCDPSession(page);
        try {
          const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
          return targetInfo.targetId;
        } finally {
          await session.detach().catch(() => {});
        }
      })();
      id = within(
        asked,
        TARGET_ID_MS,
        () =>
          new ClawdError(
            'command_timeout',
            `the browser did not say which tab ${page.url()} is within ${seconds(TARGET_ID_MS)}`,
          ),
      );
      this.#targetIds.set(page, id);
      id.catch(() => this.#targetIds.delete(page));
    }
    return id;
  }

  /**
   * The page with that target id (or unique prefix); without one, `preferred` if open, else the
   * first. A tab opened a moment ago may be listed by /tabs before Playwright has attached to it,
   * so an id that is not found yet is looked for again for up to 2 s.
   */
  async find(
    browser: Browser,
    targetId: string | undefined,
    preferred: string | undefined,
    noTabs: string,
  ): Promise<{ page: Page; targetId: string }> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const pages = browser.contexts().flatMap((c) => c.pages());
      const ids = await Promise.all(pages.map((p) => this.targetId(p).catch(() => '')));
      const tabs = pages
        .map((_, i) => ({ targetId: ids[i]!, title: '', url: pages[i]!.url(), type: 'page' }))
        .filter((t) => t.targetId !== '');
      try {
        if (tabs.length === 0) throw new ClawdError('target_not_found', noTabs);
        const wanted = targetId ?? (preferred && ids.includes(preferred) ? preferred : tabs[0]!.targetId);
        const tab = matchTab(tabs, wanted);
        return { page: pages[ids.indexOf(tab.targetId)]!, targetId: tab.targetId };
      } catch (error) {
        if ((error as ClawdError).code !== 'target_not_found' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}
