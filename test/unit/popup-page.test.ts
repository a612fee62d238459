// A held new tab's page as its hold's session tells it (relay/agent/actions/popup-page.ts): the
// error page of a load the person refused is stopped once parsed (Chrome would load it again by
// itself and the person be asked again), and only that one; the relay's /blocked page is said.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { PopupPage, showsBlockedPage, type PopupSession } from '../../relay/agent/actions/popup-page';

function standIn(href = 'about:blank') {
  const sent: string[] = [];
  const on = new Map<string, (e: any) => void>();
  const session: PopupSession = {
    on: (event, listener) => void on.set(event, listener),
    send: async (method) => {
      sent.push(method);
      return method === 'Runtime.evaluate' ? { result: { type: 'string', value: href } } : {};
    },
    blockedPage: (url) => url.startsWith('http://127.0.0.1:9/blocked?'),
  };
  const committed = (url: string, parentId?: string) =>
    on.get('Page.frameNavigated')!({
      frame: { id: parentId ? 'SUB' : 'MAIN', url, ...(parentId ? { parentId } : {}) },
    });
  const parsed = () => on.get('Page.domContentEventFired')!({ timestamp: 1 });
  return { session, sent, committed, parsed };
}

describe('a held new tab’s page', () => {
  afterEach(() => vi.useRealTimers());

  it('stops a refused load’s error page once parsed, once, and no other page', async () => {
    const tab = standIn();
    const blocked: string[] = [];
    const page = new PopupPage(tab.session, (frame) => void blocked.push(frame));
    tab.committed('chrome-error://chromewebdata/');
    tab.parsed();
    expect(tab.sent).toEqual([]); // nothing was refused: an error page of the page's own
    page.refused();
    tab.committed('chrome-error://chromewebdata/');
    tab.parsed();
    tab.parsed();
    expect(tab.sent).toEqual(['Page.stopLoading']);
    // Another document came instead of the error page: it is not stopped.
    page.refused();
    tab.committed('http://elsewhere/');
    tab.parsed();
    expect(tab.sent).toEqual(['Page.stopLoading']);
    // An error page long after the refusal is not the refused load's (the person's own, say).
    vi.useFakeTimers({ toFake: ['Date'] });
    page.refused();
    vi.setSystemTime(Date.now() + 60_000);
    tab.committed('chrome-error://chromewebdata/');
    tab.parsed();
    expect(tab.sent).toEqual(['Page.stopLoading']);
    expect(blocked).toEqual([]);
  });

  it('says when its main frame turns to the relay’s /blocked page, and reads whether it is there', async () => {
    const tab = standIn('http://127.0.0.1:9/blocked?url=a+form');
    const blocked: string[] = [];
    new PopupPage(tab.session, (frame) => void blocked.push(frame));
    tab.committed('http://127.0.0.1:9/blocked?url=x', 'MAIN'); // a frame inside it
    tab.committed('http://127.0.0.1:9/blocked?url=x');
    expect(blocked).toEqual(['MAIN']);
    expect(await showsBlockedPage(tab.session)).toBe(true);
    expect(await showsBlockedPage(standIn('http://a.test/').session)).toBe(false);
    expect(await showsBlockedPage({ ...tab.session, blockedPage: undefined })).toBe(false);
  });
});
