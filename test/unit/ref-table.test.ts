// A snapshot's refs made from the last snapshot's in what changed (ref-table.ts): the table reads
// as a Map of the same entries would, and the one it was made from stays as it was.

import { describe, expect, it } from 'vitest';
import { RefTable } from '../../relay/agent/snapshots/ref-table';

const refs = (n: number): Array<[string, string]> => Array.from({ length: n }, (_, i) => [`e${i + 1}`, `v${i + 1}`]);

describe('RefTable', () => {
  it('reads as the Map of its entries', () => {
    const table = RefTable.of(refs(3));
    expect(table.size).toBe(3);
    expect(table.get('e2')).toBe('v2');
    expect(table.get('e9')).toBeUndefined();
    expect([...table.entries()]).toEqual(refs(3));
    expect([...table]).toEqual(refs(3));
  });

  it('made from another: without what went, with what came, a ref sent anew holding its new value', () => {
    const before = RefTable.of(refs(100));
    const after = before.changed(
      ['e3', 'e4', 'e3', 'e999'],
      [
        ['e4', 'new 4'],
        ['e101', 'v101'],
        ['e101', 'v101 again'],
      ],
    );
    const expected = new Map<string, string>(refs(100));
    expected.delete('e3');
    expected.set('e4', 'new 4');
    expected.set('e101', 'v101 again');
    expect(after.size).toBe(expected.size);
    expect(after.get('e3')).toBeUndefined();
    expect(after.has('e3')).toBe(false);
    expect(after.get('e4')).toBe('new 4');
    expect(after.get('e50')).toBe('v50');
    expect(after.get('e101')).toBe('v101 again');
    expect(new Map(after.entries())).toEqual(expected);
    expect([...after.values()].length).toBe(expected.size);
    // The table it was made from is the last snapshot's: unchanged.
    expect(before.size).toBe(100);
    expect(before.get('e3')).toBe('v3');
    expect(before.get('e4')).toBe('v4');
    expect(before.get('e101')).toBeUndefined();
  });

  it('stays right over many diffs, made whole again as changes pile up', () => {
    let table = RefTable.of(refs(40));
    const expected = new Map<string, string>(refs(40));
    for (let round = 0; round < 30; round++) {
      const gone = [`e${((round * 7) % 40) + 1}`];
      const added: Array<[string, string]> = [
        [`e${((round * 7) % 40) + 1}`, `round ${round}`],
        [`n${round}`, `${round}`],
      ];
      table = table.changed(gone, added);
      for (const ref of gone) expected.delete(ref);
      for (const [ref, value] of added) expected.set(ref, value);
      expect(table.size).toBe(expected.size);
      for (const [ref, value] of expected) expect(table.get(ref)).toBe(value);
      expect(new Map(table.entries())).toEqual(expected);
    }
  });
});
