// The hold a tab's watches share (relay/agent/actions/fetch-hold.ts), against a stand-in CDP session:
// through the relay a tab has one debugger session, so a request must go only when every watch
// lets it, fail when one refuses, and interception must end with the last watch — never under a
// watch that joined while it was ending.

import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FetchHold, type HoldMember, type PausedRequest, type Place } from '../../relay/agent/actions/fetch-hold';
import { quiet } from '../helpers/waits';

/** `evaluate`: what the page does before it answers a round trip (a slow answer, an event sent first). */
function standIn(mainFrame = 'MAIN', evaluate?: (emit: (event: string, e: object) => void) => Promise<void>) {
  const sent: string[] = [];
  const listeners: Array<(e: PausedRequest) => void> = [];
  const others = new Map<string, (e: { frameId: string; disposition?: string }) => void>();
  let sessions = 0;
  let disabling: (() => void) | undefined;
  const session = {
    on: (event: string, listener: (e: any) => void) =>
      void (event === 'Fetch.requestPaused' ? listeners.push(listener) : others.set(event, listener)),
    send: async (method: string, params: { requestId?: string } = {}) => {
      sent.push(params.requestId ? `${method} ${params.requestId}` : method);
      if (method === 'Runtime.evaluate' && evaluate) await evaluate((event, e) => others.get(event)?.(e as any));
      if (method === 'Page.getFrameTree') return { frameTree: { frame: { id: mainFrame } } };
      // The test decides when a Fetch.disable is answered.
      if (method === 'Fetch.disable') await new Promise<void>((resolve) => (disabling = resolve));
      return {};
    },
    detach: async () => void sent.push('detach'),
  };
  const page = Object.assign(new EventEmitter(), {
    context: () => ({
      newCDPSession: async () => {
        sessions++;
        return session;
      },
    }),
    mainFrame: () => ({}),
  }) as unknown as Page;
  const pause = (requestId: string) =>
    listeners.at(-1)!({
      requestId,
      request: { url: 'http://a/', method: 'POST' },
      frameId: mainFrame,
    } as PausedRequest);
  const tell = (event: string, frameId: string) => others.get(event)!({ frameId, disposition: 'currentTab' });
  return { page, session, sent, pause, tell, sessions: () => sessions, answerDisable: () => disabling?.() };
}

/** A watch that does not follow the frames' loads. */
const heedless = { requested: () => {}, stopped: () => {}, opening: () => {}, adopted: () => {} };

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the hold a tab’s watches share', () => {
  it('lets a request go only when every watch does, fails it when one refuses, and ends with the last watch', async () => {
    const tab = standIn();
    let answer: { allow(): void; deny(): void } | undefined;
    const told: string[] = [];
    const places: Place[] = [];
    const letsGo = await FetchHold.join(
      { page: tab.page, targetId: 'T1', browser: 'B' },
      {
        judge: (_paused, place) => void places.push(place),
        failed: (paused, error) => void told.push(`${paused.requestId}: ${error.message}`),
        ...heedless,
      },
    );
    const asks = await FetchHold.join(
      { page: tab.page, targetId: 'T1', browser: 'B' },
      {
        judge: () =>
          new Promise<void>((resolve, reject) => {
            answer = { allow: resolve, deny: () => reject(new Error('no')) };
          }),
        failed: () => {},
        ...heedless,
      },
    );
    expect(tab.sessions()).toBe(1);
    expect(tab.sent.filter((m) => m === 'Fetch.enable')).toHaveLength(1);
    tab.pause('R1');
    await settle();
    expect(places).toEqual([{ mainFrame: true, popup: false }]);
    // One watch let it go; the other asks: it waits.
    expect(tab.sent.filter((m) => m.endsWith('R1'))).toEqual([]);
    answer!.allow();
    await settle();
    expect(tab.sent.filter((m) => m.endsWith('R1'))).toEqual(['Fetch.continueRequest R1']);
    tab.pause('R2');
    answer!.deny();
    await settle();
    expect(tab.sent.filter((m) => m.endsWith('R2'))).toEqual(['Fetch.failRequest R2']);
    // The watch that let it go hears why it will not be answered (its call answers the refusal).
    expect(told).toEqual(['R2: no']);
    // The first to leave ends nothing.
    await letsGo.leave();
    expect(tab.sent).not.toContain('Fetch.disable');
    // The last does; a watch joining meanwhile waits for that end, then holds the tab again.
    const leaving = asks.leave();
    await settle();
    let joined = false;
    const next = FetchHold.join(
      { page: tab.page, targetId: 'T1', browser: 'B' },
      { judge: () => undefined, failed: () => {}, ...heedless },
    ).then((member) => {
      joined = true;
      return member;
    });
    await settle();
    expect(joined).toBe(false);
    tab.answerDisable();
    await leaving;
    await next;
    expect(tab.sent.filter((m) => /^(Fetch\.(enable|disable)|detach)$/.test(m))).toEqual([
      'Fetch.enable',
      'Fetch.disable',
      'detach',
      'Fetch.enable',
    ]);
  });

  it('tells every watch when a frame asks to load a page in the tab, and when it stops loading', async () => {
    const tab = standIn();
    const heard: string[] = [];
    const member = await FetchHold.join(
      { page: tab.page, targetId: 'T2', browser: 'B' },
      {
        judge: () => undefined,
        failed: () => {},
        requested: (frame) => void heard.push(`requested ${frame}`),
        stopped: (frame) => void heard.push(`stopped ${frame}`),
        opening: () => void heard.push('opening'),
        adopted: () => {},
      },
    );
    expect(tab.sent).toContain('Page.enable');
    tab.tell('Page.frameRequestedNavigation', 'MAIN');
    tab.tell('Page.frameStoppedLoading', 'MAIN');
    tab.tell('Page.navigatedWithinDocument', 'SUB');
    tab.tell('Page.windowOpen', 'MAIN');
    expect(heard).toEqual(['requested MAIN', 'stopped MAIN', 'stopped SUB', 'opening']);
    await member.caughtUp(1_000);
    expect(tab.sent).toContain('Runtime.evaluate');
  });

  it('names a held tab whose slow answer came after its ask for a new tab as that tab’s opener', async () => {
    // The page's round trip answers in 400 ms (a loaded extension worker), its ask for a new tab
    // (a script's Ctrl-click: no opener on the new page) sent just before: the hold waits for it.
    let asks = 1;
    const tab = standIn('MAIN', async (emit) => {
      await quiet(400);
      if (asks-- > 0) emit('Page.frameRequestedNavigation', { frameId: 'MAIN', disposition: 'newTab' });
    });
    const member = await FetchHold.join({ page: tab.page, targetId: 'T-SLOW', browser: 'SLOW' }, heedless as never);
    expect(await FetchHold.expected('SLOW')).toBe('T-SLOW');
    const leaving = member.leave();
    await settle();
    tab.answerDisable();
    await leaving;
  });

  it('refuses a pop-up whose only watch ended while it was being held, leaving it paused and its session attached', async () => {
    // window.open(…); window.close(): the call's watch may end (its page gone) before the new tab's
    // hold is on. Left through the hold, its session would be detached and the page run unjudged.
    const tab = standIn();
    const popup = standIn('POPUP9');
    await FetchHold.join(
      { page: tab.page, targetId: 'OPENER9', browser: 'B' },
      { judge: () => undefined, failed: () => {}, ...heedless, adopted: () => false },
    );
    await expect(FetchHold.adopt('OPENER9', 'POPUP9', popup.session)).rejects.toThrow('the watch that opened it ended');
    expect(popup.sent).not.toContain('Fetch.disable');
    expect(popup.sent).not.toContain('detach');
  });

  it('holds a pop-up of a held tab for the tab’s watches: judged as the tab’s, left with them; none of an unheld tab', async () => {
    const tab = standIn();
    const popup = standIn('POPUP1');
    const places: Place[] = [];
    const adopted: string[] = [];
    let inPopup: HoldMember | undefined;
    const member = await FetchHold.join(
      { page: tab.page, targetId: 'OPENER', browser: 'B' },
      {
        judge: (_paused, place) => void places.push(place),
        failed: () => {},
        ...heedless,
        adopted: (held, mainFrame) => {
          adopted.push(mainFrame ?? 'loaded');
          inPopup = held;
        },
      },
    );
    expect(await FetchHold.adopt('NOBODY', 'POPUP0', popup.session)).toBe(false);
    expect(popup.sent).toEqual([]);
    expect(await FetchHold.adopt('OPENER', 'POPUP1', popup.session)).toBe(true);
    // Its interception was on before it was said adopted (the pop-up runs after that); nothing
    // its paused page would answer only once it runs is waited for.
    expect(popup.sent).toEqual(['Fetch.enable', 'Page.enable']);
    expect(adopted).toEqual(['POPUP1']);
    popup.pause('P1');
    await settle();
    expect(places).toEqual([{ mainFrame: true, popup: true }]);
    expect(popup.sent).toContain('Fetch.continueRequest P1');
    // The opener's watch leaving its tab does not let the pop-up go: it still judges it.
    const tabLeaving = member.leave();
    await settle();
    tab.answerDisable();
    await tabLeaving;
    expect(tab.sent).toContain('Fetch.disable');
    expect(popup.sent).not.toContain('Fetch.disable');
    expect(inPopup!.gone).toBe(false);
    // A watch of the pop-up's own later joins that hold, not a new one, and takes it over: the
    // person is not asked twice (as the pop-up's, and as the opener's).
    const own = await FetchHold.join(
      { page: popup.page, targetId: 'POPUP1', browser: 'B' },
      { judge: (_paused, place) => void places.push(place), failed: () => {}, ...heedless },
    );
    expect(popup.sessions()).toBe(0);
    expect(inPopup!.gone).toBe(true);
    places.length = 0;
    popup.pause('P2');
    await settle();
    expect(places).toEqual([{ mainFrame: true, popup: false }]);
    await inPopup!.leave();
    expect(popup.sent).not.toContain('Fetch.disable');
    const leaving = own.leave();
    await settle();
    popup.answerDisable();
    await leaving;
    expect(popup.sent.slice(-2)).toEqual(['Fetch.disable', 'detach']);
  });
});
