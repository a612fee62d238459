// The pop-up hold (relay/agent/actions/popup-holds.ts) against a stand-in browser socket: a new page
// opened by a watched tab is held for that tab's watches — its interception on before the word to
// run it — and any other new page is let run at once and let go; one that cannot be held is closed.

import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { FetchHold } from '../../relay/agent/actions/fetch-hold';
import { PopupHolds } from '../../relay/agent/actions/popup-holds';
import { silentLogger } from '../../relay/log';
import { quiet, until } from '../helpers/waits';

/** A browser socket that answers every command and records them (`method sessionId`). */
async function standInBrowser(
  refuse: (method: string, sessionId?: string) => boolean = () => false,
  results: (method: string, sessionId?: string) => object = () => ({}),
) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const got: string[] = [];
  let socket: WebSocket | undefined;
  const state = { closed: false };
  server.on('connection', (ws) => {
    socket = ws;
    ws.on('close', () => (state.closed = true));
    ws.on('message', (data) => {
      const { id, method, sessionId } = JSON.parse(data.toString());
      got.push(sessionId ? `${method} ${sessionId}` : method);
      ws.send(
        JSON.stringify(
          refuse(method, sessionId) ? { id, error: { message: 'no' } } : { id, result: results(method, sessionId) },
        ),
      );
    });
  });
  const attach = (targetId: string, openerId?: string, waiting = true, url = '') =>
    socket!.send(
      JSON.stringify({
        method: 'Target.attachedToTarget',
        params: {
          sessionId: `S-${targetId}`,
          targetInfo: { targetId, type: 'page', url, ...(openerId ? { openerId } : {}) },
          waitingForDebugger: waiting,
        },
      }),
    );
  /** An event of an attached target's session. */
  const event = (sessionId: string, method: string, params: object) =>
    socket!.send(JSON.stringify({ method, params, sessionId }));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, got, attach, event, state, close: () => server.close() };
}

/** A tab with a watch's hold on it (fetch-hold.ts), so its pop-ups are adopted. */
async function heldTab(targetId: string) {
  const listeners = new Map<string, (e: unknown) => void>();
  const session = {
    on: (event: string, listener: (e: unknown) => void) => void listeners.set(event, listener),
    send: async () => ({ frameTree: { frame: { id: targetId } } }),
    detach: async () => {},
  };
  const page = { context: () => ({ newCDPSession: async () => session }) } as unknown as Page;
  const judge = { judge: () => undefined, failed: () => {}, requested: () => {}, stopped: () => {}, opening: () => {} };
  const adopted: string[] = [];
  const blocked: string[] = [];
  const member = await FetchHold.join(
    { page, targetId, browser: 'B1' },
    {
      ...judge,
      adopted: (_m, frame, madeAgain) => void adopted.push(`${frame ?? 'loaded'}${madeAgain ? ' made again' : ''}`),
      blocked: (frame) => void blocked.push(frame),
    },
  );
  /** Its page asks for a link to open in a new tab with no opener link (a Ctrl or middle click). */
  const asksNewTab = () =>
    listeners.get('Page.frameRequestedNavigation')!({ frameId: targetId, disposition: 'newTab', url: 'http://x/' });
  return { adopted, blocked, asksNewTab, leave: () => member.leave() };
}

describe('the pop-up hold', () => {
  const closing: Array<() => void> = [];
  afterEach(() => {
    for (const close of closing.splice(0)) close();
  });

  it('holds a watched tab’s pop-up for its watch before it runs, and lets any other page run and go', async () => {
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-1');
    await holds.hold('B1', async () => ({ url: browser.url }));
    // New pages held before they run, and document requests at the browser (a tab Chrome opens on its own).
    expect(browser.got).toEqual(['Target.setAutoAttach', 'Fetch.enable']);
    // Connected once: asked again, it does not connect again.
    await holds.hold('B1', async () => {
      throw new Error('not asked');
    });

    browser.attach('OTHER', 'SOMEONE');
    await until('the other page let go', () => browser.got.includes('Target.detachFromTarget'));
    expect(browser.got.slice(2)).toEqual(['Runtime.runIfWaitingForDebugger S-OTHER', 'Target.detachFromTarget']);

    browser.got.length = 0;
    browser.attach('POPUP-1', 'OPENER-1');
    await until('the pop-up let run', () => browser.got.includes('Runtime.runIfWaitingForDebugger S-POPUP-1'));
    expect(browser.got).toEqual([
      'Fetch.enable S-POPUP-1',
      'Page.enable S-POPUP-1',
      'Runtime.runIfWaitingForDebugger S-POPUP-1',
    ]);
    expect(tab.adopted).toEqual(['POPUP-1']);
    await tab.leave();
  });

  it('closes a watched tab’s pop-up that cannot be held rather than let it run unjudged', async () => {
    const browser = await standInBrowser((method, sessionId) => method === 'Fetch.enable' && sessionId !== undefined);
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-2');
    await holds.hold('B2', async () => ({ url: browser.url }));
    browser.attach('POPUP-2', 'OPENER-2');
    await until('the pop-up closed', () => browser.got.includes('Target.closeTarget'));
    await quiet(50);
    // Neither let run nor let go (a detach would let it run): closed while paused.
    expect(browser.got.slice(2)).toEqual(['Fetch.enable S-POPUP-2', 'Target.closeTarget']);
    expect(tab.adopted).toEqual([]);
    await tab.leave();
  });

  it('holds a new tab with no opener named for the held tab that asked for one (a Ctrl or middle click)', async () => {
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-3');
    await holds.hold('B1', async () => ({ url: browser.url }));
    // Asked for by nobody: let run.
    browser.attach('TYPED');
    await until('the page let go', () => browser.got.includes('Target.detachFromTarget'));
    tab.asksNewTab();
    browser.got.length = 0;
    browser.attach('CTRL-CLICKED');
    await until('the new tab let run', () => browser.got.includes('Runtime.runIfWaitingForDebugger S-CTRL-CLICKED'));
    expect(browser.got).toContain('Fetch.enable S-CTRL-CLICKED');
    expect(browser.got).not.toContain('Target.detachFromTarget');
    expect(tab.adopted).toEqual(['CTRL-CLICKED']);
    // One ask, one new tab: the next unnamed page is not the tab's.
    browser.got.length = 0;
    browser.attach('NEXT');
    await until('the page let go', () => browser.got.includes('Target.detachFromTarget'));
    expect(tab.adopted).toEqual(['CTRL-CLICKED']);
    await tab.leave();
  });

  it('adopts a new tab of a held tab as it comes where the browser shows one only once it runs (the relay)', async () => {
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-4');
    await holds.hold('B4', async () => ({ url: browser.url }), true);
    browser.attach('RUNNING', 'OPENER-4', false);
    await until('the new tab held', () => browser.got.includes('Fetch.enable S-RUNNING'));
    // Running already: its first load is not waited for.
    expect(tab.adopted).toEqual(['loaded']);
    // A page there before with no opener is let go; nothing running is told to run.
    browser.attach('OLD', undefined, false);
    await until('the old page let go', () => browser.got.includes('Target.detachFromTarget'));
    expect(browser.got.filter((m) => m.startsWith('Runtime.runIfWaitingForDebugger'))).toEqual([]);
    await tab.leave();
  });

  it('adopts a new tab the extension holds as paused where the browser is the relay: its first load is made again', async () => {
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-6');
    await holds.hold('B6', async () => ({ url: browser.url }), true);
    browser.attach('HELD', 'OPENER-6', true);
    await until('the held tab let run', () => browser.got.includes('Runtime.runIfWaitingForDebugger S-HELD'));
    // Its interception on before the word to run it (the relay's word to the extension to let it load).
    expect(browser.got.indexOf('Fetch.enable S-HELD')).toBeLessThan(
      browser.got.indexOf('Runtime.runIfWaitingForDebugger S-HELD'),
    );
    expect(tab.adopted).toEqual(['HELD made again']);
    await tab.leave();
  });

  it('adopts a held new tab that shows the relay’s /blocked page as loaded: nothing is made again there', async () => {
    // A form sent into a held pop-up cannot be sent again: the extension sends its tab to the
    // relay's /blocked page, before the relay is shown it. Waiting for its first load, the call
    // that opened it answered only at the bound (6 s).
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-7');
    await holds.hold('B7', async () => ({ url: `${browser.url}/cdp?clawd=popups` }), true);
    const port = new URL(browser.url).port;
    browser.attach('SENT', 'OPENER-7', true, `http://127.0.0.1:${port}/blocked?url=a+form&reason=held`);
    // Another site's page of that name, or the relay's on another port, is a load like any other.
    browser.attach('ELSEWHERE', 'OPENER-7', true, `http://127.0.0.1:${Number(port) + 1}/blocked?url=x`);
    await until('both let run', () =>
      ['SENT', 'ELSEWHERE'].every((t) => browser.got.includes(`Runtime.runIfWaitingForDebugger S-${t}`)),
    );
    expect(tab.adopted.sort()).toEqual(['ELSEWHERE made again', 'loaded']);
    await tab.leave();
  });

  it('reads a held new tab’s address once its interception is on: shown blank, it may be on the /blocked page by then', async () => {
    // window.open(), then a form written into it and sent: shown blank, it ran on the while.
    let port = '';
    const browser = await standInBrowser(
      () => false,
      (method, sessionId) =>
        method === 'Runtime.evaluate' && sessionId === 'S-WRITTEN'
          ? { result: { type: 'string', value: `http://127.0.0.1:${port}/blocked?url=a+form+sent` } }
          : {},
    );
    port = new URL(browser.url).port;
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-9');
    await holds.hold('B9', async () => ({ url: `${browser.url}/cdp?clawd=popups` }), true);
    browser.attach('WRITTEN', 'OPENER-9', true, 'about:blank');
    browser.attach('BLANK', 'OPENER-9', true, 'about:blank');
    await until('both let run', () =>
      ['WRITTEN', 'BLANK'].every((t) => browser.got.includes(`Runtime.runIfWaitingForDebugger S-${t}`)),
    );
    // Read after its interception is on (a load after that is the hold's to see).
    expect(browser.got.indexOf('Runtime.evaluate S-WRITTEN')).toBeGreaterThan(
      browser.got.indexOf('Fetch.enable S-WRITTEN'),
    );
    expect(tab.adopted.sort()).toEqual(['BLANK made again', 'loaded']);
    await tab.leave();
  });

  it('tells the watch when a held new tab’s page turns to the relay’s /blocked page after it was adopted', async () => {
    // window.open(), then a form written into it and sent: the tab was blank when shown, and the
    // form goes to the /blocked page after. The watch waited for the load made again until its bound.
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-8');
    await holds.hold('B8', async () => ({ url: `${browser.url}/cdp?clawd=popups` }), true);
    browser.attach('WRITTEN', 'OPENER-8', true, 'about:blank');
    await until('it let run', () => browser.got.includes('Runtime.runIfWaitingForDebugger S-WRITTEN'));
    expect(tab.adopted).toEqual(['WRITTEN made again']);
    const port = new URL(browser.url).port;
    const navigated = (frame: object) =>
      browser.event('S-WRITTEN', 'Page.frameNavigated', { frame, type: 'Navigation' });
    // A frame inside it, or another page, is not its page's end.
    navigated({ id: 'CHILD', parentId: 'WRITTEN', url: `http://127.0.0.1:${port}/blocked?url=x` });
    navigated({ id: 'WRITTEN', url: 'http://localhost:1/elsewhere' });
    navigated({ id: 'WRITTEN', url: `http://127.0.0.1:${port}/blocked?url=a+form+sent` });
    await until('the watch told', () => tab.blocked.length > 0);
    expect(tab.blocked).toEqual(['WRITTEN']);
    await tab.leave();
  });

  it('ends a browser’s connection once nothing there has been held for a while, not before', async () => {
    const browser = await standInBrowser();
    const holds = new PopupHolds(silentLogger);
    closing.push(browser.close, () => holds.close());
    const tab = await heldTab('OPENER-5');
    await holds.hold('B1', async () => ({ url: browser.url }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      vi.advanceTimersByTime(60_000);
      await tab.leave();
      vi.advanceTimersByTime(9_000);
      expect(browser.state.closed).toBe(false);
      vi.advanceTimersByTime(1_100);
    } finally {
      vi.useRealTimers();
    }
    await until('the connection ended', () => browser.state.closed);
  });

  it('says so when the browser’s socket cannot be reached', async () => {
    const holds = new PopupHolds(silentLogger);
    closing.push(() => holds.close());
    await expect(holds.hold('B3', async () => ({ url: 'ws://127.0.0.1:9/' }))).rejects.toThrow();
  });
});
