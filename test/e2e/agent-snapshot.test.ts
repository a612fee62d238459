// The default `agent` snapshot on fixture pages, on both drivers: what each page shows (refs
// written as [ref]), and that acting by those refs works in shadow roots and in same- and
// cross-origin frames. Also the character budget: a cut is marked and `after` continues it,
// so no ref is ever dropped unseen.

import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { until } from '../helpers/waits';

interface Snapshot {
  id?: string;
  title: string;
  diff?: { since: string; added: number; removed: number; changed: number };
  format: string;
  snapshot: string;
  refs: Record<string, { role: string; name: string }>;
  truncated: boolean;
  next?: string;
  stats: { chars: number; lines: number; refs: number };
}

const drivers = [
  ['managed', managedDriver],
  ['extension', extensionDriver],
] as const;

/** The snapshot with ref numbers hidden, as lines. */
const shape = (snap: Snapshot) => snap.snapshot.replace(/\[e\d+\]/g, '[ref]').split('\n');

describe.each(drivers)('the agent snapshot on a %s profile', (_kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);

  const open = async (route: string) => {
    const res = await ctx.d.api('POST', '/navigate', { url: ctx.pages.url(route), targetId: ctx.d.targetId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const snapshot = async (query = '') => {
    const res = await ctx.d.api<Snapshot>('GET', `/snapshot?targetId=${ctx.d.targetId}${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const refOf = (snap: Snapshot, role: string, name: string, nth = 0) => {
    const found = Object.entries(snap.refs).filter(([, r]) => r.role === role && r.name === name);
    if (!found[nth]) throw new Error(`no ${role} "${name}" in:\n${snap.snapshot}`);
    return found[nth]![0];
  };
  const click = async (ref: string) => {
    const res = await ctx.d.api('POST', '/act', { kind: 'click', ref, targetId: ctx.d.targetId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('reads open shadow roots and what their slots show', async () => {
    await open('/snap/shadow');
    expect(shape(await snapshot())).toEqual([
      'button "Shadow button" [ref]',
      'link "light link" [ref]',
      'textbox "Shadow input" [ref]',
    ]);
    const snap = await snapshot();
    await click(refOf(snap, 'button', 'Shadow button'));
    await ctx.d.api('POST', '/act', {
      kind: 'type',
      ref: refOf(snap, 'textbox', 'Shadow input'),
      text: 'in the shadow',
      targetId: ctx.d.targetId,
    });
    expect(await ctx.d.inPage("document.getElementById('host').shadowRoot.querySelector('input').value")).toBe(
      'in the shadow',
    );
    // Re-rendered inside the shadow root (which the document's watch of what is taken out does
    // not see: removal-watch.ts), the button the same to a person keeps its ref; the old element
    // is let go.
    const ref = refOf(snap, 'button', 'Shadow button');
    await ctx.d.inPage(`(() => { const root = document.getElementById('host').shadowRoot;
      root.replaceChild(root.querySelector('button').cloneNode(true), root.querySelector('button')); })()`);
    const again = await snapshot();
    expect(refOf(again, 'button', 'Shadow button')).toBe(ref);
    await click(ref);
  });

  it('keeps the ref of a button moved into a shadow root when it is re-rendered there', async () => {
    await open('/snap/inner');
    await ctx.d.inPage(`document.body.insertAdjacentHTML('beforeend', '<div id="later"><button>Moved</button></div>')`);
    const ref = refOf(await snapshot(), 'button', 'Moved');
    // A component takes its light children into its shadow root: the ref stays the element's.
    await ctx.d.inPage(`(() => { const host = document.getElementById('later');
      host.attachShadow({ mode: 'open' }).append(...host.childNodes); })()`);
    expect(refOf(await snapshot(), 'button', 'Moved')).toBe(ref);
    // Re-rendered there, where the document's watch of what is taken out does not see
    // (removal-watch.ts): the button the same to a person still keeps it.
    await ctx.d.inPage(`(() => { const root = document.getElementById('later').shadowRoot;
      root.replaceChild(root.querySelector('button').cloneNode(true), root.querySelector('button')); })()`);
    expect(refOf(await snapshot(), 'button', 'Moved')).toBe(ref);
    await click(ref);
  });

  it('nests same- and cross-origin frames below their iframes, and acts inside both', async () => {
    await open('/snap/frames');
    const snap = await until('both frames in the snapshot', async () => {
      const s = await snapshot();
      return s.snapshot.split('button "Inner"').length === 3 ? s : undefined;
    });
    expect(shape(snap)).toEqual([
      'heading "Frames" [level=1]',
      'iframe "Same" [ref]:',
      '  button "Inner" [ref]',
      'iframe "Other" [ref]:',
      '  button "Inner" [ref]',
    ]);
    await click(refOf(snap, 'button', 'Inner', 0));
    await click(refOf(snap, 'button', 'Inner', 1));
    const after = await snapshot();
    expect(shape(after).filter((l) => l.includes('Pressed'))).toEqual([
      '  button "Pressed" [ref]',
      '  button "Pressed" [ref]',
    ]);
    // One frame alone, by its iframe's ref; the refs are the same numbers as in the whole page.
    const other = await snapshot(`&frame=${refOf(after, 'iframe', 'Other')}`);
    expect(shape(other)).toEqual(['button "Pressed" [ref]']);
    expect(Object.keys(other.refs)).toEqual([refOf(after, 'button', 'Pressed', 1)]);
    // The frame found in an iframe is kept for its ref while it stays there: an iframe rebuilt
    // alike (it keeps its ref: the same to a person) holds a new frame, which the next snapshot
    // shows, and one navigated shows its new page.
    const same = refOf(after, 'iframe', 'Same');
    await ctx.d.inPage(`(() => { const old = document.querySelector('iframe[title=Same]');
      const copy = document.createElement('iframe');
      for (const name of ['title', 'width', 'height']) copy.setAttribute(name, old.getAttribute(name));
      copy.srcdoc = '<button>Rebuilt</button>';
      old.replaceWith(copy); })()`);
    const rebuilt = await until('the rebuilt frame in the snapshot', async () => {
      const s = await snapshot();
      return s.snapshot.includes('Rebuilt') ? s : undefined;
    });
    expect(refOf(rebuilt, 'iframe', 'Same')).toBe(same);
    expect(shape(rebuilt).slice(1, 3)).toEqual(['iframe "Same" [ref]:', '  button "Rebuilt" [ref]']);
    await click(refOf(rebuilt, 'button', 'Rebuilt'));
    await ctx.d.inPage(`document.querySelector('iframe[title=Other]').src = '/snap/inner?again'`);
    const navigated = await until('the navigated frame in the snapshot', async () => {
      const s = await snapshot();
      return s.snapshot.split('button "Inner"').length === 2 ? s : undefined;
    });
    expect(shape(navigated).slice(3)).toEqual(['iframe "Other" [ref]:', '  button "Inner" [ref]']);
  });

  it('walks child frames side by side and never gives one ref twice, however many controls a frame adds', async () => {
    await open('/snap/many-frames');
    const unique = (snap: Snapshot) => {
      const shown = [...snap.snapshot.matchAll(/\[(e\d+)\]/g)].map((m) => m[1]);
      expect(new Set(shown).size).toBe(shown.length);
      expect(Object.keys(snap.refs).sort()).toEqual([...shown].sort());
      return snap;
    };
    const first = unique(
      await until('both frames walked', async () => {
        const s = await snapshot('&maxChars=1000000');
        return s.snapshot.includes('button "A 99"') && s.snapshot.includes('button "B 99"') ? s : undefined;
      }),
    );
    expect(first.stats.refs).toBe(202);
    await click(refOf(first, 'button', 'B 57'));
    // Frame A grows past the numbers its block had room for: it is walked again, afresh.
    await ctx.d.inPage(`document.querySelector('iframe[title=A]').contentWindow.more(300)`);
    const grown = unique(await snapshot('&maxChars=1000000'));
    expect(grown.stats.refs).toBe(502);
    expect(refOf(grown, 'button', 'B 3')).toBe(refOf(first, 'button', 'B 3'));
    await click(refOf(grown, 'button', 'A 350'));
    // A ref of A's from before acts on its own element or is refused: never on another.
    const old = await ctx.d.api('POST', '/act', {
      kind: 'click',
      ref: refOf(first, 'button', 'A 5'),
      targetId: ctx.d.targetId,
    });
    if (old.status !== 200) expect(old.body.error?.code, JSON.stringify(old.body)).toBe('ref_stale');
    const last = (await snapshot('&maxChars=1000000')).snapshot;
    const lastShown = [...last.matchAll(/\[(e\d+)\]/g)].map((m) => m[1]);
    expect(new Set(lastShown).size).toBe(lastShown.length);
    const pressed = last.split('\n').filter((l) => l.includes('pressed'));
    expect(pressed.map((l) => l.replace(/ \[e\d+\]/, '').trim())).toEqual([
      ...(old.status === 200 ? ['button "A 5 pressed"'] : []),
      'button "A 350 pressed"',
      'button "B 57 pressed"',
    ]);
  });

  it('numbers two snapshots of a tab taken at once in turn: no ref stands for two elements', async () => {
    await open('/snap/many-frames');
    await until('both frames loaded', () =>
      ctx.d.inPage<boolean>(
        `[...document.querySelectorAll('iframe')].every((f) => f.contentDocument?.querySelectorAll('button').length === 100)`,
      ),
    );
    const both = await Promise.all([snapshot('&maxChars=1000000'), snapshot('&maxChars=1000000')]);
    const after = await snapshot('&maxChars=1000000');
    for (const snap of [...both, after]) {
      const shown = [...snap.snapshot.matchAll(/\[(e\d+)\]/g)].map((m) => m[1]);
      expect(new Set(shown).size).toBe(shown.length);
      expect(snap.stats.refs).toBe(202);
    }
    await click(refOf(after, 'button', 'B 12'));
    await click(refOf(after, 'button', 'A 77'));
    const last = (await snapshot('&maxChars=1000000')).snapshot;
    const lastShown = [...last.matchAll(/\[(e\d+)\]/g)].map((m) => m[1]);
    expect(new Set(lastShown).size).toBe(lastShown.length);
    const pressed = last.split('\n').filter((l) => l.includes('pressed'));
    expect(pressed.map((l) => l.replace(/ \[e\d+\]/, '').trim())).toEqual([
      'button "A 77 pressed"',
      'button "B 12 pressed"',
    ]);
  });

  it('leaves out what is hidden (closed menus, display, visibility, aria-hidden, templates) and shows it once open', async () => {
    await open('/snap/hidden');
    const snap = await snapshot();
    expect(shape(snap)).toEqual([
      'navigation "Main":',
      '  button "Menu" [collapsed] [ref]',
      'button "Shown again" [ref]',
    ]);
    await click(refOf(snap, 'button', 'Menu'));
    expect(shape(await snapshot())).toEqual([
      'navigation "Main":',
      '  button "Menu" [expanded] [ref]',
      '  link "Hidden item" [ref]',
      'button "Shown again" [ref]',
    ]);
  });

  it('names icon-only controls by aria-label, ::before/::after content and title', async () => {
    await open('/snap/icons');
    expect(shape(await snapshot())).toEqual([
      'button "Close" [ref]',
      'button "Search" [ref]',
      'button "Next" [ref]',
      'link "Home" [ref]',
    ]);
  });

  it('names fields by label for=, a wrapping label, aria-labelledby and placeholder', async () => {
    await open('/snap/labels');
    expect(shape(await snapshot())).toEqual([
      'textbox "First name" [ref]',
      'textbox "Wrapped" [ref]',
      'textbox "Via labelledby" [ref]',
      'textbox "Only a placeholder" [ref]',
      'checkbox "Remember me" [checked] [ref]',
    ]);
  });

  it('shows a contenteditable as a textbox with its text, and types into it', async () => {
    await open('/snap/editable');
    const snap = await snapshot();
    expect(shape(snap)).toEqual(['textbox "Notes" [ref]: "hello world"', '"plain paragraph"']);
    await click(refOf(snap, 'textbox', 'Notes'));
    await ctx.d.api('POST', '/act', { kind: 'press', key: 'End', targetId: ctx.d.targetId });
    await ctx.d.api('POST', '/act', {
      kind: 'type',
      ref: refOf(snap, 'textbox', 'Notes'),
      text: ' again',
      slowly: true,
      targetId: ctx.d.targetId,
    });
    expect(shape(await snapshot())[0]).toBe('textbox "Notes" [ref]: "hello world again"');
  });

  it('shows a closed <details> by its summary, and its contents once opened', async () => {
    await open('/snap/details');
    const snap = await snapshot();
    expect(shape(snap)).toEqual(['button "More" [collapsed] [ref]']);
    await click(refOf(snap, 'button', 'More'));
    expect(shape(await snapshot())).toEqual([
      'button "More" [expanded] [ref]',
      '"Folded text"',
      'button "Inside" [ref]',
    ]);
  });

  it('shows an open <dialog> with what is in it, and not a closed one', async () => {
    await open('/snap/dialog');
    expect(shape(await snapshot())).toEqual(['dialog "Confirm":', '  "Really?"', '  button "OK" [ref]']);
  });

  it('cuts a large page at the budget, says so, and continues after the last ref shown: no ref is lost', async () => {
    await open('/many?n=1500');
    const seen = new Set<string>();
    let query = '&maxChars=20000';
    let parts = 0;
    for (;;) {
      const part = await snapshot(query);
      parts++;
      expect(part.snapshot.length).toBeLessThanOrEqual(20_200);
      for (const ref of Object.keys(part.refs)) {
        expect(seen.has(ref), `${ref} shown twice`).toBe(false);
        seen.add(ref);
      }
      if (!part.truncated) break;
      expect(part.snapshot).toMatch(
        new RegExp(`… cut at 20000 characters: \\d+ more lines, \\d+ more refs; continue with after=${part.next}$`),
      );
      query = `&maxChars=20000&after=${part.next}`;
    }
    expect(parts).toBeGreaterThan(2);
    expect(seen.size).toBe(1500);
    // The default budget keeps a snapshot readable in one step.
    const whole = await snapshot();
    expect(whole.truncated).toBe(true);
    expect(whole.snapshot.length).toBeLessThanOrEqual(40_200);
  });

  it('gives a ref to everything a person can click in a web app, and a click does what theirs does', async () => {
    await open('/snap/clickables');
    const snap = await snapshot();
    const lines = shape(snap);
    // A row with a pointer cursor and the link without href inside it: both, each with a ref.
    expect(lines).toContain('row "INV-1001 Acme $50" [ref]');
    expect(lines).toContain('  clickable "INV-1001" [ref]');
    for (const name of [
      'Open settings',
      'Show archive',
      'Open the report',
      'Pick a colour',
      'Refresh feed',
      'Focusable chip',
    ])
      expect(lines, snap.snapshot).toContain(`clickable "${name}" [ref]`);
    // A listener that takes its buttons' clicks makes the buttons targets, not itself.
    expect(
      lines.filter((l) => l.includes('Bold')),
      snap.snapshot,
    ).toEqual(['button "Bold" [ref]']);
    // A card and the action inside it; a mail row named by its words, not its checkbox's "on".
    expect(lines).toContain('clickable "Quarterly report Star it" [ref]');
    expect(lines).toContain('  clickable "Star it" [ref]');
    expect(lines).toContain('clickable "Ann Lee — Lunch on Friday?" [ref]');
    const said = () => ctx.d.inPage<string>(`document.getElementById('said').textContent`);
    for (const [role, name, what] of [
      ['clickable', 'INV-1001', 'opened invoice 1001'],
      ['row', 'INV-1002 Globex $75', 'selected row 1002'],
      ['clickable', 'Open settings', 'react handler'],
      ['clickable', 'Show archive', 'vue handler'],
      ['clickable', 'Open the report', 'angular handler'],
      ['clickable', 'Pick a colour', 'mousedown handler'],
      ['button', 'Italic', 'toolbar italic'],
      ['clickable', 'Refresh feed', 'attribute handler'],
      ['clickable', 'Star it', 'starred'],
      ['clickable', 'Ann Lee — Lunch on Friday?', 'mail opened'],
      ['clickable', 'Focusable chip', 'focusable clicked'],
    ] as const) {
      await click(refOf(snap, role, name));
      expect(await said(), `${role} "${name}"`).toBe(what);
    }
    // An element given a listener after the first snapshot (a framework's next render) has a ref in the next.
    await ctx.d.inPage(
      `(() => { const d = document.createElement('div'); d.textContent = 'Rendered later'; d.addEventListener('pointerdown', () => (document.getElementById('said').textContent = 'later handler')); document.body.append(d); return 0; })()`,
    );
    const later = await snapshot();
    await click(refOf(later, 'clickable', 'Rendered later'));
    expect(await said()).toBe('later handler');
  });

  it('answers an empty diff for a re-render that changed nothing, one row for a row that changed, one line for a sort', async () => {
    await open('/snap/rerender');
    const first = await snapshot();
    const act = async (ref: string) => {
      const res = await ctx.d.api('POST', '/act', { kind: 'click', ref, snapshot: 'diff', targetId: ctx.d.targetId });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.snapshot as Snapshot;
    };
    const log = () => ctx.d.inPage<string>(`document.getElementById('log').textContent`);
    // The whole list rebuilt, nothing a person sees changed: an empty diff, the same refs.
    const refreshed = await act(refOf(first, 'button', 'Refresh'));
    expect(refreshed.diff, refreshed.snapshot).toMatchObject({ added: 0, removed: 0, changed: 0 });
    // A ref taken before the re-render clicks the same row's button after it …
    const gamma = await act(refOf(first, 'button', 'Done', 2));
    expect(await log()).toBe('done 3');
    // … and the diff is that row only (its words, and its buttons in their new place) and the log.
    expect(
      gamma.snapshot
        .replace(/\[e\d+\]/g, '[ref]')
        .split('\n')
        .sort(),
    ).toEqual([
      '+ "Gamma (done)"',
      '+ "done 3"',
      '+ button "Delete" [ref]',
      '+ button "Undo" [ref]',
      '- "Gamma"',
      '- button "Delete" [ref]',
      '- button "Done" [ref]',
    ]);
    await act(refOf(first, 'button', 'Delete', 3));
    expect(await log()).toBe('done 3, delete 4');
    // Two rows alike, rebuilt alike: each old ref is the one in the same order …
    const [firstUntitled, secondUntitled] = [refOf(first, 'button', 'Delete', 4), refOf(first, 'button', 'Delete', 5)];
    await act(firstUntitled);
    expect(await log()).toBe('done 3, delete 4, delete 5');
    // … but once one of them went, which one is left nobody can tell: its old ref is stale.
    const stale = await ctx.d.api('POST', '/act', { kind: 'click', ref: secondUntitled, targetId: ctx.d.targetId });
    expect(stale.body.error?.code, JSON.stringify(stale.body)).toBe('ref_stale');
    expect(await log()).toBe('done 3, delete 4, delete 5');
    // Sorted: each row's refs go with their row (a row's words are its place, not its position),
    // and the diff says the order changed in one line, not row by row.
    const sorted = await act(refOf(first, 'button', 'Sort'));
    expect(sorted.snapshot, sorted.snapshot).toMatch(/^~ reordered: \d+ of 10 buttons moved$/);
    expect(sorted.diff).toMatchObject({ added: 0, removed: 0, changed: 1 });
    await act(refOf(first, 'button', 'Delete', 1));
    expect(await log()).toBe('done 3, delete 4, delete 5, delete 2');
    // Rebuilt with no snapshot since: the ref held is given to the element the same to a person
    // when the action looks it up.
    const none = (ref: string) =>
      ctx.d.api('POST', '/act', { kind: 'click', ref, snapshot: 'none', targetId: ctx.d.targetId });
    expect((await none(refOf(first, 'button', 'Refresh'))).status).toBe(200);
    expect((await none(refOf(first, 'button', 'Done', 0))).status).toBe(200);
    expect(await log()).toBe('done 3, delete 4, delete 5, delete 2, done 1');
  });

  it('refuses a ref as stale when its element was rebuilt beside a copy of itself: either is the same to a person', async () => {
    await open('/snap/fuzz');
    const log = async () => (await ctx.d.inPage<string>(`document.getElementById('log').textContent`)).trim();
    const rebuild = `const list = document.getElementById('list'); list.innerHTML = list.innerHTML;`;
    const clickNow = (ref: string) =>
      ctx.d.api('POST', '/act', { kind: 'click', ref, snapshot: 'none', targetId: ctx.d.targetId });
    const first = await snapshot();
    const seven = refOf(first, 'button', 'button 7');
    // The page copies the button beside itself, then rebuilds its list (every element new): the
    // one after "button 6" is no more its heir than the copy after it.
    await ctx.d.inPage(
      `(() => { const b = [...document.querySelectorAll('#list button')].find((x) => x.textContent === 'button 7'); const c = b.cloneNode(true); c.dataset.uid = 'copy'; b.after(c); ${rebuild} })()`,
    );
    const refused = await clickNow(seven);
    expect(refused.body.error?.code, JSON.stringify(refused.body)).toBe('ref_stale');
    expect(await log()).toBe('');
    // Nor does a snapshot hand it on: both copies get refs of their own.
    const after = await snapshot();
    expect(Object.keys(after.refs)).not.toContain(seven);
    expect(Object.values(after.refs).filter((r) => r.name === 'button 7')).toHaveLength(2);
    // Rebuilt with no copy beside it, a ref goes to the rebuilt element, as before.
    const eight = refOf(after, 'button', 'button 8');
    await ctx.d.inPage(`(() => { ${rebuild} })()`);
    expect((await clickNow(eight)).status).toBe(200);
    expect(await log()).toBe('9');
  });

  it('names a region opening with a heading by its title and its words: a count or a button changing there is no move', async () => {
    await open('/snap/titled');
    const first = await snapshot();
    const act = async (ref: string) => {
      const res = await ctx.d.api('POST', '/act', { kind: 'click', ref, snapshot: 'diff', targetId: ctx.d.targetId });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.snapshot as Snapshot).snapshot.replace(/\[e\d+\]/g, '[ref]').split('\n');
    };
    // The side bar rebuilt with a new button: its links keep their refs; the button that went and what came are said.
    expect(await act(refOf(first, 'button', 'Create label'))).toEqual([
      '+   textbox "Label name" [ref]',
      '+   button "Save label" [ref]',
      '+ "name 1"',
      '-   button "Create label" [ref]',
    ]);
    // The page rebuilt by itself and its collector run before the next walk (it may run at any
    // time; nothing but clawd holds the gone elements then): the cards keep their refs still.
    const before = await snapshot();
    await ctx.d.inPage(`act('none', 0)`);
    await ctx.d.collectGarbage();
    const since = await snapshot(`&since=${before.id}`);
    expect(since.snapshot.split('\n')).toEqual(['+ "name 1, none 0"', '- "name 1"']);
    // A label's count changed: that link only (its name changed); the other keeps its ref.
    expect(await act(refOf(first, 'clickable', 'Work 0'))).toEqual([
      '+   clickable "Work 1" [ref]',
      '+ "name 1, none 0, count Work"',
      '-   clickable "Work 0" [ref]',
      '- "name 1, none 0"',
    ]);
    await click(refOf(first, 'clickable', 'Family 0'));
    expect(await ctx.d.inPage<string>(`document.getElementById('log').textContent`)).toBe(
      'name 1, none 0, count Work, count Family',
    );
    // Two cards of one title stay apart by their words: one replaced by another, its Delete is stale.
    await ctx.d.inPage(`act('replace', 'draft 1')`);
    const stale = await ctx.d.api('POST', '/act', {
      kind: 'click',
      ref: refOf(first, 'button', 'Delete', 0),
      targetId: ctx.d.targetId,
    });
    expect(stale.body.error?.code, JSON.stringify(stale.body)).toBe('ref_stale');
    await click(refOf(first, 'button', 'Delete', 1));
    expect(await ctx.d.inPage<string>(`document.getElementById('log').textContent`)).toMatch(/, delete draft 2$/);
    // A card told only by its link: the link replaced, it is another card — its button's ref is stale.
    await ctx.d.inPage(`act('relink', 1)`);
    const relinked = await ctx.d.api('POST', '/act', {
      kind: 'click',
      ref: refOf(first, 'button', 'Remove'),
      targetId: ctx.d.targetId,
    });
    expect(relinked.body.error?.code, JSON.stringify(relinked.body)).toBe('ref_stale');
  });

  it('answers only what changed: after typing into one field of a large page, one line', async () => {
    await open('/snap/big-form');
    const first = await snapshot();
    expect(first.truncated).toBe(true); // the page is far over the budget …
    const field = refOf(first, 'textbox', 'Search');
    const typed = await ctx.d.api('POST', '/act', {
      kind: 'type',
      ref: field,
      text: 'lobster',
      snapshot: 'diff',
      targetId: ctx.d.targetId,
    });
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    // … and its diff is the one line that changed, with the same ref.
    expect(typed.body.snapshot).toMatchObject({
      diff: { since: first.id, added: 0, removed: 0, changed: 1 },
      truncated: false,
    });
    expect(typed.body.snapshot.snapshot).toBe(`~ textbox "Search" [${field}]: "lobster"`);
    expect(typed.body.snapshot).not.toHaveProperty('title'); // the answer says it, not its view
    await click(refOf(first, 'button', 'Go'));
    // The title is read with each walk, a diff's too (which takes most lines from the walk before).
    await ctx.d.inPage(`document.title = 'retitled'`);
    const since = await snapshot(`&since=${typed.body.snapshot.id}`);
    expect(since.title).toBe('retitled');
    expect(since.snapshot.split('\n')).toEqual(['+ "searched lobster"', '- "idle"']);
    expect(since.diff).toMatchObject({ added: 1, removed: 1, changed: 0 });
    // A script that broke document.title in the page's own world (where the walk runs) breaks no
    // walk: the title is asked of the page, whose other world still reads it.
    await ctx.d.inPage(`Object.defineProperty(document, 'title', { get() { throw new Error('no title') } })`);
    expect((await snapshot()).title).toBe('retitled');
    const unknown = await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}&since=s999999`);
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'snapshot_unknown' } } });
  });

  it("holds a diff's refs as the whole page's: one it copied acts, one taken out is stale, one put in acts", async () => {
    await open('/snap/big-form');
    const first = await snapshot('&maxChars=1000000');
    const [kept, gone] = [refOf(first, 'link', 'result 2000'), refOf(first, 'link', 'result 10')];
    await ctx.d.inPage(
      `document.querySelector('a[href="#r10"]').parentElement.remove();
       document.querySelector('ul').insertAdjacentHTML('beforeend', '<li><a href="#new">result new</a></li>')`,
    );
    // The diff's walk copies the other 3,000 lines from the one before (walk-codec.ts); its refs
    // are that walk's without the one taken out, with the one put in (ref-table.ts).
    const since = await snapshot(`&since=${first.id}`);
    expect(since.diff).toMatchObject({ added: 1, removed: 1, changed: 0 });
    const added = refOf(since, 'link', 'result new');
    await click(kept);
    expect(await ctx.d.inPage('location.hash')).toBe('#r2000');
    const stale = await ctx.d.api('POST', '/act', { kind: 'click', ref: gone, targetId: ctx.d.targetId });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'ref_stale' } } });
    await click(added);
    expect(await ctx.d.inPage('location.hash')).toBe('#new');
    // Another diff on top of that one: still the page's refs.
    await ctx.d.inPage(`document.querySelector('a[href="#r20"]').parentElement.remove()`);
    const again = await snapshot(`&since=${since.id}`);
    expect(again.diff).toMatchObject({ added: 0, removed: 1, changed: 0 });
    await click(refOf(first, 'link', 'result 2999'));
    expect(await ctx.d.inPage('location.hash')).toBe('#r2999');
  });
});
