// A handed-over tab's one debugger session, shared by the relay and the extension: its auto-attach
// (tab-auto-attach.ts) and its request interception (tab-fetch.ts) carry the relay's asks and the
// extension's own (the first moments of the site's workers), and the relay sees what it would see
// alone — never a child, a pause or a paused request only the extension asked for. Against a fake
// session that records what Chrome is told; the real thing is e2e (origin-policy.test.ts).

import { describe, expect, it } from 'vitest';
import { TabAutoAttach, type TabEvent } from '../../extension/src/tab-auto-attach';
import { patternCovers, TabFetch } from '../../extension/src/tab-fetch';
import { quiet } from '../helpers/waits';

const BLOCK = [{ urlPattern: 'ws{s}?://localhost:*/*', offline: true }];
const attachedEvent = (sessionId: string, type: string, waitingForDebugger: boolean): TabEvent => ({
  tabId: 1,
  method: 'Target.attachedToTarget',
  params: { sessionId, targetInfo: { targetId: `T-${sessionId}`, type }, waitingForDebugger },
});

function autoAttachOnTab() {
  const told: Array<[string | undefined, string, unknown]> = [];
  const shown: TabEvent[] = [];
  let answer: Promise<unknown> = Promise.resolve({});
  const share = new TabAutoAttach(
    async (_tabId, sessionId, method, params) => {
      told.push([sessionId, method, params]);
      return method === 'Network.emulateNetworkConditionsByRule' ? answer : {};
    },
    (event) => shown.push(event),
  );
  return {
    share,
    told,
    shown,
    slowRules: (p: Promise<unknown>) => void (answer = p),
  };
}

describe("a tab's auto-attach, shared", () => {
  it('is the relay’s alone while the policy stops no WebSocket', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    expect(told).toEqual([]);
    const asked = { autoAttach: true, flatten: true, waitForDebuggerOnStart: true };
    await share.relayAsked(1, asked);
    expect(told).toEqual([[undefined, 'Target.setAutoAttach', asked]]);
    share.event(attachedEvent('S1', 'service_worker', true));
    expect(shown).toEqual([attachedEvent('S1', 'service_worker', true)]);
  });

  it('catches a new service worker paused, sends it the rules, lets it run, and shows the relay none of it', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    expect(told).toEqual([
      [
        undefined,
        'Target.setAutoAttach',
        expect.objectContaining({
          autoAttach: true,
          waitForDebuggerOnStart: true,
          filter: [{ type: 'service_worker' }],
        }),
      ],
    ]);
    told.length = 0;
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event({ tabId: 1, sessionId: 'W1', method: 'Network.requestWillBeSent', params: {} });
    share.event({ tabId: 1, method: 'Page.loadEventFired', params: {} });
    await quiet(10);
    expect(told.map(([session, method]) => `${session} ${method}`)).toEqual([
      'W1 Network.enable',
      'W1 Network.emulateNetworkConditionsByRule',
      'W1 Runtime.runIfWaitingForDebugger',
    ]);
    expect(told[1]![2]).toEqual({
      matchedNetworkConditions: [{ ...BLOCK[0], latency: 0, downloadThroughput: -1, uploadThroughput: -1 }],
    });
    // Only the page's own event reaches the relay; the worker's attach, events and detach do not.
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W1' } });
    expect(shown.map((e) => e.method)).toEqual(['Page.loadEventFired']);
  });

  it('holds the tab’s later events back while a worker gets its rules, and sends them in order', async () => {
    const { share, shown, slowRules } = autoAttachOnTab();
    let answerRules!: () => void;
    slowRules(new Promise<void>((resolve) => (answerRules = resolve)));
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event({ tabId: 1, sessionId: 'W1', method: 'Runtime.executionContextCreated', params: {} });
    share.event({ tabId: 1, method: 'Page.frameNavigated', params: {} });
    await quiet(10);
    expect(shown).toEqual([]);
    answerRules();
    await quiet(10);
    expect(shown.map((e) => `${e.sessionId ?? ''} ${e.method}`)).toEqual([
      ' Target.attachedToTarget',
      'W1 Runtime.executionContextCreated',
      ' Page.frameNavigated',
    ]);
    // The relay asked for new targets paused: this one waits for the relay's client.
    expect(shown[0]!.params!.waitingForDebugger).toBe(true);
  });

  it('pauses new targets for its own sake only: the relay, which asked for no pause, is told they run', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: false });
    told.length = 0;
    await share.hold(BLOCK);
    expect(told).toEqual([
      [undefined, 'Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: true }],
    ]);
    told.length = 0;
    share.event(attachedEvent('F1', 'iframe', true));
    expect(told).toEqual([['F1', 'Runtime.runIfWaitingForDebugger', undefined]]);
    expect(shown).toEqual([attachedEvent('F1', 'iframe', false)]);
  });

  it('starts Chrome’s auto-attach over when the relay comes or goes, so it sees the children it would alone', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    share.event(attachedEvent('W1', 'service_worker', false));
    await quiet(10);
    told.length = 0;
    const asked = { autoAttach: true, flatten: true, waitForDebuggerOnStart: true };
    await share.relayAsked(1, asked);
    expect(told.filter(([, method]) => method === 'Target.setAutoAttach').map(([, , p]) => p)).toEqual([
      { autoAttach: false, waitForDebuggerOnStart: false },
      asked,
    ]);
    // Chrome detaches the extension's child (not shown) and attaches it again for the relay (shown).
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W1' } });
    share.event(attachedEvent('W2', 'service_worker', false));
    await quiet(10);
    expect(shown.map((e) => `${e.method} ${String(e.params!.sessionId)}`)).toEqual(['Target.attachedToTarget W2']);
    // A worker of the relay's that Chrome stopped and started again: the relay asked for pauses, it waits for it.
    told.length = 0;
    share.event({ tabId: 1, sessionId: 'W2', method: 'Inspector.targetReloadedAfterCrash', params: {} });
    expect(told).toEqual([]);
    // The relay lets go: off, then the extension's own again; the relay is told its child went.
    await share.relayAsked(1, { autoAttach: false, waitForDebuggerOnStart: false });
    expect(
      told
        .filter(([, method]) => method === 'Target.setAutoAttach')
        .map(([, , p]) => (p as { autoAttach: boolean }).autoAttach),
    ).toEqual([false, true]);
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W2' } });
    expect(shown.at(-1)).toMatchObject({ method: 'Target.detachedFromTarget', params: { sessionId: 'W2' } });
  });

  it('lets the extension’s own worker run again when Chrome restarts it, and forgets a fresh session’s past', async () => {
    const { share, told } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    share.event(attachedEvent('W1', 'service_worker', false));
    await quiet(10);
    told.length = 0;
    share.event({ tabId: 1, sessionId: 'W1', method: 'Inspector.targetReloadedAfterCrash', params: {} });
    expect(told).toEqual([['W1', 'Runtime.runIfWaitingForDebugger', undefined]]);
    await share.relayAsked(1, { autoAttach: true, flatten: true });
    told.length = 0;
    await share.attached(1, true); // a fresh debugger session: the relay's ask is gone with the old one
    expect(told).toEqual([
      [undefined, 'Target.setAutoAttach', expect.objectContaining({ filter: [{ type: 'service_worker' }] })],
    ]);
  });
});

function fetchOnTab() {
  const told: Array<[string, unknown]> = [];
  const shown: TabEvent[] = [];
  const caught: string[] = [];
  const share = new TabFetch(
    async (_tabId, method, params) => void told.push([method, params]),
    (event) => shown.push(event),
    async (url) => void caught.push(url),
  );
  return { share, told, shown, caught };
}
const paused = (
  requestId: string,
  url: string,
  resourceType: string,
  extra: Record<string, unknown> = {},
): TabEvent => ({
  tabId: 1,
  method: 'Fetch.requestPaused',
  params: { requestId, request: { url }, resourceType, ...extra },
});

describe("a tab's request interception, shared", () => {
  it.each([
    [{}, 'https://a.test/x', 'Document', false, true],
    [{ urlPattern: 'https://a.test/*' }, 'https://a.test/x', 'Script', false, true],
    [{ urlPattern: 'https://a.test/*' }, 'https://b.test/x', 'Script', false, false],
    [{ urlPattern: 'https://a.test/?' }, 'https://a.test/xy', 'Script', false, false],
    [{ urlPattern: 'https://a.test/\\*' }, 'https://a.test/*', 'Script', false, true],
    [{ urlPattern: 'https://a.test/\\*' }, 'https://a.test/x', 'Script', false, false],
    [{ urlPattern: '*.js(1)' }, 'https://a.test/a.js(1)', 'Script', false, true],
    [{ resourceType: 'Document' }, 'https://a.test/', 'Other', false, false],
    [{ requestStage: 'Response' }, 'https://a.test/', 'Other', false, false],
    [{ requestStage: 'Response' }, 'https://a.test/', 'Other', true, true],
  ])('pattern %j covers %s (%s, at response %s): %s', (pattern, url, type, atResponse, covers) => {
    expect(patternCovers(pattern, url, type, atResponse)).toBe(covers);
  });

  it('is the relay’s alone while the policy stops no WebSocket', async () => {
    const { share, told, shown } = fetchOnTab();
    await share.attached(1, false);
    const asked = { patterns: [{ resourceType: 'Document' }] };
    await share.relayAsked(1, 'Fetch.enable', asked);
    await share.relayAsked(1, 'Fetch.enable', asked);
    expect(told).toEqual([
      ['Fetch.enable', asked],
      ['Fetch.enable', asked],
    ]);
    share.event(paused('R1', 'https://a.test/shared.js', 'Other'));
    expect(shown).toHaveLength(1);
  });

  it('holds a worker script’s request until the worker is caught, and lets it go itself when the relay does not want it', async () => {
    const { share, told, shown, caught } = fetchOnTab();
    await share.attached(1, false);
    await share.hold(true);
    expect(told).toEqual([
      ['Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Other', requestStage: 'Request' }] }],
    ]);
    told.length = 0;
    share.event(paused('R1', 'https://a.test/shared.js', 'Other'));
    await quiet(10);
    expect(caught).toEqual(['https://a.test/shared.js']);
    expect(told).toEqual([['Fetch.continueRequest', { requestId: 'R1' }]]);
    expect(shown).toEqual([]);
  });

  it('merges the relay’s patterns with its own: the relay is shown what it asked for, after the catch', async () => {
    const { share, told, shown, caught } = fetchOnTab();
    await share.attached(1, false);
    await share.hold(true);
    told.length = 0;
    await share.relayAsked(1, 'Fetch.enable', {
      patterns: [{ urlPattern: '*', requestStage: 'Request' }],
      handleAuthRequests: true,
    });
    expect(told).toEqual([
      [
        'Fetch.enable',
        {
          patterns: [
            { urlPattern: '*', requestStage: 'Request' },
            { urlPattern: '*', resourceType: 'Other', requestStage: 'Request' },
          ],
          handleAuthRequests: true,
        },
      ],
    ]);
    told.length = 0;
    share.event(paused('R1', 'https://a.test/shared.js', 'Other'));
    share.event(paused('R2', 'https://a.test/', 'Document'));
    share.event({ tabId: 1, method: 'Fetch.authRequired', params: { requestId: 'R3' } });
    await quiet(10);
    expect(caught).toEqual(['https://a.test/shared.js']);
    expect(told).toEqual([]); // the relay's client answers each
    expect(shown.map((e) => e.params!.requestId).sort()).toEqual(['R1', 'R2', 'R3']);

    // Its patterns cover documents only: a worker's script is the extension's alone.
    await share.relayAsked(1, 'Fetch.enable', { patterns: [{ resourceType: 'Document' }] });
    told.length = 0;
    shown.length = 0;
    share.event(paused('R4', 'https://a.test/other.js', 'Other'));
    await quiet(10);
    expect(told).toEqual([['Fetch.continueRequest', { requestId: 'R4' }]]);
    expect(shown).toEqual([]);

    // The relay lets go: Chrome lets its held requests go (a disable), then the extension's own again.
    told.length = 0;
    await share.relayAsked(1, 'Fetch.disable', {});
    expect(told.map(([method]) => method)).toEqual(['Fetch.disable', 'Fetch.enable']);
    // The policy no longer stops WebSockets: interception ends.
    told.length = 0;
    await share.hold(false);
    expect(told).toEqual([['Fetch.disable', undefined]]);
  });
});
