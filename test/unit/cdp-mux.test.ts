// The mux of a managed browser's pipe (relay/browser/cdp-mux.ts) against a scripted browser:
// each client gets a browser session of its own and its ids back, reaches only its own sessions,
// closes only itself with Browser.close, and leaves nothing of its own behind when it goes.

import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CdpMux, type MuxPipe } from '../../relay/browser/cdp-mux';
import { silentLogger } from '../../relay/log';
import { OriginPolicy } from '../../shared/origin-policy';
import { rawClientRules } from '../../relay/profiles/raw-client-rules';

interface Sent {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/** A browser on the other end of the pipe: records what it is sent; the test answers. */
function scriptedBrowser() {
  const sent: Sent[] = [];
  const listeners = new Set<(text: string) => void>();
  const closers = new Set<() => void>();
  let sessions = 0;
  const pipe: MuxPipe & { closed: boolean } = {
    closed: false,
    send: (text: string) => {
      const message = JSON.parse(text) as Sent;
      sent.push(message);
      // Browser sessions are made at once, as Chrome does.
      if (message.method === 'Target.attachToBrowserTarget')
        queueMicrotask(() => say({ id: message.id, result: { sessionId: `S${++sessions}` } }));
    },
    onMessage: (listener: (text: string) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose: (listener: () => void) => {
      closers.add(listener);
      return () => closers.delete(listener);
    },
  };
  const say = (message: object) => {
    for (const listener of listeners) listener(JSON.stringify(message));
  };
  const gone = () => {
    pipe.closed = true;
    for (const closer of closers) closer();
  };
  const sayText = (text: string) => {
    for (const listener of listeners) listener(text);
  };
  return {
    pipe,
    sent,
    say,
    sayText,
    gone,
    last: (method: string) => [...sent].reverse().find((m) => m.method === method)!,
  };
}

function peer() {
  const got: Array<Record<string, unknown>> = [];
  let closed: { code: number; reason: string } | undefined;
  return {
    got,
    closed: () => closed,
    peer: {
      send: (text: string) => void got.push(JSON.parse(text)),
      close: (code: number, reason: string) => void (closed = { code, reason }),
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the CDP mux', () => {
  it('gives each client a browser session of its own, its own ids back, and its own events', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const a = peer();
    const b = peer();
    const ca = mux.connect(a.peer);
    const cb = mux.connect(b.peer);
    ca.receive(JSON.stringify({ id: 1, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true } }));
    cb.receive(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    await settle();
    const fromA = browser.last('Target.setAutoAttach');
    const fromB = browser.last('Browser.getVersion');
    expect(fromA.sessionId).toBe('S1');
    expect(fromB.sessionId).toBe('S2');
    expect(fromA.id).not.toBe(fromB.id);
    browser.say({ id: fromB.id, sessionId: 'S2', result: { product: 'Chrome/156' } });
    browser.say({ id: fromA.id, sessionId: 'S1', result: {} });
    // A's child: an event on its session, then one on the child's.
    browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'C1', targetInfo: { targetId: 'P' } },
    });
    browser.say({ method: 'Runtime.executionContextCreated', sessionId: 'C1', params: {} });
    browser.say({ method: 'Target.targetCreated', params: {} }); // the root's: nobody's
    expect(a.got).toEqual([
      { id: 1, result: {} },
      { method: 'Target.attachedToTarget', params: { sessionId: 'C1', targetInfo: { targetId: 'P' } } },
      { method: 'Runtime.executionContextCreated', sessionId: 'C1', params: {} },
    ]);
    expect(b.got).toEqual([{ id: 1, result: { product: 'Chrome/156' } }]);
    // B may not use A's child.
    cb.receive(JSON.stringify({ id: 2, method: 'Runtime.evaluate', sessionId: 'C1', params: {} }));
    cb.receive(JSON.stringify({ id: 3, method: 'Target.detachFromTarget', params: { sessionId: 'C1' } }));
    expect(b.got.slice(1)).toEqual([
      { id: 2, sessionId: 'C1', error: { code: -32001, message: 'Session with given id not found: C1' } },
      { id: 3, error: { code: -32602, message: 'No session with given id: C1' } },
    ]);
    expect(browser.sent.filter((m) => m.method === 'Runtime.evaluate')).toEqual([]);
  });

  it('closes only the client that sends Browser.close; a client that leaves takes its own things with it', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const stays = peer();
    const goes = peer();
    const cs = mux.connect(stays.peer);
    const cg = mux.connect(goes.peer);
    cs.receive(
      JSON.stringify({
        id: 1,
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: '/ours' },
      }),
    );
    await settle();
    cg.receive(JSON.stringify({ id: 1, method: 'Target.createBrowserContext' }));
    cg.receive(
      JSON.stringify({
        id: 2,
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: '/theirs' },
      }),
    );
    browser.say({
      id: browser.last('Target.createBrowserContext').id,
      sessionId: 'S2',
      result: { browserContextId: 'CTX' },
    });
    cg.receive(JSON.stringify({ id: 3, method: 'Browser.close' }));
    expect(goes.got.at(-1)).toEqual({ id: 3, result: {} });
    expect(goes.closed()).toMatchObject({ code: 1000 });
    expect(browser.sent.some((m) => m.method === 'Browser.close')).toBe(false);
    // Its session detached, its context disposed, the download place the other set put back.
    expect(browser.sent.slice(-3).map((m) => [m.method, m.params])).toEqual([
      ['Target.detachFromTarget', { sessionId: 'S2' }],
      ['Target.disposeBrowserContext', { browserContextId: 'CTX' }],
      ['Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/ours' }],
    ]);
    expect(mux.clients).toBe(1);
  });

  it('passes on what it only routes as Chrome wrote it, and still reads what it must', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const texts: string[] = [];
    const conn = mux.connect({ send: (text) => void texts.push(text), close: () => {} });
    const raw = peer();
    const rawConn = mux.connect(raw.peer, { rules: { event: (method, params) => ({ ...params, seenBy: method }) } });
    conn.receive(JSON.stringify({ id: 1, method: 'Target.attachToTarget', params: { targetId: 'P', flatten: true } }));
    rawConn.receive(
      JSON.stringify({ id: 1, method: 'Target.attachToTarget', params: { targetId: 'P', flatten: true } }),
    );
    await settle();
    // Chrome's key order: a Target answer is read (the session it gives becomes the client's).
    browser.sayText(
      `{"id":${browser.sent.filter((m) => m.method === 'Target.attachToTarget')[0]!.id},"result":{"sessionId":"C1"},"sessionId":"S1"}`,
    );
    browser.sayText(
      `{"id":${browser.sent.filter((m) => m.method === 'Target.attachToTarget')[1]!.id},"result":{"sessionId":"C2"},"sessionId":"S2"}`,
    );
    // An event on the child session, with Chrome's escapes: the same text reaches clawd's client.
    const event = '{"method":"Network.requestWillBeSent","params":{"url":"http://a/\\u2028\\"x"},"sessionId":"C1"}';
    browser.sayText(event);
    // The raw client's rules see its events; its root session's events lose the session id.
    browser.sayText('{"method":"Network.requestWillBeSent","params":{"url":"http://b/"},"sessionId":"C2"}');
    browser.sayText('{"method":"Browser.downloadProgress","params":{"guid":"g"},"sessionId":"S1"}');
    // A Target event on a child session is read: the grandchild it gives is the client's, and
    // its events reach the client as written.
    browser.sayText(
      '{"method":"Target.attachedToTarget","params":{"sessionId":"G1","targetInfo":{"targetId":"F","type":"iframe"}},"sessionId":"C1"}',
    );
    const grandchild = '{"method":"Runtime.consoleAPICalled","params":{"type":"log"},"sessionId":"G1"}';
    browser.sayText(grandchild);
    // An answer to a command sent at the root: its client's id, no session, its escapes kept.
    conn.receive(JSON.stringify({ id: 7, method: 'Browser.getVersion' }));
    // One sent on a child session keeps it.
    conn.receive(JSON.stringify({ id: 8, method: 'Runtime.evaluate', params: {}, sessionId: 'C1' }));
    await settle();
    browser.sayText(
      `{"id":${browser.last('Browser.getVersion').id},"result":{"product":"Chrome/156 \\u2028"},"sessionId":"S1"}`,
    );
    browser.sayText(`{"id":${browser.last('Runtime.evaluate').id},"result":{"v":1},"sessionId":"C1"}`);
    expect(texts.slice(1)).toEqual([
      event,
      '{"method":"Browser.downloadProgress","params":{"guid":"g"}}',
      expect.stringContaining('"Target.attachedToTarget"'),
      grandchild,
      '{"id":7,"result":{"product":"Chrome/156 \\u2028"}}',
      '{"id":8,"result":{"v":1},"sessionId":"C1"}',
    ]);
    expect(JSON.parse(texts[0]!)).toEqual({ id: 1, result: { sessionId: 'C1' } });
    expect(raw.got).toEqual([
      { id: 1, result: { sessionId: 'C2' } },
      {
        method: 'Network.requestWillBeSent',
        params: { url: 'http://b/', seenBy: 'Network.requestWillBeSent' },
        sessionId: 'C2',
      },
    ]);
  });

  it('holds raw clients to its rules, and closes every client when the browser goes', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const raw = peer();
    const conn = mux.connect(raw.peer, {
      rules: {
        refuse: (method, params) =>
          method === 'Page.navigate' && params.url === 'http://no/' ? new Error('not there') : undefined,
        shown: (method, result) => (method === 'Network.getAllCookies' ? { cookies: [] } : result),
      },
    });
    conn.receive(JSON.stringify({ id: 1, method: 'Page.navigate', params: { url: 'http://no/' } }));
    conn.receive(JSON.stringify({ id: 2, method: 'Network.getAllCookies' }));
    await settle();
    browser.say({
      id: browser.last('Network.getAllCookies').id,
      sessionId: 'S1',
      result: { cookies: [{ name: 'x' }] },
    });
    expect(raw.got).toEqual([
      { id: 1, error: { code: -32000, message: 'not there' } },
      { id: 2, result: { cookies: [] } },
    ]);
    expect(browser.sent.some((m) => m.method === 'Page.navigate')).toBe(false);
    browser.gone();
    expect(raw.closed()).toEqual({ code: 1011, reason: 'the browser went away' });
    await expect(mux.call('Browser.getVersion')).rejects.toMatchObject({ code: 'browser_gone' });
  });

  it('lets a raw client’s command wait for its rules, its session’s later ones behind it in order, each told the tab it acts in', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const raw = peer();
    const waits: Array<{ method: string; tab: { targetId: string; url: string } | undefined; go(ok: boolean): void }> =
      [];
    let closed = 0;
    const conn = mux.connect(raw.peer, {
      rules: {
        before: (method, _params, tab) =>
          method === 'Input.dispatchKeyEvent'
            ? new Promise<void>((resolve, reject) =>
                waits.push({
                  method,
                  tab: tab && { targetId: tab.targetId, url: tab.info.url },
                  go: (ok) => (ok ? resolve() : reject(new Error('the person said no'))),
                }),
              )
            : undefined,
        closed: () => void closed++,
      },
    });
    await settle();
    // The mux follows the targets at its root once a client's commands may wait.
    expect(browser.sent.some((m) => m.method === 'Target.setDiscoverTargets' && m.sessionId === undefined)).toBe(true);
    browser.say({
      method: 'Target.targetCreated',
      params: { targetInfo: { targetId: 'P', type: 'page', url: 'http://a/' } },
    });
    browser.say({
      method: 'Target.targetInfoChanged',
      params: { targetInfo: { targetId: 'P', type: 'page', url: 'http://a/form' } },
    });
    browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'C1', targetInfo: { targetId: 'P', type: 'page' } },
    });
    browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'C1',
      params: { sessionId: 'F1', targetInfo: { targetId: 'FRAME', type: 'iframe' } },
    });
    const send = (id: number, method: string, sessionId?: string) =>
      conn.receive(JSON.stringify({ id, method, params: {}, ...(sessionId ? { sessionId } : {}) }));
    send(1, 'Input.dispatchKeyEvent', 'C1');
    send(2, 'DOM.getDocument', 'C1');
    send(3, 'Input.dispatchKeyEvent', 'F1');
    send(4, 'Browser.getVersion');
    await settle();
    // The frame's session acts in its page. On the page's session nothing goes while its first
    // command waits, not even a read; another session's commands are not behind it.
    expect(waits.map((w) => [w.method, w.tab])).toEqual([
      ['Input.dispatchKeyEvent', { targetId: 'P', url: 'http://a/form' }],
      ['Input.dispatchKeyEvent', { targetId: 'P', url: 'http://a/form' }],
    ]);
    const clients = () =>
      browser.sent.filter((m) => m.sessionId !== undefined && m.method !== 'Target.attachToBrowserTarget');
    expect(clients().map((m) => m.method)).toEqual(['Browser.getVersion']);
    waits[0]!.go(false);
    await settle();
    expect(raw.got.find((m) => m.id === 1)).toEqual({
      id: 1,
      sessionId: 'C1',
      error: { code: -32000, message: 'the person said no' },
    });
    expect(clients().map((m) => m.method)).toEqual(['Browser.getVersion', 'DOM.getDocument']);
    waits[1]!.go(true);
    await settle();
    expect(clients().map((m) => [m.method, m.sessionId])).toEqual([
      ['Browser.getVersion', 'S1'],
      ['DOM.getDocument', 'C1'],
      ['Input.dispatchKeyEvent', 'F1'],
    ]);
    conn.close();
    expect(closed).toBe(1);
  });

  it('holds a raw client’s word to run a new target until the policy’s walls are in it (any holder’s word starts a shared or a service worker)', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const raw = peer();
    const asked: string[] = [];
    let wallsUp!: () => void;
    const conn = mux.connect(raw.peer, {
      rules: rawClientRules({
        policy: () => new OriginPolicy({ block: ['https://bank.test'] }),
        profile: 'clawd',
        targetSetUp: (targetId) => {
          asked.push(targetId);
          return new Promise<void>((resolve) => (wallsUp = resolve));
        },
      }),
    });
    await settle();
    browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'W1', targetInfo: { targetId: 'SW', type: 'shared_worker' }, waitingForDebugger: true },
    });
    const send = (id: number, method: string) =>
      conn.receive(JSON.stringify({ id, method, params: {}, sessionId: 'W1' }));
    send(1, 'Runtime.runIfWaitingForDebugger');
    send(2, 'Runtime.evaluate');
    await settle();
    const toWorker = () => browser.sent.filter((m) => m.sessionId === 'W1').map((m) => m.method);
    // The word waits for the guard, and what the client said after it waits behind it.
    expect(asked).toEqual(['SW']);
    expect(toWorker()).toEqual([]);
    wallsUp();
    await settle();
    expect(toWorker()).toEqual(['Runtime.runIfWaitingForDebugger', 'Runtime.evaluate']);
    // A message carried inside another (the old non-flat sessions) would pass the rules unread.
    for (const [id, method, params] of [
      [
        3,
        'Target.sendMessageToTarget',
        { sessionId: 'W1', message: '{"id":1,"method":"Runtime.runIfWaitingForDebugger"}' },
      ],
      [4, 'Target.attachToTarget', { targetId: 'SW' }],
      [5, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true }],
    ] as const)
      conn.receive(JSON.stringify({ id, method, params }));
    await settle();
    for (const id of [3, 4, 5])
      expect(raw.got.find((m) => m.id === id)?.error, `id ${id}`).toMatchObject({
        message: expect.stringContaining('only flatten mode'),
      });
    expect(browser.sent.some((m) => m.method === 'Target.sendMessageToTarget')).toBe(false);
    // A brand-new service worker the same: another holder's word can run it (measured on 150 and
    // 156), and what the guard queued on its own session is not sure to run first then: the word
    // goes behind the constructor's wall on the client's own session, whose answer it never sees.
    browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'W2', targetInfo: { targetId: 'SVC', type: 'service_worker' }, waitingForDebugger: true },
    });
    conn.receive(JSON.stringify({ id: 6, method: 'Runtime.runIfWaitingForDebugger', params: {}, sessionId: 'W2' }));
    await settle();
    expect(asked).toEqual(['SW', 'SVC']);
    expect(browser.sent.some((m) => m.sessionId === 'W2')).toBe(false);
    wallsUp();
    await settle();
    const toService = browser.sent.filter((m) => m.sessionId === 'W2');
    expect(toService.map((m) => m.method)).toEqual(['Runtime.evaluate', 'Runtime.runIfWaitingForDebugger']);
    expect(toService[0]!.params!.expression).toContain('blocked by the clawd origin policy');
    expect(toService[0]!.params!.expression).toContain('bank');
    const got = raw.got.length;
    browser.say({ id: toService[0]!.id, result: { result: { type: 'undefined' } }, sessionId: 'W2' });
    browser.say({ id: toService[1]!.id, result: {}, sessionId: 'W2' });
    await settle();
    expect(raw.got.slice(got)).toEqual([{ id: 6, result: {}, sessionId: 'W2' }]);
  });

  /** A raw client of a browser whose guard says when each target is set up (`up(targetId)`). */
  async function heldClient(
    policy: { get(): OriginPolicy } = { get: () => new OriginPolicy({ block: ['https://bank.test'] }) },
  ) {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const raw = peer();
    const waits = new Map<string, () => void>();
    const done = new Set<string>();
    const conn = mux.connect(raw.peer, {
      rules: rawClientRules({
        policy: () => policy.get(),
        profile: 'clawd',
        // As the guard's whenSetUp: nothing to wait for once a target is set up.
        targetSetUp: (targetId) =>
          done.has(targetId) ? undefined : new Promise<void>((resolve) => waits.set(targetId, resolve)),
      }),
    });
    await settle();
    const on = (session: string) => browser.sent.filter((m) => m.sessionId === session).map((m) => m.method);
    const up = (targetId: string) => {
      done.add(targetId);
      waits.get(targetId)!();
    };
    return { browser, raw, conn, waits, on, up };
  }
  const paused = (sessionId: string, targetId: string, type: string) => ({
    method: 'Target.attachedToTarget',
    sessionId: 'S1',
    params: { sessionId, targetInfo: { targetId, type }, waitingForDebugger: true },
  });

  it('holds every command on a paused new service worker until the guard set it up, the wall ahead of the first', async () => {
    const c = await heldClient();
    c.browser.say(paused('W1', 'SVC', 'service_worker'));
    // A paused service worker answers an evaluate before its script runs: the client's code would
    // run before the guard's walls (and could disarm the wall's own script).
    c.conn.receive(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: 'W1' }));
    c.conn.receive(JSON.stringify({ id: 2, method: 'Runtime.runIfWaitingForDebugger', params: {}, sessionId: 'W1' }));
    await settle();
    expect([...c.waits.keys()]).toEqual(['SVC']);
    expect(c.on('W1')).toEqual([]);
    c.up('SVC');
    await settle();
    const sent = c.browser.sent.filter((m) => m.sessionId === 'W1');
    expect(sent.map((m) => m.method)).toEqual([
      'Runtime.evaluate',
      'Runtime.evaluate',
      'Runtime.runIfWaitingForDebugger',
    ]);
    expect(sent[0]!.params!.expression).toContain('blocked by the clawd origin policy');
    expect(sent[1]!.params!.expression).toBe('1');
    // Once set up, the session's commands go as they come, with nothing more ahead of them.
    c.conn.receive(JSON.stringify({ id: 3, method: 'Runtime.evaluate', params: { expression: '2' }, sessionId: 'W1' }));
    await settle();
    expect(c.on('W1')).toHaveLength(4);
    // Whether a target is paused is not the client's to say: a session it attached without asking
    // to pause (a target another session holds) is held all the same, its wall ahead.
    c.browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'W2', targetInfo: { targetId: 'NEW', type: 'service_worker' }, waitingForDebugger: false },
    });
    c.conn.receive(JSON.stringify({ id: 4, method: 'Runtime.evaluate', params: { expression: '3' }, sessionId: 'W2' }));
    await settle();
    expect(c.on('W2')).toEqual([]);
    c.up('NEW');
    await settle();
    expect(c.on('W2')).toEqual(['Runtime.evaluate', 'Runtime.evaluate']);
    // A target the guard set up already: a new session's first command waits for nothing; a
    // shared worker's gets no wall ahead (the guard's walls are in before any word runs it).
    c.browser.say({
      method: 'Target.attachedToTarget',
      sessionId: 'S1',
      params: { sessionId: 'W3', targetInfo: { targetId: 'SVC', type: 'service_worker' }, waitingForDebugger: false },
    });
    c.browser.say(paused('W4', 'SHARED', 'shared_worker'));
    c.conn.receive(JSON.stringify({ id: 5, method: 'Runtime.evaluate', params: {}, sessionId: 'W3' }));
    c.conn.receive(JSON.stringify({ id: 6, method: 'Runtime.runIfWaitingForDebugger', params: {}, sessionId: 'W4' }));
    await settle();
    expect(c.on('W3')).toEqual(['Runtime.evaluate', 'Runtime.evaluate']);
    expect(c.on('W4')).toEqual([]);
    c.up('SHARED');
    await settle();
    expect(c.on('W4')).toEqual(['Runtime.runIfWaitingForDebugger']);
  });

  it('holds a word sent at the root of a worker’s page socket like one on its session', async () => {
    const browser = scriptedBrowser();
    const mux = new CdpMux(browser.pipe, silentLogger);
    const waits: string[] = [];
    let up!: () => void;
    const conn = mux.connect(peer().peer, {
      page: 'SVC',
      rules: rawClientRules({
        policy: () => new OriginPolicy({ block: ['https://bank.test'] }),
        profile: 'clawd',
        targetSetUp: (targetId) => (waits.push(targetId), new Promise<void>((resolve) => (up = resolve))),
      }),
    });
    // The browser tells its targets' types (a worker's id is a page's socket too).
    browser.say({
      method: 'Target.targetCreated',
      params: { targetInfo: { targetId: 'SVC', type: 'service_worker', url: '' } },
    });
    browser.say({ id: browser.last('Target.attachToTarget').id, result: { sessionId: 'P1' } });
    await settle();
    conn.receive(JSON.stringify({ id: 1, method: 'Runtime.runIfWaitingForDebugger', params: {} }));
    await settle();
    expect(waits).toEqual(['SVC']);
    expect(browser.sent.filter((m) => m.sessionId === 'P1')).toEqual([]);
    up();
    await settle();
    expect(browser.sent.filter((m) => m.sessionId === 'P1').map((m) => m.method)).toEqual([
      'Runtime.evaluate',
      'Runtime.runIfWaitingForDebugger',
    ]);
  });

  it('sends nothing ahead while only clawd’s own addresses are kept out, and the wall once the person sets a rule', async () => {
    let policy = new OriginPolicy({});
    const c = await heldClient({ get: () => policy });
    c.browser.say(paused('W1', 'SVC', 'service_worker'));
    c.conn.receive(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: {}, sessionId: 'W1' }));
    await settle();
    expect(c.on('W1')).toEqual([]);
    c.up('SVC');
    await settle();
    expect(c.on('W1')).toEqual(['Runtime.evaluate']);
    policy = new OriginPolicy({ block: ['https://bank.test'] });
    c.conn.receive(JSON.stringify({ id: 2, method: 'Runtime.runIfWaitingForDebugger', params: {}, sessionId: 'W1' }));
    await settle();
    const sent = c.browser.sent.filter((m) => m.sessionId === 'W1');
    expect(sent.map((m) => m.method)).toEqual([
      'Runtime.evaluate',
      'Runtime.evaluate',
      'Runtime.runIfWaitingForDebugger',
    ]);
    expect(sent[1]!.params!.expression).toContain('bank');
  });
});

describe("a managed port's raw client rules", () => {
  const rules = rawClientRules({ policy: () => new OriginPolicy({}), profile: 'clawd' });
  it.each([
    ['Page.navigate', { url: 'file:///home/person/.clawd/secrets.json' }, /not pages for CDP clients/],
    ['Target.createTarget', { url: 'view-source:file:///etc/passwd' }, /not pages for CDP clients/],
    ['Target.createTarget', { url: 'chrome://settings' }, /not pages for CDP clients/],
    ['Page.navigate', { url: 'about:settings' }, /not pages for CDP clients/],
    ['Fetch.continueRequest', { requestId: '1', url: 'file:///etc/passwd' }, /not pages for CDP clients/],
    ['Target.exposeDevToolsProtocol', { targetId: 'T' }, /not available to CDP clients/],
    ['PWA.launch', { manifestId: 'x' }, /not available to CDP clients/],
  ])('refuses %s %j whatever the policy', (method, params, message) => {
    expect(rules.refuse!(method, params)?.message).toMatch(message);
  });
  it('keeps downloads named by the page to a folder of the temporary one', () => {
    const set = (behavior: string, downloadPath: string) =>
      rules.refuse!('Browser.setDownloadBehavior', { behavior, downloadPath })?.message;
    expect(set('allow', '/home/person/.ssh')).toMatch(/files named by the page/);
    expect(
      rules.refuse!('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: `${os.tmpdir()}/../etc` })?.message,
    ).toMatch(/files named by the page/);
    expect(set('allow', path.join(os.tmpdir(), 'downloads'))).toBeUndefined();
    expect(set('allowAndName', '/home/person/.ssh')).toBeUndefined();
  });

  it('lets the web and pages made of their address go', () => {
    for (const url of ['https://example.test/', 'about:blank', 'data:text/html,hi'])
      expect(rules.refuse!('Page.navigate', { url })).toBeUndefined();
  });
});
