import { describe, expect, it } from 'vitest';
import { until } from '../helpers/waits';
import type { AskKind } from '../../shared/ask-kinds';
import { PersonActivity } from '../../relay/consent/person-activity';
import { PersonQuestions } from '../../relay/consent/person-questions';
import type { AgentPage } from '../../relay/agent/tabs/page-finder';
import { TabControl } from '../../relay/agent/tabs/tab-control';
import { TabGate } from '../../relay/agent/tabs/tab-gate';
import { tabKey } from '../../relay/agent/tabs/tab-key';
import { elementRefs } from '../../relay/operations/element-refs';
import type { GateSpec } from '../../relay/operations/operation';

/**
 * A gate over a fake page at `url`, whose element e1 does (or does not) send a form; `readAt`: the
 * address the page says once it is read (a person's tab that moved while it rested).
 */
function gateOn(url: string, asked: AskKind[], sendsForm = false, readAt = url) {
  const control = new TabControl();
  const activity = new PersonActivity(() => 300);
  const questions = new PersonQuestions();
  let at = url;
  const read = async () => ((at = readAt), 'page');
  const page = { url: () => at, title: read, isClosed: () => false } as unknown as AgentPage['page'];
  const found = { page, targetId: 'T1', tab: tabKey('chrome', 'T1') } as AgentPage;
  // How often a page was looked for (on a Grid profile, each look may make a browser).
  const finds = { count: 0 };
  const gate = new TabGate({
    find: async () => (finds.count++, found),
    tabId: async () => 'T1',
    resolve: async () => ({ evaluate: async () => ({ sends: sendsForm, downloads: false }) }) as never,
    control,
    activity,
    questions,
    askOf: () => asked,
    checkUrl: (_profile: string, url: string) => {
      if (url.includes('blocked.test')) throw Object.assign(new Error(`${url} is blocked`), { code: 'origin_blocked' });
    },
    holdPopups: async () => {},
  });
  // The call's record as the invoker makes it (control/operation-handlers.ts).
  const pass = (spec: GateSpec<any>, input: Record<string, unknown>, label = 'click e1 button "Go"') => {
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const timeoutMs = typeof input.timeoutMs === 'number' ? input.timeoutMs : undefined;
    const call = {
      profile: 'chrome',
      named: true,
      targetId: str(input.targetId),
      session: str(input.session),
      timeoutMs,
    };
    return gate.pass({ call: { ...call, refs: elementRefs(input) }, spec, input, label });
  };
  return { gate, control, activity, questions, pass, finds, found, close: () => (activity.close(), questions.close()) };
}

const click: GateSpec<{ ref: string }> = { changes: true, touches: () => ({ sends: 'click' }) };
const navigate: GateSpec<{ url: string }> = { changes: true, touches: (i) => ({ url: i.url }) };

describe('the gate', () => {
  it('lets a call through at once when nothing is asked and nobody holds the tab, and gives the session the tab', async () => {
    const g = gateOn('https://shop.test/', []);
    // The page it found goes with the call: the handler does not look for it again.
    expect(await g.pass(click, { ref: 'e1', session: 'a' })).toEqual({ waited: 0, targetId: 'T1', found: g.found });
    expect(g.control.holder(tabKey('chrome', 'T1'))).toEqual({ kind: 'agent', session: 'a' });
    await expect(g.pass(click, { ref: 'e1', session: 'b' })).rejects.toMatchObject({ code: 'tab_held' });
    g.close();
  });

  it('asks before a click that sends a form, and not before one that does not', async () => {
    const sending = gateOn('https://shop.test/', ['submit'], true);
    const waiting = sending.pass(click, { ref: 'e1', timeoutMs: 5_000 });
    const question = await until('the question', () => sending.questions.pending()[0], 2_000);
    expect(question).toMatchObject({
      kinds: ['submit'],
      what: 'click e1 button "Go"',
      url: 'https://shop.test/',
      targetId: 'T1',
    });
    sending.questions.answer(question!.id, true, 'side panel');
    expect((await waiting).targetId).toBe('T1');
    sending.close();
    // A tab that moved while it rested is named where it is now: the gate reads it first.
    const moved = gateOn('https://shop.test/', ['submit'], true, 'https://shop.test/checkout');
    void moved.pass(click, { ref: 'e1', timeoutMs: 5_000 }).catch(() => {});
    expect(await until('the question', () => moved.questions.pending()[0], 2_000)).toMatchObject({
      url: 'https://shop.test/checkout',
    });
    moved.close();
    const plain = gateOn('https://shop.test/', ['submit'], false);
    expect((await plain.pass(click, { ref: 'e1' })).waited).toBe(0);
    expect(plain.questions.pending()).toEqual([]);
    plain.close();
  });

  it('asks before an operation that always is one, and the session takes nothing when the person declines', async () => {
    const g = gateOn('https://shop.test/', ['evaluate']);
    const waiting = g.pass(
      { changes: true, asks: ['evaluate', 'download'] },
      { session: 'a', timeoutMs: 5_000 },
      'evaluate',
    );
    await until('the question', () => g.questions.pending()[0], 2_000);
    expect(g.questions.pending()[0]!.kinds).toEqual(['evaluate']);
    g.questions.answer(g.questions.pending()[0]!.id, false, 'side panel');
    await expect(waiting).rejects.toMatchObject({ code: 'person_declined' });
    expect(g.control.holder(tabKey('chrome', 'T1'))).toBeUndefined();
    g.close();
  });

  it('asks before a new site once per session: the page it is on and a site it was allowed are known', async () => {
    const g = gateOn('https://shop.test/cart', ['new-site']);
    expect((await g.pass(navigate, { url: 'https://shop.test/checkout', session: 'a' })).waited).toBe(0);
    const going = g.pass(
      navigate,
      { url: 'https://bank.test/', session: 'a', timeoutMs: 5_000 },
      'navigate https://bank.test/',
    );
    await until('the question', () => g.questions.pending()[0], 2_000);
    g.questions.answer(g.questions.pending()[0]!.id, true, 'live view');
    await going;
    expect((await g.pass(navigate, { url: 'https://bank.test/other', session: 'a' })).waited).toBe(0);
    // Another session has been on the shop's page only: the bank is new to it.
    g.control.release(tabKey('chrome', 'T1'), 'a');
    await expect(g.pass(navigate, { url: 'https://bank.test/', session: 'b', timeoutMs: 50 })).rejects.toMatchObject({
      code: 'waiting_for_person',
    });
    g.close();
  });

  it('watches the load of a tab a call opens, when the person asks about what only the requests tell', async () => {
    const open: GateSpec<{ url: string }> = { changes: false, opens: true, touches: (i) => ({ url: i.url }) };
    const none = gateOn('https://shop.test/', ['evaluate']);
    expect(await none.pass(open, { url: 'https://shop.test/a' })).toEqual({ waited: 0 });
    none.close();
    const g = gateOn('https://shop.test/', ['submit']);
    const passed = await g.pass(open, { url: 'https://shop.test/a', session: 'a' }, 'open https://shop.test/a');
    expect(g.finds.count).toBe(0); // nothing is found before the tab is there
    const opening = passed.opened!('T1', async (found) => found.targetId);
    // This stand-in page cannot be watched: the person is asked before, about all of it, on the new tab.
    const question = await until('the question', () => g.questions.pending()[0], 2_000);
    expect(question).toMatchObject({ kinds: ['submit'], targetId: 'T1' });
    expect(question!.what).toMatch(/^open https:\/\/shop\.test\/a: clawd cannot watch/);
    g.questions.answer(question!.id, true, 'side panel');
    expect(await opening).toBe('T1');
    expect(g.finds.count).toBe(1);
    g.close();
  });

  it('refuses a load the policy blocks before it asks the person anything, or finds (or makes) a browser', async () => {
    const g = gateOn('https://shop.test/', ['new-site']);
    await expect(g.pass(navigate, { url: 'https://blocked.test/', timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'origin_blocked',
    });
    expect(g.questions.pending()).toEqual([]);
    expect(g.finds.count).toBe(0);
    g.close();
  });

  it('looks at the person’s hands again after they answered, before the call goes', async () => {
    const g = gateOn('https://shop.test/', ['evaluate']);
    const passing = g.pass({ changes: true, asks: ['evaluate'] }, { timeoutMs: 5_000 }, 'evaluate');
    await until('the question', () => g.questions.pending()[0], 2_000);
    g.activity.input('T1'); // they start typing while the question is open
    g.questions.answer(g.questions.pending()[0]!.id, true, 'side panel');
    const { waited } = await passing;
    expect(waited).toBeGreaterThanOrEqual(250);
    g.close();
  });

  it("waits while the person's hands are on the tab and says how long it waited", async () => {
    const g = gateOn('https://shop.test/', []);
    g.activity.input('T1');
    const { waited } = await g.pass(click, { ref: 'e1', timeoutMs: 5_000 });
    expect(waited).toBeGreaterThanOrEqual(250);
    g.activity.input('T1');
    await expect(g.pass(click, { ref: 'e1', timeoutMs: 50 })).rejects.toMatchObject({ code: 'person_active' });
    g.close();
  });
});
