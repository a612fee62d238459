// A handed-over tab's one debugger session, shared by the relay and the extension: its auto-attach
// (tab-auto-attach.ts) and its request interception (tab-fetch.ts) carry the relay's asks and the
// extension's own (the first moments of the site's workers), and the relay sees what it would see
// alone — never a child, a pause or a paused request only the extension asked for. Against a fake
// session that records what Chrome is told; the real thing is e2e (origin-policy.test.ts).

import { describe, expect, it } from 'vitest';
import { filterIncludes, TabAutoAttach, type TabEvent } from '../../extension/src/tab-auto-attach';
import { patternCovers, TabFetch } from '../../extension/src/tab-fetch';
import type { PauseBook } from '../../extension/src/holds';
import type { HeldPause } from '../../extension/src/worker-state';
import { quiet } from '../helpers/waits';

const attachedEvent = (sessionId: string, type: string, waitingForDebugger: boolean): TabEvent => ({
  tabId: 1,
  method: 'Target.attachedToTarget',
  params: {
    sessionId,
    targetInfo: { targetId: `T-${sessionId}`, type, url: 'https://a.test/sw.js' },
    waitingForDebugger,
  },
});

const BLOCK = [{ urlPattern: 'ws{s}?://localhost:*/*', offline: true }];

/** A book of pauses (holds.ts) that says what is in it, and what was said done. */
function pauseBook() {
  const now = new Map<string, HeldPause>();
  const done: HeldPause[] = [];
  const book: PauseBook = {
    add: (pause) => void now.set(JSON.stringify(pause), pause),
    done: (pause) => void (now.delete(JSON.stringify(pause)), done.push(pause)),
  };
  return { book, held: () => [...now.values()], done };
}

function autoAttachOnTab(options: { waitForRestore?: boolean } = {}) {
  const told: Array<[string | undefined, string, unknown]> = [];
  const shown: TabEvent[] = [];
  /** The sessions given the rules. */
  const ruled: string[] = [];
  let rulesAnswer: Promise<void> = Promise.resolve();
  let runAnswer: Promise<void> = Promise.resolve();
  const pauses = pauseBook();
  const share = new TabAutoAttach(
    async (_tabId, sessionId, method, params) => {
      told.push([sessionId, method, params]);
      if (method === 'Network.emulateNetworkConditionsByRule') {
        ruled.push(sessionId!);
        await rulesAnswer;
      }
      if (method === 'Runtime.runIfWaitingForDebugger') await runAnswer;
      return {};
    },
    (event) => shown.push(event),
    () => {},
    options.waitForRestore ?? false,
    pauses.book,
  );
  return {
    share,
    told,
    shown,
    ruled,
    pauses,
    slowRules: (p: Promise<void>) => void (rulesAnswer = p),
    slowRun: (p: Promise<void>) => void (runAnswer = p),
  };
}
const autoAttachTold = (told: Array<[string | undefined, string, unknown]>) =>
  told.filter(([, method]) => method === 'Target.setAutoAttach').map(([, , params]) => params);

describe("a tab's auto-attach, shared", () => {
  it.each([
    [undefined, 'service_worker', true],
    [undefined, 'browser', false],
    [[{ type: 'page', exclude: true }, {}], 'service_worker', true],
    [[{ type: 'service_worker', exclude: true }, {}], 'service_worker', false],
    [[{ type: 'iframe' }], 'service_worker', false],
  ])('filter %j lets %s through: %s', (filter, type, through) => {
    expect(filterIncludes(filter, type)).toBe(through);
  });

  it('is the relay’s alone while the policy stops no WebSocket', async () => {
    const { share, told, shown, ruled } = autoAttachOnTab();
    await share.attached(1, false);
    expect(told).toEqual([]);
    const asked = { autoAttach: true, flatten: true, waitForDebuggerOnStart: true };
    await share.relayAsked(1, asked);
    expect(told).toEqual([[undefined, 'Target.setAutoAttach', asked]]);
    share.event(attachedEvent('S1', 'service_worker', true));
    expect(shown).toEqual([attachedEvent('S1', 'service_worker', true)]);
    expect(ruled).toEqual([]);
    // The relay's "off" and ours are one: a policy change tells Chrome nothing new.
    await share.relayAsked(1, { autoAttach: false, flatten: true });
    told.length = 0;
    await share.hold([]);
    expect(told).toEqual([]);
  });

  it('catches a new service worker paused, gives it the rules, lets it run, and shows the relay none of it', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    expect(autoAttachTold(told)).toEqual([
      { autoAttach: true, flatten: true, waitForDebuggerOnStart: true, filter: [{ type: 'service_worker' }] },
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

  it('holds a new worker’s events back until it has the rules, and lets the tab’s own go on meanwhile', async () => {
    const { share, shown, slowRules } = autoAttachOnTab();
    let answered!: () => void;
    slowRules(new Promise<void>((resolve) => (answered = resolve)));
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event({ tabId: 1, sessionId: 'W1', method: 'Runtime.executionContextCreated', params: {} });
    share.event({ tabId: 1, method: 'Page.frameNavigated', params: {} });
    await quiet(10);
    expect(shown.map((e) => e.method)).toEqual(['Page.frameNavigated']);
    answered();
    await quiet(10);
    expect(shown.map((e) => `${e.sessionId ?? ''} ${e.method}`)).toEqual([
      ' Page.frameNavigated',
      ' Target.attachedToTarget',
      'W1 Runtime.executionContextCreated',
    ]);
    // The relay asked for new targets paused: this one waits for the relay's client.
    expect(shown[1]!.params!.waitingForDebugger).toBe(true);
  });

  it('keeps the Network events the rules need from the relay until a client enables Network, and never turns it off', async () => {
    const { share, told, shown, ruled } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    await quiet(10);
    const network = { tabId: 1, sessionId: 'W1', method: 'Network.requestWillBeSent', params: {} };
    share.event(network);
    share.event({ tabId: 1, sessionId: 'W1', method: 'Runtime.consoleAPICalled', params: {} });
    expect(shown.map((e) => e.method)).toEqual(['Target.attachedToTarget', 'Runtime.consoleAPICalled']);
    expect(share.relayChildCommand(1, 'W1', 'Network.enable')).toBeUndefined(); // sent: the client's own
    share.event(network);
    expect(shown.at(-1)).toEqual(network);
    told.length = 0;
    expect(await share.relayChildCommand(1, 'W1', 'Network.disable')).toEqual({}); // answered, not done
    share.event(network);
    expect(shown.filter((e) => e.method === 'Network.requestWillBeSent')).toHaveLength(1);
    // A child the extension gave nothing is the relay's alone.
    expect(share.relayChildCommand(1, 'F1', 'Network.disable')).toBeUndefined();
    // New rules reach the worker's session; none take them off.
    ruled.length = 0;
    await share.hold([{ urlPattern: 'ws{s}?://elsewhere:*/*', offline: true }]);
    await share.hold([]);
    expect(ruled).toEqual(['W1', 'W1']);
    expect(told.at(-1)).toEqual(['W1', 'Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [] }]);
  });

  it('puts a client’s own network conditions on a ruled worker after the rules, which they cannot replace', async () => {
    const { share, told } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    await quiet(10);
    const rules = (
      told.filter(([s, m]) => s === 'W1' && m === 'Network.emulateNetworkConditionsByRule').at(-1)![2] as {
        matchedNetworkConditions: unknown[];
      }
    ).matchedNetworkConditions;
    const lastConditions = () => told.filter(([, m]) => m === 'Network.emulateNetworkConditionsByRule').at(-1);
    // Rules of the client's own, or none at all: they follow the policy's (the first match decides).
    const theirs = { urlPattern: '*://x.test/*', offline: false, latency: 50 };
    expect(
      await share.relayChildCommand(1, 'W1', 'Network.emulateNetworkConditionsByRule', {
        matchedNetworkConditions: [theirs],
      }),
    ).toEqual({ ruleIds: [] }); // the fake session gives no ids; a real one's are cut to the client's
    expect(lastConditions()).toEqual([
      'W1',
      'Network.emulateNetworkConditionsByRule',
      { matchedNetworkConditions: [...rules, theirs] },
    ]);
    await share.relayChildCommand(1, 'W1', 'Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [] });
    expect(lastConditions()![2]).toEqual({ matchedNetworkConditions: rules });
    // The old command (Playwright's setOffline) is one rule for every request, after the policy's.
    const offline = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };
    expect(await share.relayChildCommand(1, 'W1', 'Network.emulateNetworkConditions', offline)).toEqual({});
    expect(lastConditions()![2]).toEqual({ matchedNetworkConditions: [...rules, { ...offline, urlPattern: '' }] });
    // New rules keep the client's after them.
    await share.hold([{ urlPattern: 'ws{s}?://elsewhere:*/*', offline: true }]);
    const now = (lastConditions()![2] as { matchedNetworkConditions: unknown[] }).matchedNetworkConditions;
    expect(now).toHaveLength(2);
    expect(now[1]).toEqual({ ...offline, urlPattern: '' });
    // A child the extension gave nothing is the relay's alone.
    expect(share.relayChildCommand(1, 'F1', 'Network.emulateNetworkConditions', offline)).toBeUndefined();
  });

  it('names the worker behind a ruled session, for the extension to hold before the relay lets go of it', async () => {
    const { share } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event(attachedEvent('F1', 'iframe', true));
    await quiet(10);
    expect(share.ruledWorker(1, 'W1')).toEqual({ targetId: 'T-W1', url: 'https://a.test/sw.js' });
    // A child without the rules, and a worker once the policy holds no WebSocket, detach as asked.
    expect(share.ruledWorker(1, 'F1')).toBeUndefined();
    await share.hold([]);
    expect(share.ruledWorker(1, 'W1')).toBeUndefined();
    // Gone: forgotten.
    await share.hold(BLOCK);
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W1' } });
    expect(share.ruledWorker(1, 'W1')).toBeUndefined();
  });

  it('says nothing of a worker that went while it was getting the rules', async () => {
    const { share, shown, slowRules } = autoAttachOnTab();
    let answered!: () => void;
    slowRules(new Promise<void>((resolve) => (answered = resolve)));
    await share.attached(1, false);
    await share.hold(BLOCK);
    await share.relayAsked(1, { autoAttach: true, flatten: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W1' } });
    answered();
    await quiet(10);
    expect(shown).toEqual([]);
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

  it('adds service workers to a relay filter that leaves them out, and keeps those workers its own', async () => {
    const { share, told, shown, ruled } = autoAttachOnTab();
    await share.attached(1, false);
    await share.hold(BLOCK);
    told.length = 0;
    const filter = [{ type: 'iframe' }];
    await share.relayAsked(1, { autoAttach: true, flatten: true, filter });
    expect(autoAttachTold(told).at(-1)).toEqual({
      autoAttach: true,
      flatten: true,
      waitForDebuggerOnStart: true,
      filter: [{ type: 'service_worker' }, { type: 'iframe' }],
    });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event(attachedEvent('F1', 'iframe', false));
    await quiet(10);
    expect(ruled).toEqual(['W1']);
    expect(shown.map((e) => e.params!.sessionId)).toEqual(['F1']);
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
    expect(autoAttachTold(told)).toEqual([{ autoAttach: false, waitForDebuggerOnStart: false }, asked]);
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
    expect(autoAttachTold(told).map((p) => (p as { autoAttach: boolean }).autoAttach)).toEqual([false, true]);
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
    expect(autoAttachTold(told)).toEqual([expect.objectContaining({ filter: [{ type: 'service_worker' }] })]);
  });

  it('after a worker restart, knows the attached tabs and the relay’s asks before any event goes on', async () => {
    const { share, told, shown, ruled } = autoAttachOnTab({ waitForRestore: true });
    share.event(attachedEvent('W1', 'service_worker', true));
    share.event({ tabId: 2, method: 'Page.loadEventFired', params: {} });
    expect(shown).toEqual([]);
    share.restore(
      [1, 2],
      [
        [2, { autoAttach: true, flatten: true }],
        [9, { autoAttach: true, flatten: true }],
      ],
    );
    await quiet(10);
    // Tab 1's worker: no relay ask there, so the extension's alone (let run; no rules before the policy comes).
    expect(ruled).toEqual([]);
    expect(told).toEqual([['W1', 'Runtime.runIfWaitingForDebugger', undefined]]);
    expect(shown.map((e) => e.method)).toEqual(['Page.loadEventFired']);
    // Chrome has the relay's ask on tab 2 already; a tab closed meanwhile (9) is not kept.
    told.length = 0;
    await share.hold([]);
    expect(told).toEqual([]);
  });

  it('keeps a new worker it holds in its book until Chrome has the word to run', async () => {
    const { share, told, pauses, slowRun } = autoAttachOnTab();
    let answered!: () => void;
    slowRun(new Promise<void>((resolve) => (answered = resolve)));
    await share.attached(1, false);
    await share.hold(BLOCK);
    share.event(attachedEvent('W1', 'service_worker', true));
    expect(pauses.held()).toEqual([{ tabId: 1, sessionId: 'W1' }]);
    await quiet(10);
    expect(told.at(-1)).toEqual(['W1', 'Runtime.runIfWaitingForDebugger', undefined]);
    expect(pauses.held()).toHaveLength(1); // said, not yet answered: a worker that stops now leaves it unsaid
    answered();
    await quiet(10);
    expect(pauses.held()).toEqual([]);
  });

  it('lets the new workers the last worker left waiting run once the rules are known, and shows the relay none of it', async () => {
    const { share, told, shown, pauses } = autoAttachOnTab({ waitForRestore: true });
    share.restore(
      [1],
      [[1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true }]],
      [
        { tabId: 1, sessionId: 'W0' },
        { tabId: 9, sessionId: 'W9' }, // a tab no longer attached: its session is gone
        { tabId: 1, requestId: 'R0' }, // tab-fetch.ts's
      ],
    );
    await quiet(10);
    expect(told).toEqual([]); // not before the rules
    expect(pauses.done).toEqual([{ tabId: 9, sessionId: 'W9' }]);
    await share.hold(BLOCK);
    await quiet(10);
    expect(told.filter(([session]) => session === 'W0').map(([, method]) => method)).toEqual([
      'Network.enable',
      'Network.emulateNetworkConditionsByRule',
      'Runtime.runIfWaitingForDebugger',
    ]);
    expect(pauses.done).toEqual([
      { tabId: 9, sessionId: 'W9' },
      { tabId: 1, sessionId: 'W0' },
    ]);
    // The relay never heard of it: its events and its end are not shown.
    share.event({ tabId: 1, sessionId: 'W0', method: 'Network.requestWillBeSent', params: {} });
    share.event({ tabId: 1, method: 'Target.detachedFromTarget', params: { sessionId: 'W0' } });
    expect(shown).toEqual([]);
  });

  it('after a worker restart with a policy coming, holds a new worker’s attach until the rules are known', async () => {
    const { share, told, shown } = autoAttachOnTab({ waitForRestore: true });
    // The attach that woke this worker: it must not run before its rules.
    share.event(attachedEvent('W1', 'service_worker', true));
    share.restore([1], [], [], true);
    await quiet(10);
    expect(told).toEqual([]);
    await share.hold(BLOCK);
    await quiet(10);
    expect(told.filter(([session]) => session === 'W1').map(([, method]) => method)).toEqual([
      'Network.enable',
      'Network.emulateNetworkConditionsByRule',
      'Runtime.runIfWaitingForDebugger',
    ]);
    expect(shown).toEqual([]);
  });

  it('gives the word to run to a service worker Chrome says does not wait (it may: its pauser ended)', async () => {
    const { share, told, shown } = autoAttachOnTab();
    await share.attached(1, false);
    await share.relayAsked(1, { autoAttach: true, flatten: true, waitForDebuggerOnStart: true });
    told.length = 0;
    share.event(attachedEvent('S1', 'service_worker', false));
    share.event(attachedEvent('F1', 'iframe', false));
    expect(told).toEqual([['S1', 'Runtime.runIfWaitingForDebugger', undefined]]);
    expect(shown.map((e) => e.params!.waitingForDebugger)).toEqual([false, false]);
  });
});

function fetchOnTab() {
  const told: Array<[string, unknown]> = [];
  const shown: TabEvent[] = [];
  const caught: string[] = [];
  const pauses = pauseBook();
  const share = new TabFetch(
    async (_tabId, method, params) => void told.push([method, params]),
    (event) => shown.push(event),
    async (url) => void caught.push(url),
    () => {},
    pauses.book,
  );
  return { share, told, shown, caught, pauses };
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
    // An authentication challenge for a request the relay's patterns do not cover: answered as Chrome would.
    told.length = 0;
    share.event({
      tabId: 1,
      method: 'Fetch.authRequired',
      params: { requestId: 'R5', request: { url: 'https://a.test/x' }, resourceType: 'Script' },
    });
    expect(told).toEqual([
      ['Fetch.continueWithAuth', { requestId: 'R5', authChallengeResponse: { response: 'Default' } }],
    ]);
    // The policy no longer stops WebSockets: interception ends.
    told.length = 0;
    await share.hold(false);
    expect(told).toEqual([['Fetch.disable', undefined]]);
  });

  it('tells a tab attached again (a new debugger session, which has nothing) the relay’s Fetch with its own', async () => {
    const { share, told } = fetchOnTab();
    await share.attached(1, false);
    await share.hold(true);
    const asked = { patterns: [{ resourceType: 'Document' }] };
    await share.relayAsked(1, 'Fetch.enable', asked);
    told.length = 0;
    await share.attached(1, false); // back from a chrome:// detour
    await share.relayAsked(1, 'Fetch.enable', asked); // the relay sets its clients' state up again
    expect(told).toEqual([
      [
        'Fetch.enable',
        {
          patterns: [{ resourceType: 'Document' }, { urlPattern: '*', resourceType: 'Other', requestStage: 'Request' }],
        },
      ],
    ]);
  });

  it('keeps a worker script’s request it holds in its book until Chrome has the word to go on', async () => {
    const { share, told, pauses } = fetchOnTab();
    await share.attached(1, false);
    await share.hold(true);
    share.event(paused('R1', 'https://a.test/shared.js', 'Other'));
    expect(pauses.held()).toEqual([{ tabId: 1, requestId: 'R1' }]);
    await quiet(10);
    expect(told.at(-1)).toEqual(['Fetch.continueRequest', { requestId: 'R1' }]);
    expect(pauses.held()).toEqual([]);
  });

  it('lets the requests the last worker left held go on, on the tabs still attached', async () => {
    const { share, told, pauses } = fetchOnTab();
    share.restore(
      [1],
      [],
      [
        { tabId: 1, requestId: 'R0' },
        { tabId: 9, requestId: 'R9' },
        { tabId: 1, sessionId: 'W0' }, // tab-auto-attach.ts's
      ],
    );
    await quiet(10);
    expect(told).toEqual([['Fetch.continueRequest', { requestId: 'R0' }]]);
    expect(pauses.done).toEqual(
      expect.arrayContaining([
        { tabId: 1, requestId: 'R0' },
        { tabId: 9, requestId: 'R9' },
      ]),
    );
    expect(pauses.done).toHaveLength(2);
  });

  it('lets a request go that Chrome paused for no one (interception left on by an earlier worker)', async () => {
    const { share, told, shown } = fetchOnTab();
    share.restore([1], []);
    share.event(paused('R1', 'https://a.test/', 'Document'));
    expect(told).toEqual([['Fetch.continueRequest', { requestId: 'R1' }]]);
    expect(shown).toEqual([]);
  });
});
