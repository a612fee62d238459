// The questions waiting for the person, as notifications of their own browser: the relay sends the
// whole list whenever it changes (and on connect), so a question reaches the person when the side
// panel is closed. Allow and Deny there are the side panel's answer (no agent can press a
// notification: it is the browser's own UI, outside every tab). A question no longer waiting is
// cleared. The listener is registered when the worker starts, so a press wakes a sleeping worker.

import type { AskNotice } from '../../shared/consent-state';
import type { PersonFrame } from '../../shared/protocol';

/** Question ids are the notification ids (q + 12 hex digits): only ours are cleared. */
const QUESTION_ID = /^q[0-9a-f]{12}$/;
const ALLOW = 0;

export class AskNotifications {
  constructor(private readonly say: (say: PersonFrame['say']) => void) {
    chrome.notifications.onButtonClicked.addListener((id, button) => {
      if (!QUESTION_ID.test(id)) return;
      this.say({ answer: id, allow: button === ALLOW });
      void chrome.notifications.clear(id);
    });
  }

  /** The questions waiting now: each shown once, those gone cleared. */
  async show(asks: readonly AskNotice[]): Promise<void> {
    const shown = Object.keys(await chrome.notifications.getAll()).filter((id) => QUESTION_ID.test(id));
    const waiting = new Set(asks.map((a) => a.id));
    await Promise.all([
      ...shown.filter((id) => !waiting.has(id)).map((id) => chrome.notifications.clear(id)),
      ...asks
        .filter((a) => !shown.includes(a.id))
        .map((a) =>
          chrome.notifications.create(a.id, {
            type: 'basic',
            iconUrl: 'icons/icon128.png',
            title: a.title,
            message: a.message,
            ...(a.typed ? {} : { buttons: [{ title: 'Allow' }, { title: 'Deny' }] }),
            requireInteraction: true,
            priority: 2,
          }),
        ),
    ]);
  }
}
