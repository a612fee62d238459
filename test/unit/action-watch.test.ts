// A call's watch on its tab's document requests (relay/agent/actions/action-watch.ts), against a
// stand-in CDP session: after the call's work it waits for what the call started — a load a frame
// asked for until its request shows and is judged, a redirect until its next hop — with no fixed
// grace, and once settled it judges on with the options it is given (what the call left running),
// each `use` apart: what an earlier one holds is neither waited for by the next call nor its answer.

import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ActionWatch, type WatchOptions } from '../../relay/agent/actions/action-watch';
import { FetchHold, type PausedRequest } from '../../relay/agent/actions/fetch-hold';
import { refusedLoadsEnded } from '../../relay/agent/actions/refused-loads';
import { quiet } from '../helpers/waits';

let ids = 0;

/** `evaluate`: what the page does before it answers a round trip (a slow page's answer, an event it sends first). */
function standIn(evaluate?: (emit: (event: string, e: unknown) => void) => Promise<void>) {
  const sent: string[] = [];
  const on = new Map<string, (e: any) => void>();
  const session = {
    on: (event: string, listener: (e: any) => void) => void on.set(event, listener),
    send: async (method: string, params: { requestId?: string } = {}) => {
      sent.push(params.requestId ? `${method} ${params.requestId}` : method);
      if (method === 'Runtime.evaluate' && evaluate) await evaluate((event, e) => on.get(event)?.(e));
      if (method === 'Page.getFrameTree') return { frameTree: { frame: { id: 'MAIN' } } };
      return {};
    },
    detach: async () => {},
  };
  // The tab's page: its events are the test's to send (a refused load's error page commits on it).
  const mainFrame = { url: () => 'chrome-error://chromewebdata/' };
  const page = Object.assign(new EventEmitter(), {
    context: () => ({ newCDPSession: async () => session }),
    mainFrame: () => mainFrame,
  }) as unknown as Page & EventEmitter;
  const pause = (e: Partial<PausedRequest> & { requestId: string; url: string }) =>
    on.get('Fetch.requestPaused')!({
      frameId: 'MAIN',
      networkId: e.requestId,
      request: { url: e.url, method: 'GET' },
      ...e,
    } as PausedRequest);
  /** The load's answer, at the response stage. */
  const answer = (requestId: string, url: string, status: number, header: [string, string]) =>
    pause({ requestId, url, responseStatusCode: status, responseHeaders: [{ name: header[0], value: header[1] }] });
  const requested = (frameId = 'MAIN') =>
    on.get('Page.frameRequestedNavigation')!({ frameId, disposition: 'currentTab' });
  // Each stand-in its own target: holds are kept by target id.
  return { page, mainFrame, id: `T${++ids}`, sent, pause, answer, requested };
}

function options(asked: string[], allow = true): WatchOptions {
  return {
    kinds: new Set(['new-site']),
    visited: new Set(['http://here']),
    asked: new Set(),
    ask: async (kinds, url) => {
      asked.push(`${kinds.join()} ${url}`);
      if (!allow) throw new Error('declined');
    },
    left: () => 5_000,
  };
}

/** A few event-loop turns: what the watch does next has happened by then. */
const turn = () => quiet(30);

/** The call's settle waits until a download begins at `url`, and throws the person's refusal of it. */
async function waitsForDownload(watch: ActionWatch, page: object, url: string): Promise<void> {
  let done = false;
  const settled = watch.settle().catch((error: Error) => {
    done = true;
    throw error;
  });
  await turn();
  expect(done).toBe(false);
  void ActionWatch.judgeDownload(page, url)?.catch(() => {});
  await expect(settled).rejects.toThrow('declined');
}

describe('a call’s watch on its tab', () => {
  it('declines a new tab whose hold comes on only after the watch ended: it is closed, never let run unjudged', async () => {
    const tab = standIn();
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options([]));
    let interceptionOn: () => void = () => {};
    const popupSent: string[] = [];
    const popup = {
      on: () => {},
      send: async (method: string) => {
        popupSent.push(method);
        if (method === 'Fetch.enable') await new Promise<void>((resolve) => (interceptionOn = resolve));
        return {};
      },
      detach: async () => void popupSent.push('detach'),
    };
    const adopting = FetchHold.adopt(tab.id, `${tab.id}-LATE`, popup);
    await turn();
    await watch.leave(); // window.open(…); window.close(): the call answered, its watch ended
    interceptionOn();
    await expect(adopting).rejects.toThrow('the watch that opened it ended');
    expect(popupSent).not.toContain('detach'); // detached, a paused page runs
  });

  it('stops waiting for a held new tab’s load made again once its page is the relay’s /blocked page', async () => {
    const tab = standIn();
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options([]));
    // A new tab the extension holds, shown paused (fetch-hold.ts `held`): its first load is made again.
    const on = new Map<string, (e: any) => void>();
    const popup = {
      on: (event: string, listener: (e: any) => void) => void on.set(event, listener),
      send: async () => ({}),
      detach: async () => {},
      blockedPage: (url: string) => url.startsWith('http://relay/blocked?'),
    };
    expect(await FetchHold.adopt(tab.id, `${tab.id}-POPUP`, popup, 'held')).toBe(true);
    let done = false;
    const settled = watch.settle().finally(() => (done = true));
    await turn();
    expect(done).toBe(false); // the load made again is waited for
    on.get('Page.frameNavigated')!({ frame: { id: `${tab.id}-POPUP`, url: 'http://relay/blocked?url=a+form' } });
    await turn();
    expect(done).toBe(true); // at once, not at the bound
    await settled;
    await watch.leave();
  });

  it('waits for a load a frame asked for until its request is judged, and throws a refusal', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options(asked, false));
    tab.requested();
    let done = false;
    const settled = watch.settle().finally(() => (done = true));
    await turn();
    expect(done).toBe(false);
    tab.pause({ requestId: 'N1', url: 'http://there/' });
    await expect(settled).rejects.toThrow('declined');
    expect(asked).toEqual(['new-site http://there/']);
    expect(tab.sent).toContain('Fetch.failRequest N1');
    // The tab's next call waits for the refused load's error page to commit in the main frame …
    let next = false;
    void refusedLoadsEnded(tab.page).then(() => (next = true));
    await turn();
    expect(next).toBe(false);
    tab.page.emit('framenavigated', tab.mainFrame);
    tab.page.emit('domcontentloaded', tab.page);
    await turn();
    expect(next).toBe(true);
    // … and its page is stopped there, once parsed: Chrome's own reload of the error page is called off.
    expect(tab.sent).toContain('Page.stopLoading');
  });

  it('keeps a redirect’s load until its next hop, which is judged too', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options(asked));
    tab.pause({ requestId: 'N1', url: 'http://here/go' });
    tab.answer('N1', 'http://here/go', 302, ['Location', 'http://there/']);
    let done = false;
    const settled = watch.settle().finally(() => (done = true));
    await turn();
    expect(done).toBe(false);
    tab.pause({ requestId: 'N1', url: 'http://there/' });
    await turn();
    tab.pause({ requestId: 'N1', url: 'http://there/', responseStatusCode: 200, responseHeaders: [] });
    await settled;
    expect(asked).toEqual(['new-site http://there/']);
  });

  it('waits for a new tab its page asked for before a slow catch-up answered (a loaded extension worker)', async () => {
    // Each round trip answers after 400 ms, the first with the page's ask for a new tab (a
    // script's Ctrl-click) sent just before: the call waits for that tab, not only 250 ms.
    let first = true;
    const tab = standIn(async (emit) => {
      await quiet(400);
      if (first) emit('Page.frameRequestedNavigation', { frameId: 'MAIN', disposition: 'newTab' });
      first = false;
    });
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options([]));
    let done = false;
    const settled = watch.settle().finally(() => (done = true));
    await quiet(700);
    expect(done).toBe(false);
    await watch.leave(); // its hold gone, no new tab is waited for
    await settled;
  });

  it('settles at once when the call started nothing, and judges on with what it is given after', async () => {
    const tab = standIn();
    const during: string[] = [];
    const after: string[] = [];
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options(during));
    await watch.settle();
    watch.use(options(after, false));
    tab.pause({ requestId: 'N2', url: 'http://elsewhere/' });
    await turn();
    expect(during).toEqual([]);
    expect(after).toEqual(['new-site http://elsewhere/']);
    expect(tab.sent).toContain('Fetch.failRequest N2');
    // A question of that time still open, its load held: the next call neither waits for it
    // nor answers its refusal.
    let refuse: (() => void) | undefined;
    watch.use({
      ...options(after),
      ask: () => new Promise<void>((_, reject) => (refuse = () => reject(new Error('declined later')))),
    });
    tab.pause({ requestId: 'L1', url: 'http://later/' });
    await turn();
    watch.use(options(during));
    await watch.settle();
    refuse!();
    await turn();
    expect(tab.sent).toContain('Fetch.failRequest L1');
    await watch.settle();
    await watch.leave();
    expect(tab.sent).toContain('Fetch.disable');
  });

  it('judges a hop of what an earlier use left without making it the next call’s wait or answer', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options(asked));
    await watch.settle();
    watch.use(options(asked));
    // What the call left: a load that redirects once the next call runs.
    tab.pause({ requestId: 'L1', url: 'http://here/later' });
    watch.use(options(asked, false));
    tab.answer('L1', 'http://here/later', 302, ['Location', 'http://away/']);
    tab.pause({ requestId: 'L1', url: 'http://away/' });
    await watch.settle();
    expect(asked).toEqual(['new-site http://away/']);
    expect(tab.sent).toContain('Fetch.failRequest L1');
  });

  it('answers another watch’s refusal of its own download, told after the answer was judged', async () => {
    const tab = standIn();
    const call = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, options([]));
    const other = await ActionWatch.start(
      { page: tab.page, targetId: tab.id, browser: 'B' },
      {
        ...options([], false),
        kinds: new Set(['download']),
      },
    );
    tab.pause({ requestId: 'D1', url: 'http://here/file' });
    tab.answer('D1', 'http://here/file', 200, ['Content-Disposition', 'attachment; filename="a.txt"']);
    await expect(call.settle()).rejects.toThrow('declined');
    await other.leave();
  });

  it('asks about a download no answer asked about as it begins; a refusal is the call’s, one allowed at its answer is not asked again', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const downloads = (allow: boolean) => ({ ...options(asked, allow), kinds: new Set(['download'] as const) });
    const watch = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, downloads(false));
    const refused = ActionWatch.judgeDownload(tab.page, 'blob:http://here/1');
    await expect(refused).rejects.toThrow('declined');
    await expect(watch.settle()).rejects.toThrow('declined');
    // Allowed at its document answer: its beginning is not asked about again (the next one is).
    watch.use(downloads(true));
    tab.pause({ requestId: 'D2', url: 'http://here/file' });
    tab.answer('D2', 'http://here/file', 200, ['Content-Disposition', 'attachment']);
    await watch.settle();
    expect(ActionWatch.judgeDownload(tab.page, 'http://here/file')).toBeUndefined();
    await ActionWatch.judgeDownload(tab.page, 'http://here/file');
    expect(asked).toEqual(['download blob:http://here/1', 'download http://here/file', 'download http://here/file']);
    // Its call asked first (a download hook): not asked again; and no watch, no question.
    watch.use({ ...downloads(true), asked: new Set(['download']) });
    expect(ActionWatch.judgeDownload(tab.page, 'blob:http://here/2')).toBeUndefined();
    await watch.leave();
    expect(ActionWatch.judgeDownload(tab.page, 'blob:http://here/3')).toBeUndefined();
  });

  it('waits after a document answer no navigation made (a download attribute’s) until it begins as a download', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const watch = await ActionWatch.start(
      { page: tab.page, targetId: tab.id, browser: 'B' },
      { ...options(asked, false), kinds: new Set(['download']) },
    );
    tab.pause({ requestId: 'R1', url: 'http://here/note', networkId: undefined });
    tab.pause({
      requestId: 'R1',
      url: 'http://here/note',
      networkId: undefined,
      responseStatusCode: 200,
      responseHeaders: [{ name: 'Content-Type', value: 'text/plain' }],
    });
    await waitsForDownload(watch, tab.page, 'http://here/note');
    expect(asked).toEqual(['download http://here/note']);
    await watch.leave();
  });

  it('waits after a click on a link that says download until a download begins (its request may come after the call), whatever its address', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const watch = await ActionWatch.start(
      { page: tab.page, targetId: tab.id, browser: 'B' },
      { ...options(asked, false), kinds: new Set(['download']) },
    );
    watch.expectDownload();
    await waitsForDownload(watch, tab.page, 'http://here/moved-note');
    expect(asked).toEqual(['download http://here/moved-note']);
    // Begun while the call's work ran (a `blob:` one before the click answers): not waited for again.
    watch.use({ ...options(asked), kinds: new Set(['download']) });
    await ActionWatch.judgeDownload(tab.page, 'blob:http://here/made');
    watch.expectDownload();
    const first = (work: Promise<void>) => Promise.race([work.then(() => 'settled'), quiet(500).then(() => 'waiting')]);
    expect(await first(watch.settle())).toBe('settled');
    // Asked before the call already: nothing is waited for.
    watch.use({ ...options(asked), kinds: new Set(['download']), asked: new Set(['download']) });
    watch.expectDownload();
    expect(await first(watch.settle())).toBe('settled');
    await watch.leave();
  });

  it('judges a download by the newest watch on the page, and by the one still on after the newest left', async () => {
    const tab = standIn();
    const asked: string[] = [];
    const judging = (who: string) => ({
      ...options(asked),
      kinds: new Set(['download'] as const),
      ask: async (_kinds: unknown, url: string) => void asked.push(`${who} ${url}`),
    });
    const older = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, judging('older'));
    const newer = await ActionWatch.start({ page: tab.page, targetId: tab.id, browser: 'B' }, judging('newer'));
    await ActionWatch.judgeDownload(tab.page, 'blob:1');
    await newer.leave();
    await ActionWatch.judgeDownload(tab.page, 'blob:2');
    await older.leave();
    expect(ActionWatch.judgeDownload(tab.page, 'blob:3')).toBeUndefined();
    expect(asked).toEqual(['newer blob:1', 'older blob:2']);
  });
});
