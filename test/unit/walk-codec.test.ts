// A walk's result crosses from the page to the relay as tab-separated lines (walk-codec.ts): what
// arrives is what the walk wrote, whatever a page put in its words — tabs, newlines, backslashes
// (a literal "\t" too), quotes, any script — and the flags of iframe and container lines.

import { describe, expect, it } from 'vitest';
import { decodeWalk, encodeWalk } from '../../relay/agent/in-page/walk-codec';
import type { WalkResult } from '../../relay/agent/in-page/walker-types';

describe("a walk's result on its way to the relay", () => {
  it('arrives as the walk wrote it, whatever the page put in its words', () => {
    const odd = 'a\tb\nc\\d \\t not a tab \\\\n "quoted" \u2028 \u{1F980} é';
    const result: WalkResult = {
      nextRef: 42,
      lines: [
        { d: 0, s: 'main:', c: 1 },
        { d: 1, s: `button ${JSON.stringify(odd)} [e7]`, r: 'e7', t: ['button', odd] },
        { d: 1, s: 'iframe "Pay" [e8]:', r: 'e8', f: 1, t: ['iframe', 'Pay'] },
        { d: 2, s: JSON.stringify(odd) },
        { d: 3, s: '' },
        { d: 1, s: 'x\\' },
      ],
      title: `Title ${odd}`,
    };
    const text = encodeWalk(result);
    expect(decodeWalk(text)).toEqual(result);
    // The title the page gave, even an empty one; none when the walk read none.
    expect(decodeWalk(encodeWalk({ ...result, title: '' })).title).toBe('');
    const { title: _, ...untitled } = result;
    expect(decodeWalk(encodeWalk(untitled))).toEqual(untitled);
    // Smaller than JSON where it travels: inside CDP's own JSON.
    expect(JSON.stringify(text).length).toBeLessThan(JSON.stringify(JSON.stringify(result)).length);
  });

  it("sends the lines the walk before wrote too as copies of their places, and reads them back from that walk's lines", () => {
    const before: WalkResult = {
      nextRef: 4,
      lines: [
        { d: 0, s: 'main:', c: 1 },
        { d: 1, s: 'textbox "Note" [e1]', r: 'e1', t: ['textbox', 'Note'] },
        { d: 1, s: 'button "One" [e2]', r: 'e2', t: ['button', 'One'] },
        { d: 1, s: 'button "Two" [e3]', r: 'e3', t: ['button', 'Two'] },
      ],
    };
    const first = encodeWalk(before, { id: 'w.1' });
    const held = decodeWalk(first);
    expect(held.id).toBe('w.1');
    expect(held.lines.map((l) => [l.r, ...(l.t ?? [])])).toEqual([
      [undefined],
      ['e1', 'textbox', 'Note'],
      ['e2', 'button', 'One'],
      ['e3', 'button', 'Two'],
    ]);
    // The page marks each line with the walk that wrote it and its place there.
    before.lines.forEach((line, i) => Object.assign(line, { w: 'w.1', n: i }));
    const typed = { d: 1, s: 'textbox "Note" [e1]: "hi"', r: 'e1', t: ['textbox', 'Note'] as [string, string] };
    const next: WalkResult = {
      nextRef: 4,
      lines: [before.lines[0]!, typed, before.lines[2]!, before.lines[3]!],
    };
    const text = encodeWalk(next, { id: 'w.2', base: 'w.1' });
    expect(text.split('\n').filter((row) => row.startsWith('C\t'))).toEqual(['C\t0\t1', 'C\t2\t2']);
    const read = decodeWalk(text, { id: 'w.1', lines: held.lines });
    expect(read.lines.map((l) => l.s)).toEqual(next.lines.map((l) => l.s));
    // Copies are the held lines themselves: what was read of them once is read again for nothing.
    expect(read.lines[2]).toBe(held.lines[2]);
    expect(read.lines.map((l) => l.r)).toEqual([undefined, 'e1', 'e2', 'e3']);
    // What changed, for what the relay keeps per walk: the runs copied, the lines sent anew.
    expect(read.copied).toEqual([
      [0, 1],
      [2, 2],
    ]);
    expect(read.made?.map((l) => l.s)).toEqual(['textbox "Note" [e1]: "hi"']);
    expect(held.copied).toBeUndefined();
    expect(() => decodeWalk(text)).toThrow(/does not hold/);
  });

  it('says a selector that matched nothing, and refuses a row it does not know', () => {
    const missing: WalkResult = { lines: [], nextRef: 3, missing: true };
    expect(decodeWalk(encodeWalk(missing))).toEqual(missing);
    expect(() => decodeWalk('H\t1\t0\n{"lines":[]}')).toThrow(/no known kind/);
    expect(() => decodeWalk('H\t1\t0\nLX\t0\t0\t\t\t\t"a"')).toThrow(/no known kind/);
    for (const row of ['L', 'L\t0\t0', 'L\t0\t0\t\t\t', 'L\t\t0\t\t\t\t"a"', 'L\tx\t0\t\t\t\t"a"', 'L\t0\t\t\t\t\t"a"'])
      expect(() => decodeWalk(`H\t1\t0\n${row}`), row).toThrow(/not seven fields/);
    const held = { id: 'w.1', lines: [{ d: 0, s: '"a"' }] };
    for (const row of ['C\t\t1', 'C\t0\t0', 'C\t0\t1\t1', 'C\t-1\t1', 'C\t0'])
      expect(() => decodeWalk(`H\t1\t0\n${row}`, held), row).toThrow(/not two counts/);
    expect(() => decodeWalk('H\t1\t0\nC\t0\t2', held)).toThrow(/does not hold/);
  });
});
