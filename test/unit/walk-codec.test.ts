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
        { d: 1, s: `button ${JSON.stringify(odd)} [e7]`, r: 'e7' },
        { d: 1, s: 'iframe "Pay" [e8]:', r: 'e8', f: 1 },
        { d: 2, s: JSON.stringify(odd) },
        { d: 3, s: '' },
        { d: 1, s: 'x\\' },
      ],
      refs: [
        ['e7', 'button', odd],
        ['e8', 'iframe', 'Pay'],
      ],
    };
    const text = encodeWalk(result);
    expect(decodeWalk(text)).toEqual(result);
    // Smaller than JSON where it travels: inside CDP's own JSON.
    expect(JSON.stringify(text).length).toBeLessThan(JSON.stringify(JSON.stringify(result)).length);
  });

  it('says a selector that matched nothing, and refuses a row it does not know', () => {
    const missing: WalkResult = { lines: [], nextRef: 3, refs: [], missing: true };
    expect(decodeWalk(encodeWalk(missing))).toEqual(missing);
    expect(() => decodeWalk('H\t1\t0\n{"lines":[]}')).toThrow(/no known kind/);
  });
});
