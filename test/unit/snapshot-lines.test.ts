import { describe, expect, it } from 'vitest';
import type { SnapshotLine } from '../../relay/agent/snapshots/snapshot-engine';
import { renderLines } from '../../relay/agent/snapshots/snapshot-lines';

const page: SnapshotLine[] = [
  { depth: 0, text: 'heading "Shop" [level=1]' },
  { depth: 0, text: 'navigation "Main":' },
  { depth: 1, text: 'link "Home" [e1]', ref: 'e1' },
  { depth: 1, text: 'link "Cart" [e2]', ref: 'e2' },
  { depth: 0, text: '"Welcome"' },
  { depth: 0, text: 'button "Buy" [e3]', ref: 'e3' },
];

describe('snapshot lines', () => {
  it('indents by depth, two spaces a level', () => {
    expect(renderLines(page, { interactive: false }).text).toBe(
      [
        'heading "Shop" [level=1]',
        'navigation "Main":',
        '  link "Home" [e1]',
        '  link "Cart" [e2]',
        '"Welcome"',
        'button "Buy" [e3]',
      ].join('\n'),
    );
  });

  it('lists only the refs, flat, with interactive', () => {
    expect(renderLines(page, { interactive: true }).text).toBe('link "Home" [e1]\nlink "Cart" [e2]\nbutton "Buy" [e3]');
  });

  it('cuts on a line boundary within the budget, marks the cut, and names the ref to continue after', () => {
    const cut = renderLines(page, { interactive: false, maxChars: 80 });
    expect(cut.truncated).toBe(true);
    expect(cut.next).toBe('e1');
    expect(cut.text.split('\n')).toEqual([
      'heading "Shop" [level=1]',
      'navigation "Main":',
      '  link "Home" [e1]',
      '… cut at 80 characters: 3 more lines, 2 more refs; continue with after=e1',
    ]);
    const rest = renderLines(page, { interactive: false, maxChars: 80, after: cut.next });
    expect(rest.text.split('\n')[0]).toBe('  link "Cart" [e2]');
    expect(rest.truncated).toBe(false);
  });

  it('keeps at least the first ref even when the text before it is over the budget', () => {
    const cut = renderLines(page, { interactive: false, maxChars: 10 });
    expect(cut.shown.at(-1)?.ref).toBe('e1');
    expect(cut.next).toBe('e1');
  });

  it('refuses an after= ref that is no longer on the page', () => {
    expect(() => renderLines(page, { interactive: false, after: 'e9' })).toThrow(
      /after=e9: that ref is not on the page any more/,
    );
  });
});
