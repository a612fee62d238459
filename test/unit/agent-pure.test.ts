import { describe, expect, it } from 'vitest';
import { isFunctionSource, pageFunction } from '../../relay/agent/actions/actions';
import { toAgentError } from '../../relay/agent/agent-errors';
import { imageSize, labelBoxes } from '../../relay/agent/capture/capture';
import { RefStore } from '../../relay/agent/snapshots/ref-store';
import type { RefIndex } from '../../relay/agent/snapshots/snapshot-engine';
import { renderSnapshot, truncate, type AriaNode } from '../../relay/agent/snapshots/snapshot-render';
import { tabKey } from '../../relay/agent/tabs/tab-key';
import { actOperation } from '../../relay/operations/act-operations';
import { actionTimeout, normalizeRef } from '../../relay/operations/fields';
import { upload } from '../../relay/operations/hook-operations';
import { parseOperationInput } from '../../relay/operations/operation-table';

const parseAct = (body: Record<string, unknown>) => parseOperationInput(actOperation(body.kind), body, 'json');

const tree: AriaNode[] = [
  {
    role: 'generic',
    ref: 'e1',
    children: [
      { role: 'heading', name: 'Title', level: 1, ref: 'e2' },
      { role: 'generic', ref: 'e3', children: ['Name', { role: 'textbox', name: 'Name', ref: 'e4' }] },
      { role: 'button', name: 'Save', ref: 'e5' },
      { role: 'button', name: 'Save', ref: 'e6' },
      { role: 'checkbox', name: 'Agree', checked: true, ref: 'e7' },
      { role: 'link', name: 'Home', ref: 'e8', url: '/home' },
      { role: 'generic', ref: 'e9', text: 'plain text' },
    ],
  },
];

describe('snapshot formats', () => {
  it("ai: the whole tree with every element's ref", () => {
    const { text, refs } = renderSnapshot(tree, { format: 'ai' });
    expect(text).toBe(
      [
        '- generic [ref=e1]:',
        '  - heading "Title" [level=1] [ref=e2]',
        '  - generic [ref=e3]:',
        '    - text: "Name"',
        '    - textbox "Name" [ref=e4]',
        '  - button "Save" [ref=e5]',
        '  - button "Save" [ref=e6]',
        '  - checkbox "Agree" [checked] [ref=e7]',
        '  - link "Home" [ref=e8]:',
        '    - /url: "/home"',
        '  - generic [ref=e9]: "plain text"',
      ].join('\n'),
    );
    expect(refs.get('e6')).toEqual({ pw: 'e6', role: 'button', name: 'Save', nth: 1 });
  });

  it('role: refs e1, e2, … on interactive and named content roles, [nth=k] on repeats', () => {
    const { text, refs } = renderSnapshot(tree, { format: 'role' });
    expect(text).toContain('- heading "Title" [level=1] [ref=e1]');
    expect(text).toContain('- button "Save" [ref=e3]');
    expect(text).toContain('- button "Save" [ref=e4] [nth=1]');
    expect(text).toContain('- generic:');
    expect([...refs.keys()]).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
    expect(refs.get('e2')).toEqual({ pw: 'e4', role: 'textbox', name: 'Name', nth: 0 });
  });

  it('interactive: a flat list of actionable elements only', () => {
    const { text } = renderSnapshot(tree, { format: 'role', interactive: true });
    expect(text).toBe(
      [
        '- textbox "Name" [ref=e1]',
        '- button "Save" [ref=e2]',
        '- button "Save" [ref=e3] [nth=1]',
        '- checkbox "Agree" [checked] [ref=e4]',
        '- link "Home" [ref=e5]',
      ].join('\n'),
    );
  });

  it('compact lifts unnamed structure; depth and limit cut, and say how much', () => {
    const compact = renderSnapshot(tree, { format: 'role', compact: true }).text;
    expect(compact).not.toContain('generic');
    expect(compact.startsWith('- heading "Title"')).toBe(true);
    expect(compact).toContain('- text: "plain text"');
    const shallow = renderSnapshot(tree, { format: 'ai', depth: 0 });
    expect(shallow.text).toBe('- generic [ref=e1]:');
    expect(shallow.omitted).toBe(7);
    const limited = renderSnapshot(tree, { format: 'ai', limit: 3 });
    expect(limited.lines).toBe(3);
    expect(limited.omitted).toBeGreaterThan(0);
  });

  it("numbers refs itself: Playwright's per-document prefixes never show", () => {
    const page: AriaNode[] = [
      {
        role: 'generic',
        ref: 'f2e1',
        children: [
          { role: 'button', name: 'Out', ref: 'f2e2' },
          {
            role: 'iframe',
            ref: 'f2e3',
            children: [
              { role: 'button', name: 'In', ref: 'f3e1' },
              { role: 'link', name: 'Deep', ref: 'f3e2' },
            ],
          },
          { role: 'link', name: 'After', ref: 'f2e4' },
        ],
      },
    ];
    const full = renderSnapshot(page, { format: 'ai' });
    expect(full.text).not.toMatch(/ref=f\d/);
    expect([...full.refs].map(([ref, t]) => `${ref}=${t.pw}`)).toEqual([
      'e1=f2e1',
      'e2=f2e2',
      'e3=f2e3',
      'e4=f3e1',
      'e5=f3e2',
      'e6=f2e4',
    ]);
    // One iframe's contents alone, numbered as in the full snapshot; every ref stays known.
    const inner = renderSnapshot(page, { format: 'ai', within: 'f2e3' });
    expect(inner.text).toBe(['- button "In" [ref=e4]', '- link "Deep" [ref=e5]'].join('\n'));
    expect(inner.found).toBe(true);
    expect(inner.refs.get('e6')?.pw).toBe('f2e4');
    expect(renderSnapshot(page, { format: 'ai', within: 'f9e9' }).found).toBe(false);
    // A depth cut hides lines, not numbers.
    expect(renderSnapshot(page, { format: 'ai', depth: 1 }).refs.get('e6')?.pw).toBe('f2e4');
  });

  it('truncates at a line boundary and says so', () => {
    const { text, truncated } = truncate('line one\nline two\nline three', 15);
    expect(truncated).toBe(true);
    expect(text).toMatch(/^line one\n… truncated: \d+ more characters/);
    expect(truncate('short', 100)).toEqual({ text: 'short', truncated: false });
  });

  it('reads refs in every spelling', () => {
    for (const spelling of ['e12', '@e12', 'ref=e12', '12', ' e12 ', 12]) expect(normalizeRef(spelling)).toBe('e12');
    for (const bad of ['button', 'e', 'x12', 'f2e7', '', undefined, null, {}])
      expect(normalizeRef(bad)).toBeUndefined();
  });
});

describe('act requests', () => {
  it('takes each kind with its fields', () => {
    expect(parseAct({ kind: 'click', ref: '@e3', doubleClick: true, button: 'right', modifiers: ['Shift'] })).toEqual({
      kind: 'click',
      ref: 'e3',
      doubleClick: true,
      button: 'right',
      modifiers: ['Shift'],
      timeoutMs: 8_000,
    });
    expect(parseAct({ kind: 'select', ref: 'e1', values: ['blue'] })).toMatchObject({ values: ['blue'] });
    expect(parseAct({ kind: 'wait', timeMs: 90_000 })).toMatchObject({ timeMs: 30_000 });
    expect(parseAct({ kind: 'fill', fields: [{ ref: 2, value: true }] })).toMatchObject({
      fields: [{ ref: 'e2', value: true }],
    });
  });

  it.each([
    [{ kind: 'click', ref: 'e1', button: 'side' }, /^button must be one of left, right, middle/],
    [{ kind: 'click', ref: 'e1', modifiers: ['Hyper'] }, /^modifiers\[0\] must be one of Alt, Control/],
    [{ kind: 'teleport' }, /^kind "teleport" is unknown: use one of click, type/],
    [{ kind: 'resize', width: 5, height: 500 }, /^width must be an integer from 100 to 10000, got 5$/],
    [{ kind: 'type', ref: 'e1', text: 5 }, /^text must be a string/],
    [{ kind: 'press' }, /^key is required/],
    [{ kind: 'select', ref: 'e1', values: [] }, /^values must name at least one option/],
    [{ kind: 'fill', fields: [{ ref: 'e1' }] }, /^fields\[0\]\.value must be/],
    [{ kind: 'fill', fields: [{ value: 1 }] }, /^fields\[0\]\.ref is required/],
    [{ kind: 'wait' }, /^wait needs one of/],
    [{ kind: 'wait', loadState: 'ready' }, /^loadState must be one of load, domcontentloaded, networkidle/],
    [{ kind: 'evaluate' }, /^fn is required/],
  ])('refuses %j naming the field', (body, message) => {
    expect(() => parseAct(body)).toThrow(message);
  });

  it('clamps timeouts to 0.5–60 s, and refuses one that is not a number', () => {
    const timeout = actionTimeout();
    expect(timeout.parse(1)).toBe(500);
    expect(timeout.parse(10_000_000)).toBe(60_000);
    expect(timeout.parse(undefined)).toBe(8_000);
    expect(() => parseAct({ kind: 'press', key: 'a', timeoutMs: 'soon' })).toThrow(
      /^timeoutMs must be a number of milliseconds, got "soon"$/,
    );
    const hook = (timeoutMs: unknown) => parseOperationInput(upload, { paths: ['/x'], timeoutMs }, 'json').timeoutMs;
    expect(hook(undefined)).toBe(120_000);
    expect(hook(600_000)).toBe(120_000);
  });

  it('tells function sources from expressions, and never runs them here', () => {
    expect(isFunctionSource('(el) => el.textContent')).toBe(true);
    expect(isFunctionSource('async () => 1')).toBe(true);
    expect(isFunctionSource('function () { return 1 }')).toBe(true);
    expect(isFunctionSource('el => el.id')).toBe(true);
    expect(isFunctionSource('document.title')).toBe(false);
    const source = '() => { throw new Error("ran in the relay!") }';
    const fn = pageFunction(source);
    expect(String(fn)).toBe(source);
    expect(typeof fn).toBe('function');
    expect(fn()).toBeUndefined(); // the stand-in does nothing: only its text goes to the page
  });
});

describe('errors for agents', () => {
  const err = (message: string) => toAgentError(new Error(message), { what: 'click e4', timeoutMs: 8_000 });
  it('rewrites Playwright into what to do next', () => {
    expect(
      err(
        'locator.click: Timeout 8000ms exceeded.\nCall log:\n  - waiting for getByRef(\'e4\')\n  - <div id="cookie">…</div> intercepts pointer events',
      ),
    ).toMatchObject({
      code: 'not_interactable',
      message:
        'click e4: not visible or covered (by <div id="cookie">…</div>): scroll it into view or close the overlay',
    });
    expect(err('locator.click: Timeout 8000ms exceeded.\n  - element is not visible')).toMatchObject({
      code: 'not_interactable',
    });
    expect(err('strict mode violation: locator resolved to 3 elements')).toMatchObject({
      code: 'element_ambiguous',
      message: 'click e4: matched 3 elements; take a new snapshot',
    });
    expect(
      err("locator.click: Timeout 8000ms exceeded.\nCall log:\n  - waiting for getByRole('button')"),
    ).toMatchObject({
      code: 'action_timeout',
      message: "click e4: timed out after 8 s waiting for getByRole('button')",
    });
    expect(
      err('locator.fill: Error: Element is not an <input>, <textarea>, <select> or [contenteditable]'),
    ).toMatchObject({ code: 'action_failed', message: 'click e4: it is not a text field; type into a textbox ref' });
    expect(err('Target page, context or browser has been closed')).toMatchObject({ code: 'target_closed' });
    expect(err('Protocol error (DOM.setFileInputFiles): Not allowed (setInputFiles)').message).toMatch(
      /Allow access to file URLs/,
    );
    expect(err('something odd happened')).toMatchObject({
      code: 'action_failed',
      message: 'click e4: something odd happened',
    });
    // The caller's bound is named, not the part of it Playwright was given (what was left, less a reserve).
    expect(err("locator.hover: Timeout 500ms exceeded.\n  - waiting for getByRef('e8')\u001b[22m").message).toBe(
      "click e4: timed out after 8 s waiting for getByRef('e8')",
    );
  });
});

describe('captures', () => {
  it('reads PNG and JPEG sizes from their headers', () => {
    const png = Buffer.alloc(24);
    Buffer.from('89504e470d0a1a0a', 'hex').copy(png);
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(imageSize(png)).toEqual({ width: 640, height: 480 });
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03,
    ]);
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
  });

  it("labels the refs that have a box, and skips iframe contents (their boxes are the frame's)", () => {
    const box = { x: 1, y: 2, width: 3, height: 4 };
    const roots: AriaNode[] = [
      {
        role: 'generic',
        ref: 'e1',
        box,
        children: [
          { role: 'button', ref: 'e2', box },
          { role: 'iframe', ref: 'e3', box, children: [{ role: 'button', ref: 'f1e1', box }] },
          { role: 'link', ref: 'e4', box: { ...box, width: 0 } },
        ],
      },
    ];
    const labels = new Map([
      ['e2', 'e1'],
      ['f1e1', 'e2'],
      ['e4', 'e3'],
    ]);
    expect(labelBoxes(roots, labels)).toEqual([{ label: 'e1', box }]);
  });
});

describe('refs per target', () => {
  it('remembers the last 50 targets, least recently used go first', () => {
    const store = new RefStore();
    const index = {} as RefIndex; // the store keeps indexes; it never looks inside them
    for (let i = 0; i < 50; i++) store.set(tabKey('p', `t${i}`), index);
    store.get(tabKey('p', 't0')); // used again: now the most recent
    store.set(tabKey('p', 't50'), index);
    expect(store.size).toBe(50);
    expect(store.get(tabKey('p', 't0'))).toBeDefined();
    expect(store.get(tabKey('p', 't1'))).toBeUndefined();
  });
});
