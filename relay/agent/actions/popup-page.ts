// A held new tab's own page, read on its hold's session (fetch-hold.ts): whether it shows the
// relay's /blocked page (no load made again is coming), and a refused load's error page stopped
// once parsed — Chrome loads it again by itself after 1 s, 5 s …, and the person was asked again.

import type { Protocol } from 'devtools-protocol';
import { within } from '../../time-limit';
import { REFUSED_LOAD_MS } from './refused-loads';

/** What of a pop-up's session this reads. */
export interface PopupSession {
  send(method: string, params?: object): Promise<any>;
  on(event: string, listener: (params: any) => void): void;
  /** Whether `url` is the relay's /blocked page (a pop-up's session where the browser is the relay). */
  blockedPage?(url: string): boolean;
}

/** How long a held new tab's address may take to be read (it runs already: at once, unless its page is busy). */
const ADDRESS_MS = 1_000;
/** The most the stop of an error page may take (one command). */
const STOP_MS = 1_000;

/** Whether a held new tab's page is the relay's /blocked page now (read once its interception is on: a later load is seen). */
export async function showsBlockedPage(session: PopupSession): Promise<boolean> {
  if (!session.blockedPage) return false;
  const read = session.send('Runtime.evaluate', { expression: 'location.href', returnByValue: true });
  const href = await within(read, ADDRESS_MS, () => new Error('late')).then(
    (answer: { result?: { value?: unknown } }) => answer.result?.value,
    () => undefined,
  );
  return typeof href === 'string' && session.blockedPage(href);
}

/** A pop-up's main frame, followed from its hold's session (its listeners go with the session). */
export class PopupPage {
  /** The page its main frame last committed. */
  #shown = '';
  /** Until when the error page of a refused load is looked for (a later one, the person's own, is theirs). */
  #errorPageDue = 0;

  /** `blocked`: its main frame turned to the relay's /blocked page. */
  constructor(session: PopupSession, blocked: (frameId: string) => void) {
    session.on('Page.frameNavigated', (e: Protocol.Page.FrameNavigatedEvent) => {
      if (e.frame.parentId !== undefined) return;
      this.#shown = e.frame.url;
      if (!this.#shown.startsWith('chrome-error:')) this.#errorPageDue = 0; // another document came instead
      if (session.blockedPage?.(this.#shown)) blocked(e.frame.id);
    });
    // Stopped before its DOM is parsed, an error page never says it is (refused-loads.ts).
    session.on('Page.domContentEventFired', () => {
      if (Date.now() > this.#errorPageDue || !this.#shown.startsWith('chrome-error:')) return;
      this.#errorPageDue = 0;
      void within(session.send('Page.stopLoading'), STOP_MS, () => new Error('no stop')).catch(() => {});
    });
  }

  /** Its main frame's load was refused: the error page that comes is stopped once parsed. */
  refused(): void {
    this.#errorPageDue = Date.now() + REFUSED_LOAD_MS;
  }
}
