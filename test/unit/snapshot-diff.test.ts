import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../relay/agent/snapshots/snapshot-diff';
import { isMessageLine } from '../../relay/agent/snapshots/snapshot-lines';
import type { SnapshotLine } from '../../relay/agent/snapshots/snapshot-engine';

const line = (text: string, ref?: string, depth = 0): SnapshotLine => ({
  depth,
  text: ref ? `${text} [${ref}]` : text,
  ...(ref ? { ref } : {}),
});

describe('snapshot diffs', () => {
  it('says the same when the lines that did not change are the same objects (a diff walk sends them as copies)', () => {
    const rows = Array.from({ length: 40 }, (_, i) => line(`button "Row ${i}"`, `e${i + 10}`, 1));
    const shell = [line('main:'), line('status "Saved"', undefined, 1), line('textbox "Note"', 'e2', 1)];
    const before = [...shell, line('list "Rows":', undefined, 1), ...rows, line('"Footer words"', undefined, 1)];
    const cases: Array<(lines: SnapshotLine[]) => SnapshotLine[]> = [
      // A value typed: one line between shared ones.
      (l) => l.map((x) => (x.ref === 'e2' ? { ...x, text: 'textbox "Note" [e2]: "hi"' } : x)),
      // Rows sorted in the middle, a row gone under the top, words added at the bottom.
      (l) => [...l.slice(0, 14), l[20]!, ...l.slice(15, 20), l[14]!, ...l.slice(21)],
      (l) => [...l.slice(0, 5), ...l.slice(6), line('"More words"', undefined, 1)],
      // A list and all under it taken out, next to shared lines deeper than it.
      (l) => [...l.slice(0, 3), ...l.slice(4)],
      (l) => l,
    ];
    const copy = (lines: SnapshotLine[]) => lines.map((x) => ({ ...x }));
    for (const change of cases) {
      const after = change(before);
      expect(diffSnapshots(before, after, isMessageLine)).toEqual(
        diffSnapshots(copy(before), copy(after), isMessageLine),
      );
    }
  });

  it('is empty for the same snapshot', () => {
    const lines = [line('heading "A"'), line('button "Go"', 'e1')];
    expect(diffSnapshots(lines, lines)).toEqual({ lines: [], added: 0, removed: 0, changed: 0, refs: [] });
  });

  it('matches lines by ref: a new value is a change, not a removal and an addition', () => {
    const before = [line('textbox "Name"', 'e1'), line('button "Go"', 'e2')];
    const after = [{ depth: 0, text: 'textbox "Name" [e1]: "Ada"', ref: 'e1' }, line('button "Go"', 'e2')];
    expect(diffSnapshots(before, after)).toEqual({
      lines: ['~ textbox "Name" [e1]: "Ada"'],
      added: 0,
      removed: 0,
      changed: 1,
      refs: ['e1'],
    });
  });

  it('says what went briefly: a line gone with all under it is one line and a count, and past six the rest is a count', () => {
    const rows = Array.from({ length: 10 }, (_, i) => [
      line(`row "Mail ${i}"`, `e${i * 2 + 2}`, 1),
      line('button "Star"', `e${i * 2 + 3}`, 2),
    ]).flat();
    const before = [line('heading "Inbox"'), line('table "Messages":', undefined, 0), ...rows];
    const opened = [line('heading "Inbox"'), line('heading "Mail 3"'), line('button "Archive"', 'e90')];
    expect(diffSnapshots(before, opened).lines).toEqual([
      '+ heading "Mail 3"',
      '+ button "Archive" [e90]',
      '- table "Messages": (and 20 lines under it)',
    ]);
    // Rows gone from a list that stays: each row with its button under it, six shown, then a count.
    const kept = [line('heading "Inbox"'), line('table "Messages":'), ...rows.slice(0, 2)];
    const diff = diffSnapshots(before, kept);
    expect(diff.lines).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((i) => `- row "Mail ${i}" [e${i * 2 + 2}] (and 1 line under it)`),
      '- … 3 more lines gone (refs e16 to e20)',
    ]);
    expect(diff.removed).toBe(18);
  });

  it('lists new lines in page order and gone ones last; plain lines are matched by text, repeats counted', () => {
    const before = [line('"idle"'), line('"x"'), line('"x"'), line('button "Old"', 'e1')];
    const after = [line('"x"'), line('button "New"', 'e2', 1), line('"busy"')];
    expect(diffSnapshots(before, after)).toEqual({
      lines: ['+   button "New" [e2]', '+ "busy"', '- "idle"', '- "x"', '- button "Old" [e1]'],
      added: 2,
      removed: 3,
      changed: 0,
      refs: ['e2'],
    });
  });

  it('says again what the page says about how things went, marked =, even when it did not change', () => {
    const before = [
      line('status "Saved"'),
      line('textbox "Email" [invalid="Enter an email address."]', 'e1'),
      line('"idle"'),
      line('button "Save"', 'e2'),
    ];
    const after = [
      line('status "Saved"'),
      line('textbox "Email" [invalid="Enter an email address."]', 'e1'),
      line('"idle"'),
      line('button "Save"', 'e2'),
      line('alert "Try again"'),
    ];
    expect(diffSnapshots(before, after, isMessageLine)).toEqual({
      lines: ['= status "Saved"', '= textbox "Email" [invalid="Enter an email address."] [e1]', '+ alert "Try again"'],
      added: 1,
      removed: 0,
      changed: 0,
      refs: ['e1'],
    });
  });

  it('says a list whose rows only moved in one line, at the list: their refs hold', () => {
    const rows = (order: number[]) => [
      line('heading "Inbox"'),
      line('table "Messages":'),
      ...order.flatMap((i) => [line(`row "Mail ${i}"`, `e${i * 2 + 2}`, 1), line('button "Star"', `e${i * 2 + 3}`, 2)]),
      line('button "Sort"', 'e90'),
    ];
    const before = rows([0, 1, 2, 3, 4]);
    const sorted = diffSnapshots(before, rows([4, 3, 2, 1, 0]));
    expect(sorted).toEqual({
      lines: ['~ table "Messages" reordered: 4 of 5 rows moved'],
      added: 0,
      removed: 0,
      changed: 1,
      refs: [],
    });
    // One row moved, one gone: each said once.
    expect(diffSnapshots(before, rows([3, 0, 1, 2])).lines).toEqual([
      '~ table "Messages" reordered: 1 of 4 rows moved',
      '-   row "Mail 4" [e10] (and 1 line under it)',
    ]);
    // Rows at the page's top: said before the first of them.
    const flat = (order: number[]) => [
      line('button "Sort"', 'e1'),
      ...order.map((i) => line(`button "Done ${i}"`, `e${i + 2}`)),
    ];
    expect(diffSnapshots(flat([0, 1, 2]), flat([2, 1, 0])).lines).toEqual(['~ reordered: 2 of 4 buttons moved']);
    // Nothing moved: nothing said.
    expect(diffSnapshots(before, before).lines).toEqual([]);
  });
});
