import { describe, expect, it } from 'vitest';
import { parseExtensionFrame, parseRelayFrame, personInputsOf } from '../../shared/protocol-parse';

const tab = { tabId: 1, targetInfo: { targetId: 'T', type: 'page', title: 't', url: 'https://a.test/' } };
const hello = {
  type: 'hello',
  protocol: 1,
  extensionVersion: '1.0.0',
  browser: { product: 'Chrome/1', userAgent: 'ua', protocolVersion: '1.3' },
  tabs: [tab],
};

/** A recipe as the side panel sends it from a recording (extension/src/panel-recording.ts). */
const taught = {
  source: 'recorded by the person',
  params: [{ name: 'fullName', about: 'Full name' }],
  secrets: [],
  steps: [
    { do: 'goto', url: 'http://127.0.0.1:1/' },
    {
      do: 'fill',
      element: { locator: { by: 'role', role: 'textbox', name: 'Full name' } },
      value: '{{param:fullName}}',
    },
    { do: 'click', element: { locator: { by: 'role', role: 'button', name: 'Next', nth: 1 } } },
  ],
};

describe('extension frames', () => {
  it('accepts every well-formed frame type', () => {
    const frames = [
      hello,
      { type: 'reply', id: 1, result: { a: 1 } },
      { type: 'reply', id: 2, error: { code: 'cdp', message: 'm', cdp: { code: -32000, message: 'm' } } },
      { type: 'event', tabId: 1, method: 'Page.loadEventFired', params: {} },
      { type: 'event', tabId: 1, sessionId: 'S', method: 'Runtime.consoleAPICalled' },
      { type: 'tabAttached', tab },
      { type: 'tabDetached', tabId: 1, reason: 'target_closed' },
      { type: 'tabUpdated', tabId: 1, title: 'x' },
      { type: 'ping' },
      { type: 'handBack', tabId: 1 },
      { type: 'tabAttached', tab: { ...tab, session: 'shop' } },
      { type: 'personInput', tabId: 1 },
      { type: 'personInput', tabId: 1, inputs: [{ kind: 'key', key: 'a' }, { kind: 'mouse' }, { kind: 'wheel' }] },
      { type: 'panel', open: true },
      { type: 'person', say: { answer: 'q1', allow: false } },
      { type: 'person', say: { stop: true } },
      { type: 'person', say: { block: 'https://a.test' } },
      { type: 'person', say: { ask: ['submit', 'storage'] } },
      { type: 'person', say: { record: { targetId: 'T1', on: true } } },
      { type: 'person', say: { recipe: { id: 'r1', name: 'order', targetId: 'T1', recipe: taught } } },
    ];
    for (const frame of frames) expect(parseExtensionFrame(JSON.stringify(frame))).toEqual({ ok: true, frame });
  });

  it.each([
    ['{oops', /^not JSON/],
    ['[]', /must be a JSON object/],
    ['"hello"', /must be a JSON object/],
    [JSON.stringify({ type: 'warp' }), /unknown frame type "warp"/],
    [JSON.stringify({ tabId: 1 }), /unknown frame type undefined/],
    [JSON.stringify({ ...hello, protocol: '1' }), /hello: protocol must be an integer/],
    [JSON.stringify({ ...hello, tabs: [{ tabId: 1 }] }), /hello: tabs must be a list/],
    [JSON.stringify({ ...hello, browser: { product: 'x' } }), /hello: browser must be/],
    [JSON.stringify({ type: 'reply', id: 1.5 }), /reply: id must be an integer/],
    [JSON.stringify({ type: 'reply', id: 1, error: 'boom' }), /reply: error must be/],
    [JSON.stringify({ type: 'event', tabId: 1 }), /event: method must be a string/],
    [JSON.stringify({ type: 'event', tabId: 1, method: 'A.b', params: [] }), /event: params must be an object/],
    [JSON.stringify({ type: 'tabDetached', tabId: 1 }), /tabDetached: reason must be a string/],
    [JSON.stringify({ type: 'toString' }), /unknown frame type "toString"/],
    [JSON.stringify({ type: 'handBack', tabId: '1' }), /handBack: tabId must be an integer/],
    [JSON.stringify({ type: 'personInput' }), /personInput: tabId must be an integer/],
    [JSON.stringify({ type: 'personInput', tabId: 1, inputs: [{ kind: 'gaze' }] }), /personInput: inputs must be/],
    [JSON.stringify({ type: 'personInput', tabId: 1, inputs: [{ kind: 'mouse', key: 'a' }] }), /personInput: inputs/],
    [
      JSON.stringify({ type: 'personInput', tabId: 1, inputs: Array(33).fill({ kind: 'wheel' }) }),
      /personInput: inputs must be at most 32/,
    ],
    [JSON.stringify({ type: 'panel', open: 'yes' }), /panel: open must be true or false/],
    [JSON.stringify({ type: 'person', say: { answer: 'q1' } }), /person: say.answer needs a question id and allow/],
    [
      JSON.stringify({ type: 'person', say: { ask: ['buy'] } }),
      /person: say.ask "buy" is not something clawd asks about/,
    ],
    [JSON.stringify({ type: 'person', say: { launch: true } }), /person: say must be/],
    [JSON.stringify({ type: 'person', say: { record: { targetId: 'T1' } } }), /person: say.record needs/],
    [
      JSON.stringify({ type: 'person', say: { recipe: { id: 'r1', name: '../x', targetId: 'T1', recipe: taught } } }),
      /person: say.recipe needs an id, a name/,
    ],
    [
      JSON.stringify({
        type: 'person',
        say: { recipe: { id: 'r1', name: 'x', targetId: 'T1', recipe: { ...taught, steps: [{ do: 'constructor' }] } } },
      }),
      /person: say.recipe: step 1 is not one of goto/,
    ],
    [
      JSON.stringify({
        type: 'person',
        say: {
          recipe: {
            id: 'r1',
            name: 'x',
            targetId: 'T1',
            recipe: { ...taught, steps: [{ do: 'click', element: { locator: { by: 'xpath', xpath: '//a' } } }] },
          },
        },
      }),
      /person: say.recipe: step 1 \(click\) has a locator that is not one of/,
    ],
    [
      JSON.stringify({
        type: 'person',
        say: { recipe: { id: 'r1', name: 'x', targetId: 'T1', recipe: { ...taught, params: [{ name: 'a b' }] } } },
      }),
      /person: say.recipe: param 0 needs a name/,
    ],
    [JSON.stringify({ type: 'tabAttached', tab: { ...tab, session: 3 } }), /tabAttached: tab must be/],
  ])('refuses %s', (raw, error) => {
    const parsed = parseExtensionFrame(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });
});

describe("what a page's watch says it saw", () => {
  it('keeps only inputs a frame may carry, the last 32 of them', () => {
    expect(personInputsOf('keys')).toBeUndefined();
    expect(personInputsOf([{ kind: 'key', key: 'a' }, { kind: 'gaze' }, 7, { kind: 'touch' }])).toEqual([
      { kind: 'key', key: 'a' },
      { kind: 'touch' },
    ]);
    const many = Array.from({ length: 40 }, (_, i) => ({ kind: 'key', key: String(i) }));
    expect(personInputsOf(many)).toEqual(many.slice(8));
  });
});

describe('relay frames', () => {
  it('accepts requests of the allow-listed ops only', () => {
    expect(parseRelayFrame(JSON.stringify({ type: 'request', id: 1, op: 'cdp', tabId: 1, method: 'A.b' })).ok).toBe(
      true,
    );
    expect(
      parseRelayFrame(JSON.stringify({ type: 'request', id: 2, op: 'createTab', url: 'about:blank', active: true })).ok,
    ).toBe(true);
    expect(
      parseRelayFrame(
        JSON.stringify({ type: 'request', id: 8, op: 'createTab', url: 'about:blank', active: true, session: 'shop' }),
      ).ok,
    ).toBe(true);
    expect(
      parseRelayFrame(
        JSON.stringify({ type: 'request', id: 9, op: 'createTab', url: 'about:blank', active: true, session: 7 }),
      ).ok,
    ).toBe(false);
    expect(
      parseRelayFrame(
        JSON.stringify({
          type: 'consent',
          state: { profile: 'chrome', tabs: [], actions: [], policy: {}, ask: [], questions: [] },
        }),
      ).ok,
    ).toBe(true);
    expect(parseRelayFrame(JSON.stringify({ type: 'consent', state: { profile: 'chrome' } })).ok).toBe(false);
    expect(parseRelayFrame(JSON.stringify({ type: 'request', id: 3, op: 'closeTab', tabId: 1 })).ok).toBe(true);
    expect(
      parseRelayFrame(JSON.stringify({ type: 'request', id: 5, op: 'showHandoff', tabId: 1, reason: 'Log in' })).ok,
    ).toBe(true);
    expect(parseRelayFrame(JSON.stringify({ type: 'request', id: 6, op: 'showHandoff', tabId: 1 })).ok).toBe(true);
    expect(parseRelayFrame(JSON.stringify({ type: 'request', id: 7, op: 'showHandoff', tabId: 1, reason: 3 })).ok).toBe(
      false,
    );
    const evil = parseRelayFrame(JSON.stringify({ type: 'request', id: 4, op: 'eval', code: '1' }));
    expect(evil).toEqual({ ok: false, error: 'request: unknown request op "eval"' });
    expect(
      parseRelayFrame(JSON.stringify({ type: 'welcome', protocol: 1, relayVersion: '1', sessions: [{ tabId: 1 }] })).ok,
    ).toBe(false);
  });
});
