// CDP through the relay against a scripted extension: the browser target the relay plays, page
// and child sessions, per-client views, ordering, clean-up when clients leave, and the extension
// going away. One file because its cases share one set-up; each describe block is one topic.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestFrame } from '../../shared/protocol';
import { CdpClient } from '../helpers/cdp-client';
import { quiet, until } from '../helpers/waits';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';

const TAB1 = fakeTab(1);
const TAB2 = fakeTab(2);
const cdpOps = (ext: FakeExtension) =>
  ext.requests.filter((r): r is Extract<RequestFrame, { op: 'cdp' }> => r.op === 'cdp');

describe('CDP through the relay', () => {
  let t: TestRelay;
  let ext: FakeExtension;
  const clients: CdpClient[] = [];
  async function client(): Promise<CdpClient> {
    const c = await CdpClient.connect(t.cdpWsUrl);
    clients.push(c);
    return c;
  }
  /** A client auto-attached to every tab, like Playwright; returns the page session ids by target id. */
  async function autoAttached(): Promise<{ c: CdpClient; sessions: Map<string, string> }> {
    const c = await client();
    await c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    const sessions = new Map<string, string>();
    for (const e of c.events)
      if (e.method === 'Target.attachedToTarget') sessions.set(e.params.targetInfo.targetId, e.params.sessionId);
    return { c, sessions };
  }

  beforeEach(async () => {
    t = await startTestRelay({ timeouts: { commandMs: 1_000, reconnectWaitMs: 300 } });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1, TAB2]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
  });

  describe('the browser target the relay plays', () => {
    it('answers Browser.getVersion from the hello', async () => {
      const c = await client();
      expect(await c.send('Browser.getVersion')).toEqual({
        protocolVersion: '1.3',
        product: 'Chrome/156.0.1.2',
        revision: '',
        userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
        jsVersion: '',
      });
    });

    it('says clearly that no browser is connected yet', async () => {
      const empty = await startTestRelay();
      try {
        const c = await CdpClient.connect(empty.cdpWsUrl);
        await expect(c.send('Browser.getVersion')).rejects.toThrow(
          /No browser has connected to the clawd relay yet: load the clawd extension/,
        );
        await c.close();
      } finally {
        await empty.close();
      }
    });

    it('announces one attachedToTarget per tab to the client that asked, and to no other', async () => {
      const bystander = await client();
      const { c, sessions } = await autoAttached();
      expect([...sessions.keys()].sort()).toEqual([TAB1.targetInfo.targetId, TAB2.targetInfo.targetId]);
      const event = c.events.find((e) => e.method === 'Target.attachedToTarget')!;
      expect(event.params).toMatchObject({
        waitingForDebugger: false,
        targetInfo: { type: 'page', attached: true, browserContextId: 'CTX1' },
      });
      expect(bystander.events).toEqual([]);
    });

    it('lists targets, describes them, and refuses browser contexts with a reason', async () => {
      const c = await client();
      const { targetInfos } = await c.send('Target.getTargets');
      expect(targetInfos.map((i: any) => i.type)).toEqual(['page', 'page']);
      const all = await c.send('Target.getTargets', { filter: [{}] });
      expect(all.targetInfos.map((i: any) => i.type)).toEqual(['browser', 'tab', 'page', 'tab', 'page']);
      expect((await c.send('Target.getTargetInfo')).targetInfo.type).toBe('browser');
      expect((await c.send('Target.getTargetInfo', { targetId: TAB1.targetInfo.targetId })).targetInfo).toMatchObject({
        type: 'page',
        url: TAB1.targetInfo.url,
      });
      await expect(c.send('Target.getTargetInfo', { targetId: 'NOPE' })).rejects.toThrow(
        /No target with given id found/,
      );
      expect(await c.send('Target.getBrowserContexts')).toEqual({ browserContextIds: [] });
      await expect(c.send('Target.createBrowserContext')).rejects.toThrow(
        /not available through the clawd relay.*managed clawd profile/,
      );
      await expect(c.send('Page.navigate', { url: 'https://x.test' })).rejects.toThrow(
        /'Page.navigate' wasn't found.*send Page commands on a page session/,
      );
      await expect(c.send('Browser.getWindowForTarget', {})).rejects.toThrow(
        /'Browser.getWindowForTarget' wasn't found: of the Browser domain .* answers getVersion, setDownloadBehavior, cancelDownload, grantPermissions, setPermission, resetPermissions, close/,
      );
    });

    it("answers the browser's cookies through an attached tab, and asks the extension to grant permissions to the attached tabs' sites", async () => {
      const c = await client();
      ext.handler = (r) =>
        r.op === 'cdp' && r.method === 'Storage.getCookies' ? { cookies: [{ name: 'a', value: '1' }] } : {};
      expect(await c.send('Storage.getCookies', { browserContextId: 'CTX1' })).toEqual({
        cookies: [{ name: 'a', value: '1' }],
      });
      expect(cdpOps(ext).at(-1)).toMatchObject({ tabId: 1, method: 'Storage.getCookies', params: {} });
      await c.send('Browser.grantPermissions', { permissions: ['geolocation'] });
      expect(ext.requests.at(-1)).toMatchObject({
        op: 'grantPermissions',
        origins: ['https://example.test'],
        permissions: ['geolocation'],
      });
      await c.send('Browser.grantPermissions', { permissions: ['notifications'], origin: 'https://other.test' });
      expect(ext.requests.at(-1)).toMatchObject({
        op: 'grantPermissions',
        origins: ['https://other.test'],
        permissions: ['notifications'],
      });
      await c.send('Browser.resetPermissions');
      expect(ext.requests.at(-1)).toMatchObject({ op: 'resetPermissions' });
      // What the extension refuses reaches the client as the extension said it.
      ext.handler = (r) => {
        if (r.op === 'grantPermissions') throw new Error('midi cannot be granted on your own browser through clawd');
        return {};
      };
      await expect(c.send('Browser.grantPermissions', { permissions: ['midi'] })).rejects.toThrow(
        /midi cannot be granted on your own browser through clawd/,
      );
    });

    it('announces targets to a discovering client, including ones attached later', async () => {
      const c = await client();
      await c.send('Target.setDiscoverTargets', { discover: true, filter: [{}] });
      expect(c.events.filter((e) => e.method === 'Target.targetCreated').map((e) => e.params.targetInfo.type)).toEqual([
        'browser',
        'tab',
        'page',
        'tab',
        'page',
      ]);
      ext.send({ type: 'tabAttached', tab: fakeTab(3) });
      const created = await c.waitForEvent(
        'Target.targetCreated',
        (e) => e.params.targetInfo.targetId === fakeTab(3).targetInfo.targetId,
      );
      expect(created.params.targetInfo.type).toBe('page');
      ext.send({ type: 'tabUpdated', tabId: 3, title: 'Renamed' });
      const changed = await c.waitForEvent('Target.targetInfoChanged', (e) => e.params.targetInfo.type === 'page');
      expect(changed.params.targetInfo.title).toBe('Renamed');
    });

    it('ends only the calling client on Browser.close', async () => {
      const a = await client();
      const b = await client();
      expect(await a.send('Browser.close')).toEqual({});
      await a.closed;
      expect((await b.send('Browser.getVersion')).product).toBe('Chrome/156.0.1.2');
    });

    it('creates a tab that is attached before Target.createTarget answers', async () => {
      const { c } = await autoAttached();
      let next = 9;
      ext.handler = (r) => (r.op === 'createTab' ? { tab: fakeTab(next++, { url: r.url }) } : {});
      const order: string[] = [];
      c.onMessage((m) => order.push(m.method ?? `response ${m.id}`));
      const { targetId } = await c.send('Target.createTarget', { url: 'https://new.test/' });
      expect(targetId).toBe(fakeTab(9).targetInfo.targetId);
      expect(order[0]).toBe('Target.attachedToTarget');
      // In the background, whatever the client asks: the person's tab keeps the keyboard.
      expect(ext.requests.find((r) => r.op === 'createTab')).toMatchObject({ url: 'https://new.test/', active: false });
      const session = await ext.next((f) => f.type === 'tabSession');
      expect(session).toMatchObject({ tabId: 9 });
      await c.send('Target.createTarget', { url: 'https://new.test/', background: false });
      expect(ext.requests.filter((r) => r.op === 'createTab').map((r) => r.active)).toEqual([false, false]);
    });

    it('closes and activates tabs through the extension', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = (r) => {
        if (r.op === 'closeTab') ext.send({ type: 'tabDetached', tabId: r.tabId, reason: 'target_closed' });
        return {};
      };
      expect(await c.send('Target.activateTarget', { targetId: TAB2.targetInfo.targetId })).toEqual({});
      expect(ext.requests.some((r) => r.op === 'activateTab' && r.tabId === 2)).toBe(true);
      expect(await c.send('Target.closeTarget', { targetId: TAB2.targetInfo.targetId })).toEqual({ success: true });
      const detached = await c.waitForEvent('Target.detachedFromTarget');
      expect(detached.params).toEqual({
        sessionId: sessions.get(TAB2.targetInfo.targetId),
        targetId: TAB2.targetInfo.targetId,
      });
      await expect(c.send('Target.closeTarget', { targetId: 'NOPE' })).rejects.toThrow(/No target with given id found/);
    });
  });

  describe('page sessions', () => {
    it('forwards a command to the right tab and returns the result', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = (r) => (r.op === 'cdp' ? { result: { type: 'string', value: `tab ${r.tabId}` } } : {});
      const answer = await c.send('Runtime.evaluate', { expression: 'x' }, sessions.get(TAB2.targetInfo.targetId));
      expect(answer.result.value).toBe('tab 2');
      expect(cdpOps(ext).at(-1)).toMatchObject({ tabId: 2, method: 'Runtime.evaluate', params: { expression: 'x' } });
    });

    it("passes Chrome's own protocol errors through unchanged", async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = () =>
        Promise.reject({
          wire: {
            code: 'cdp',
            message: 'Cannot find context with specified id',
            cdp: { code: -32000, message: 'Cannot find context with specified id' },
          },
        });
      const reply = c.waitForNext((m) => m.id !== undefined);
      c.send('Runtime.evaluate', { contextId: 99 }, sessions.get(TAB1.targetInfo.targetId)).catch(() => {});
      expect((await reply).error).toEqual({ code: -32000, message: 'Cannot find context with specified id' });
    });

    it('refuses an unknown session id with -32001', async () => {
      const c = await client();
      const reply = c.waitForNext((m) => m.id !== undefined);
      c.send('Runtime.evaluate', {}, 'NO-SUCH-SESSION').catch(() => {});
      const { error, sessionId } = await reply;
      expect(error!.code).toBe(-32001);
      expect(sessionId).toBe('NO-SUCH-SESSION');
    });

    it('times out a command the extension never answers, naming the method', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = () => new Promise(() => {});
      await expect(c.send('Page.captureScreenshot', {}, sessions.get(TAB1.targetInfo.targetId))).rejects.toThrow(
        /Page.captureScreenshot got no answer within 1 s/,
      );
    });

    it('gives each attachToTarget its own session (newCDPSession), both receiving the tab events', async () => {
      const { c, sessions } = await autoAttached();
      const primary = sessions.get(TAB1.targetInfo.targetId)!;
      const { sessionId: extra } = await c.send('Target.attachToTarget', {
        targetId: TAB1.targetInfo.targetId,
        flatten: true,
      });
      expect(extra).not.toBe(primary);
      ext.event(1, 'Page.loadEventFired', { timestamp: 1 });
      await until(
        'both sessions to get the event',
        () => c.events.filter((e) => e.method === 'Page.loadEventFired').length === 2,
      );
      expect(new Set(c.events.filter((e) => e.method === 'Page.loadEventFired').map((e) => e.sessionId))).toEqual(
        new Set([primary, extra]),
      );
      await c.send('Target.detachFromTarget', { sessionId: extra });
      expect((await c.waitForEvent('Target.detachedFromTarget')).params.sessionId).toBe(extra);
      const reply = c.waitForNext((m) => m.id !== undefined);
      c.send('Page.enable', {}, extra).catch(() => {});
      expect((await reply).error!.code).toBe(-32001);
    });

    it('delivers events only to clients attached to that tab', async () => {
      const a = await client();
      const { sessionId } = await a.send('Target.attachToTarget', {
        targetId: TAB1.targetInfo.targetId,
        flatten: true,
      });
      const b = await client();
      await b.send('Target.attachToTarget', { targetId: TAB2.targetInfo.targetId, flatten: true });
      ext.event(1, 'Page.frameNavigated', { frame: { id: 'F', url: 'https://a.test/' } });
      const got = await a.waitForEvent('Page.frameNavigated');
      expect(got.sessionId).toBe(sessionId);
      await quiet(50);
      expect(b.events.some((e) => e.method === 'Page.frameNavigated')).toBe(false);
    });

    it("sends a domain's events only to the clients that enabled it, and disables it only when the last one leaves", async () => {
      const a = await autoAttached();
      const b = await autoAttached();
      const sa = a.sessions.get(TAB1.targetInfo.targetId)!;
      const sb = b.sessions.get(TAB1.targetInfo.targetId)!;
      await a.c.send('Network.enable', {}, sa);
      ext.event(1, 'Network.requestWillBeSent', { requestId: 'R1' });
      await a.c.waitForEvent('Network.requestWillBeSent');
      await quiet(50);
      expect(b.c.events.some((e) => e.method === 'Network.requestWillBeSent')).toBe(false);

      await b.c.send('Network.enable', {}, sb);
      expect(await a.c.send('Network.disable', {}, sa)).toEqual({});
      expect(cdpOps(ext).some((r) => r.method === 'Network.disable')).toBe(false);
      await b.c.close();
      await until('the last user to release the domain', () =>
        cdpOps(ext).some((r) => r.tabId === 1 && r.method === 'Network.disable'),
      );
    });

    it('shows a late client the execution contexts the first one already has', async () => {
      const a = await autoAttached();
      const context = {
        id: 5,
        origin: 'https://a.test',
        name: '',
        uniqueId: 'U5',
        auxData: { isDefault: true, type: 'default', frameId: 'F' },
      };
      ext.handler = (r) => {
        if (r.op === 'cdp' && r.method === 'Runtime.enable')
          ext.event(1, 'Runtime.executionContextCreated', { context });
        return {};
      };
      await a.c.send('Runtime.enable', {}, a.sessions.get(TAB1.targetInfo.targetId));
      await a.c.waitForEvent('Runtime.executionContextCreated');
      // The first enable reset the domain first, so even a previous relay's leftovers replay.
      expect(
        cdpOps(ext)
          .filter((r) => r.tabId === 1)
          .map((r) => r.method),
      ).toContain('Runtime.enable');

      ext.handler = () => ({}); // Chrome replays nothing on a second enable (measured)
      const b = await autoAttached();
      const sb = b.sessions.get(TAB1.targetInfo.targetId)!;
      await b.c.send('Runtime.enable', {}, sb);
      const replay = await b.c.waitForEvent('Runtime.executionContextCreated');
      expect(replay.params.context).toEqual(context);
      expect(replay.sessionId).toBe(sb);
      expect(a.c.events.filter((e) => e.method === 'Runtime.executionContextCreated')).toHaveLength(1);
    });

    it('keeps the order in which answers arrive, replays included (getFrameTree before the contexts)', async () => {
      const a = await autoAttached();
      ext.handler = (r) => {
        if (r.op === 'cdp' && r.method === 'Runtime.enable')
          ext.event(1, 'Runtime.executionContextCreated', { context: { id: 7, origin: '', name: '', uniqueId: 'U7' } });
        return {};
      };
      await a.c.send('Runtime.enable', {}, a.sessions.get(TAB1.targetInfo.targetId));
      await a.c.waitForEvent('Runtime.executionContextCreated');

      // The late client's two answers leave the extension back to back, in one chunk.
      const held: RequestFrame[] = [];
      ext.handler = (r) => {
        held.push(r);
        if (held.length === 2)
          for (const h of held)
            ext.send({
              type: 'reply',
              id: h.id,
              result: h.op === 'cdp' && h.method === 'Page.getFrameTree' ? { frameTree: {} } : {},
            });
        return new Promise(() => {});
      };
      const b = await autoAttached();
      const sb = b.sessions.get(TAB1.targetInfo.targetId)!;
      const order: string[] = [];
      b.c.onMessage((m) => order.push(m.method ?? `response ${m.id}`));
      const frameTree = b.c.send('Page.getFrameTree', {}, sb);
      const enable = b.c.send('Runtime.enable', {}, sb);
      await Promise.all([frameTree, enable]);
      await b.c.waitForEvent('Runtime.executionContextCreated');
      expect(order.filter((o) => !o.startsWith('Target.'))).toEqual([
        'response 2',
        'Runtime.executionContextCreated',
        'response 3',
      ]);
    });

    it('puts a response ahead of the events that overtook it (the event fence)', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = (r) => {
        // chrome.debugger's reordering, reproduced: the event leaves before the response.
        if (r.op === 'cdp')
          ext.event(1, 'Runtime.executionContextCreated', { context: { id: 1, origin: '', name: '', uniqueId: 'U1' } });
        return new Promise((resolve) => setTimeout(() => resolve({ frameTree: {} }), 20));
      };
      const order: string[] = [];
      c.onMessage((m) => order.push(m.method ?? 'response'));
      await c.send('Page.getFrameTree', {}, sessions.get(TAB1.targetInfo.targetId));
      await c.waitForEvent('Runtime.executionContextCreated');
      expect(order).toEqual(['response', 'Runtime.executionContextCreated']);
    });

    it('delivers Input.dragIntercepted at once, ahead of the answer to the drag probe that followed the move', async () => {
      const { c, sessions } = await autoAttached();
      const session = sessions.get(TAB1.targetInfo.targetId);
      // chrome.debugger's other reordering: the move answers first, its event comes while the
      // probe Playwright sends next is in flight. Playwright stops listening when the probe answers.
      ext.handler = (r) => {
        if (r.op !== 'cdp' || r.method !== 'Runtime.evaluate') return {};
        ext.event(1, 'Input.dragIntercepted', { data: { items: [], dragOperationsMask: 1 } });
        return new Promise((resolve) => setTimeout(() => resolve({ result: { type: 'boolean', value: true } }), 20));
      };
      await c.send('Input.setInterceptDrags', { enabled: true }, session);
      await c.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 5, y: 5, button: 'left', buttons: 1 }, session);
      const order: string[] = [];
      c.onMessage((m) => order.push(m.method ?? 'response'));
      await c.send('Runtime.evaluate', { expression: 'window.__cleanupDrag?.()' }, session);
      expect(order).toEqual(['Input.dragIntercepted', 'response']);
    });

    it('delivers a paused request at once while the navigation that waits for its answer is in flight', async () => {
      // A window as long as the command's bound: held behind the navigate, the paused request
      // would come only when it ran out, and the navigate would not answer within the test's.
      await ext.close();
      await t.close();
      t = await startTestRelay({ timeouts: { commandMs: 10_000, reconnectWaitMs: 300, eventFenceMs: 10_000 } });
      ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB1, TAB2]);
      const { c, sessions } = await autoAttached();
      const session = sessions.get(TAB1.targetInfo.targetId);
      let goOn!: () => void;
      const continued = new Promise<void>((resolve) => (goOn = resolve));
      ext.handler = (r) => {
        if (r.op !== 'cdp') return {};
        if (r.method === 'Page.navigate') {
          ext.event(1, 'Fetch.requestPaused', {
            requestId: 'interception-1',
            request: { url: 'http://a.test/', method: 'GET', headers: {} },
            frameId: 'F1',
            resourceType: 'Document',
          });
          // Chrome answers the navigate only once its document request goes on.
          return continued.then(() => ({ frameId: 'F1', loaderId: 'L1' }));
        }
        if (r.method === 'Fetch.continueRequest') goOn();
        return {};
      };
      c.onMessage((m) => {
        if (m.method === 'Fetch.requestPaused')
          void c.send('Fetch.continueRequest', { requestId: m.params.requestId }, session).catch(() => {});
      });
      const navigated = await Promise.race([
        c.send('Page.navigate', { url: 'http://a.test/' }, session),
        quiet(3_000).then(() => 'the paused request was held behind the navigate'),
      ]);
      expect(navigated).toEqual({ frameId: 'F1', loaderId: 'L1' });
    });

    it('does not hold events forever behind a command that waits on them (a dialog)', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = (r) => {
        if (r.op === 'cdp' && r.method === 'Runtime.evaluate') {
          ext.event(1, 'Page.javascriptDialogOpening', { message: 'hi', type: 'alert' });
          return new Promise(() => {}); // blocked until the dialog is handled
        }
        return {};
      };
      c.send('Runtime.evaluate', { expression: 'alert("hi")' }, sessions.get(TAB1.targetInfo.targetId)).catch(() => {});
      const dialog = await c.waitForEvent('Page.javascriptDialogOpening', undefined, 1_000);
      expect(dialog.params.message).toBe('hi');
    });

    it('serves a page-scoped socket from /json/list without session ids', async () => {
      const list = await (await fetch(`${t.relay.url}/json/list?token=${t.token}`)).json();
      const c = await CdpClient.connect(list[0].webSocketDebuggerUrl);
      clients.push(c);
      ext.handler = (r) => (r.op === 'cdp' ? { result: { value: r.tabId } } : {});
      expect((await c.send('Runtime.evaluate', { expression: '1' })).result.value).toBe(1);
      ext.event(1, 'Page.loadEventFired', { timestamp: 2 });
      const event = await c.waitForEvent('Page.loadEventFired');
      expect(event.sessionId).toBeUndefined();
    });
  });

  describe('when clients leave', () => {
    // Tabs announced at hello are new to this relay and get a fresh session first: start after that.
    beforeEach(async () => {
      await until('the adoption resets', () => ext.requests.filter((r) => r.op === 'resetTab').length === 2);
      ext.requests.length = 0;
    });

    it('gives the tab a fresh debugger session once its last client has gone, not before', async () => {
      const a = await autoAttached();
      const b = await autoAttached();
      await a.c.close();
      await quiet(50);
      expect(ext.requests.some((r) => r.op === 'resetTab')).toBe(false);
      await b.c.close();
      await until('the reset of both tabs', () => ext.requests.filter((r) => r.op === 'resetTab').length === 2);
      expect(
        ext.requests
          .filter((r) => r.op === 'resetTab')
          .map((r) => (r as { tabId: number }).tabId)
          .sort(),
      ).toEqual([1, 2]);
    });

    it("holds a newcomer's commands until the reset is done, in order", async () => {
      const a = await autoAttached();
      let finishReset: () => void = () => {};
      ext.handler = (r) =>
        r.op === 'resetTab'
          ? new Promise<object>((resolve) => (finishReset = () => resolve({})))
          : { method: (r as { method?: string }).method };
      await a.c.close();
      await until('the reset to start', () => ext.requests.some((r) => r.op === 'resetTab'));
      const b = await autoAttached();
      const sb = b.sessions.get(TAB1.targetInfo.targetId)!;
      const first = b.c.send('Page.enable', {}, sb);
      const second = b.c.send('Runtime.evaluate', { expression: '1' }, sb);
      await quiet(50);
      expect(cdpOps(ext).some((r) => r.method === 'Runtime.evaluate')).toBe(false);
      finishReset();
      expect(await first).toEqual({ method: 'Page.enable' });
      expect(await second).toEqual({ method: 'Runtime.evaluate' });
      const after = cdpOps(ext).map((r) => r.method);
      expect(after.indexOf('Page.enable')).toBeLessThan(after.indexOf('Runtime.evaluate'));
    });

    it('undoes only what the leaving client needed while others stay (its init scripts, its domains)', async () => {
      const a = await autoAttached();
      const b = await autoAttached();
      const sa = a.sessions.get(TAB1.targetInfo.targetId)!;
      await b.c.send('Page.enable', {}, b.sessions.get(TAB1.targetInfo.targetId));
      ext.handler = (r) =>
        r.op === 'cdp' && r.method === 'Page.addScriptToEvaluateOnNewDocument' ? { identifier: '42' } : {};
      await a.c.send('Page.enable', {}, sa);
      await a.c.send('Fetch.enable', {}, sa);
      await a.c.send('Page.addScriptToEvaluateOnNewDocument', { source: 'window.x = 1' }, sa);
      await a.c.close();
      await until('the clean-up', () => cdpOps(ext).some((r) => r.method === 'Fetch.disable'));
      await until('the script removal', () =>
        cdpOps(ext).some(
          (r) => r.method === 'Page.removeScriptToEvaluateOnNewDocument' && r.params?.identifier === '42',
        ),
      );
      expect(cdpOps(ext).some((r) => r.method === 'Page.disable')).toBe(false);
      expect(ext.requests.some((r) => r.op === 'resetTab')).toBe(false);
    });

    it("stops a client's screencast when it leaves while others stay, and sends its frames to it alone", async () => {
      const player = await autoAttached();
      const viewer = await autoAttached();
      const sp = player.sessions.get(TAB1.targetInfo.targetId)!;
      const sv = viewer.sessions.get(TAB1.targetInfo.targetId)!;
      await player.c.send('Page.enable', {}, sp);
      // The viewer never enables Page: its frames must reach it all the same, and not the player.
      await viewer.c.send('Page.startScreencast', { format: 'jpeg' }, sv);
      ext.event(1, 'Page.screencastFrame', { data: 'AAAA', sessionId: 1, metadata: {} });
      ext.event(1, 'Page.loadEventFired', { timestamp: 1 });
      expect((await viewer.c.waitForEvent('Page.screencastFrame')).sessionId).toBe(sv);
      await player.c.waitForEvent('Page.loadEventFired');
      expect(player.c.events.some((e) => e.method === 'Page.screencastFrame')).toBe(false);

      await viewer.c.close();
      await until('the screencast to be stopped', () => cdpOps(ext).some((r) => r.method === 'Page.stopScreencast'));
      expect(cdpOps(ext).some((r) => r.method === 'Page.disable')).toBe(false);
      expect(ext.requests.some((r) => r.op === 'resetTab')).toBe(false);
      // The player stays and is served.
      ext.handler = (r) =>
        r.op === 'cdp' && r.method === 'Runtime.evaluate' ? { result: { type: 'number', value: 2 } } : {};
      expect(await player.c.send('Runtime.evaluate', { expression: '1+1' }, sp)).toEqual({
        result: { type: 'number', value: 2 },
      });
    });
  });

  describe('child targets (out-of-process iframes)', () => {
    const child = {
      sessionId: 'CHILD-1',
      targetInfo: {
        targetId: 'FRAME-1',
        type: 'iframe',
        title: '',
        url: 'https://other.test/',
        attached: true,
        canAccessOpener: false,
      },
      waitingForDebugger: true,
    };

    it('routes child sessions both ways and replays existing children to a late client', async () => {
      const a = await autoAttached();
      const sa = a.sessions.get(TAB1.targetInfo.targetId)!;
      await a.c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sa);
      ext.event(1, 'Target.attachedToTarget', child);
      const attached = await a.c.waitForEvent('Target.attachedToTarget', (e) => e.sessionId === sa);
      expect(attached.params).toEqual(child);

      ext.handler = (r) => (r.op === 'cdp' ? { echoed: r.sessionId } : {});
      expect(await a.c.send('Runtime.runIfWaitingForDebugger', {}, 'CHILD-1')).toEqual({ echoed: 'CHILD-1' });
      ext.event(1, 'Runtime.consoleAPICalled', { type: 'log', args: [] }, 'CHILD-1');
      expect((await a.c.waitForEvent('Runtime.consoleAPICalled')).sessionId).toBe('CHILD-1');

      const b = await autoAttached();
      const sb = b.sessions.get(TAB1.targetInfo.targetId)!;
      await b.c.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sb);
      const replayed = await b.c.waitForEvent('Target.attachedToTarget', (e) => e.sessionId === sb);
      expect(replayed.params).toMatchObject({
        sessionId: 'CHILD-1',
        targetInfo: { targetId: 'FRAME-1' },
        waitingForDebugger: false,
      });

      ext.event(1, 'Target.detachedFromTarget', { sessionId: 'CHILD-1', targetId: 'FRAME-1' });
      for (const c of [a.c, b.c]) {
        expect(
          (await c.waitForEvent('Target.detachedFromTarget', (e) => e.params.sessionId === 'CHILD-1')).params.targetId,
        ).toBe('FRAME-1');
      }
    });
  });

  describe("Puppeteer's tab targets", () => {
    it('attaches tab targets when pages are excluded, and the page below on the tab session', async () => {
      const c = await client();
      await c.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: true,
        flatten: true,
        filter: [{ type: 'page', exclude: true }, {}],
      });
      const tabs = c.events.filter((e) => e.method === 'Target.attachedToTarget');
      expect(tabs.map((e) => e.params.targetInfo.type)).toEqual(['tab', 'tab']);
      const tabSession = tabs[0]!.params.sessionId;
      await c.send(
        'Target.setAutoAttach',
        { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{}] },
        tabSession,
      );
      const page = await c.waitForEvent('Target.attachedToTarget', (e) => e.sessionId === tabSession);
      expect(page.params.targetInfo).toMatchObject({ type: 'page', targetId: TAB1.targetInfo.targetId });
      expect(await c.send('Runtime.runIfWaitingForDebugger', {}, tabSession)).toEqual({});
    });
  });

  describe('when the extension goes away', () => {
    it('fails in-flight commands at once and new ones after a short wait, naming the method', async () => {
      const { c, sessions } = await autoAttached();
      ext.handler = () => new Promise(() => {});
      const inFlight = c.send('Runtime.evaluate', { expression: 'slow' }, sessions.get(TAB1.targetInfo.targetId));
      inFlight.catch(() => {});
      await until('the request to reach the extension', () => cdpOps(ext).some((r) => r.method === 'Runtime.evaluate'));
      await ext.close();
      await expect(inFlight).rejects.toThrow(/Runtime.evaluate failed: the extension disconnected before answering/);
      await expect(c.send('DOM.getDocument', {}, sessions.get(TAB1.targetInfo.targetId))).rejects.toThrow(
        /DOM.getDocument was not sent: the clawd extension is not connected/,
      );
    });
  });

  describe('/json routes that act', () => {
    it('opens a tab with PUT /json/new (not GET), and 404s an unknown id', async () => {
      ext.handler = (r) => (r.op === 'createTab' ? { tab: fakeTab(5, { url: r.url }) } : {});
      const put = await fetch(
        `${t.relay.url}/json/new?url=${encodeURIComponent('https://five.test/')}&token=${t.token}`,
        { method: 'PUT' },
      );
      expect(put.status).toBe(200);
      expect(await put.json()).toMatchObject({
        id: fakeTab(5).targetInfo.targetId,
        url: 'https://five.test/',
        type: 'page',
      });
      const chromeStyle = await fetch(`${t.relay.url}/json/new?https://six.test/`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${t.token}` },
      });
      expect(chromeStyle.status).toBe(200);
      expect(ext.requests.filter((r) => r.op === 'createTab').map((r) => (r as { url: string }).url)).toEqual([
        'https://five.test/',
        'https://six.test/',
      ]);
      expect((await fetch(`${t.relay.url}/json/new?url=x&token=${t.token}`)).status).toBe(405);
      expect(
        (
          await fetch(`${t.relay.url}/json/new?url=${encodeURIComponent('javascript:alert(1)')}&token=${t.token}`, {
            method: 'PUT',
          })
        ).status,
      ).toBe(400);
      for (const action of ['close', 'activate']) {
        const res = await fetch(`${t.relay.url}/json/${action}/NOPE?token=${t.token}`);
        expect(res.status).toBe(404);
        expect((await res.json()).error.code).toBe('target_not_found');
      }
      const activate = await fetch(`${t.relay.url}/json/activate/${TAB1.targetInfo.targetId}?token=${t.token}`);
      expect(await activate.text()).toBe('Target activated');
    });
  });
});
