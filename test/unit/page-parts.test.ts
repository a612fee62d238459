// Reading part of a page instead of all of it: find with context, one element's subtree, the
// brief view actions and loads answer, and a section or the matching paragraphs of the content.

import { describe, expect, it } from 'vitest';
import { paragraphsWith, sectionUnder } from '../../relay/agent/content-parts';
import { findLines, subtreeOf } from '../../relay/agent/find-lines';
import type { RefIndex, SnapshotLine } from '../../relay/agent/snapshot-engine';
import { briefLines, renderLines } from '../../relay/agent/snapshot-lines';

const line = (depth: number, text: string, ref?: string): SnapshotLine => ({ depth, text: ref ? `${text} [ref=${ref}]` : text, ...(ref ? { ref } : {}) });

/** A page: a heading, a navigation, a table of people with an Edit button per row, a list of todos. */
function page(rows = 3): SnapshotLine[] {
  const lines = [line(0, 'heading "People" [level=1]'), line(0, 'navigation "Main":'), line(1, 'link "Home"', 'e1'), line(0, 'table "Staff":')];
  for (let i = 1; i <= rows; i++) {
    lines.push(line(1, `row: "Person ${i} | person${i}@example.com | Edit"`));
    lines.push(line(2, `button "Edit Person ${i}"`, `e${i + 1}`));
  }
  const next = rows + 2;
  lines.push(
    line(0, 'heading "Todos" [level=2]'),
    line(0, 'list "Todos":'),
    line(1, 'listitem:'),
    line(2, 'checkbox "Done"', `e${next}`),
    line(2, 'text: "Buy milk"'),
    line(2, 'button "Delete"', `e${next + 1}`),
    line(1, 'listitem:'),
    line(2, 'checkbox "Done"', `e${next + 2}`),
    line(2, 'text: "Walk the dog"'),
    line(2, 'button "Delete"', `e${next + 3}`),
  );
  return lines;
}

const refs = (known: string[]): RefIndex => ({
  size: known.length,
  get: (ref) => (known.includes(ref) ? { role: 'button', name: ref, nth: 0 } : undefined),
  entries: () => [][Symbol.iterator](),
  resolve: () => Promise.reject(new Error('unused')),
  labelBoxes: () => Promise.resolve([]),
});

describe('find in the page', () => {
  it('answers the matching row with its button and its heading, a small part of a big table', () => {
    const lines = page(2_000);
    const found = findLines(lines, { query: 'person1234@', limit: 10 });
    expect(found.matches).toBe(1);
    expect(found.text.split('\n')).toEqual([
      '- heading "People" [level=1]',
      '- table "Staff":',
      '  - row: "Person 1234 | person1234@example.com | Edit"',
      '    - button "Edit Person 1234" [ref=e1235]',
    ]);
    expect(found.refs).toEqual(['e1235']);
    const whole = renderLines(lines, { interactive: false }).text;
    expect(found.text.length).toBeLessThan(whole.length / 100);
  });

  it('shows what can be done with a match in a list item: its checkbox and button', () => {
    const found = findLines(page(), { query: 'walk the DOG', limit: 10 });
    expect(found.text.split('\n')).toEqual([
      '- heading "Todos" [level=2]',
      '- list "Todos":',
      '  - listitem:',
      '    - checkbox "Done" [ref=e7]',
      '    - text: "Walk the dog"',
      '    - button "Delete" [ref=e8]',
    ]);
  });

  it('narrows by role, caps the matches at limit and says how many more there are', () => {
    const buttons = findLines(page(30), { query: 'person', role: 'button', limit: 3 });
    expect(buttons.matches).toBe(30);
    expect(buttons.shown).toBe(3);
    expect(buttons.refs).toEqual(['e2', 'e3', 'e4']);
    expect(buttons.text).toMatch(/- … 27 more matches: narrow the query \(or role\), or raise limit$/);
    expect(findLines(page(), { query: 'person', role: 'link', limit: 3 }).matches).toBe(0);
  });

  it('does not match the refs themselves, and answers nothing when nothing matches', () => {
    expect(findLines(page(), { query: 'e2', limit: 10 }).matches).toBe(0);
    expect(findLines(page(), { query: 'nowhere', limit: 10 })).toEqual({ text: '', matches: 0, shown: 0, refs: [] });
  });
});

describe('one element of the snapshot', () => {
  it('is its line and everything under it, indented from it', () => {
    expect(subtreeOf(page(), 'e4', undefined)).toEqual([{ depth: 0, text: 'button "Edit Person 3" [ref=e4]', ref: 'e4' }]);
    const list = page().findIndex((l) => l.text === 'list "Todos":');
    const lines = page();
    lines[list] = { ...lines[list]!, text: 'list "Todos" [ref=e99]', ref: 'e99' };
    expect(renderLines(subtreeOf(lines, 'e99', undefined), { interactive: false }).text.split('\n')).toEqual([
      '- list "Todos" [ref=e99]',
      '  - listitem:',
      '    - checkbox "Done" [ref=e5]',
      '    - text: "Buy milk"',
      '    - button "Delete" [ref=e6]',
      '  - listitem:',
      '    - checkbox "Done" [ref=e7]',
      '    - text: "Walk the dog"',
      '    - button "Delete" [ref=e8]',
    ]);
  });

  it('refuses a ref that went as stale and one never given as unknown', () => {
    expect(() => subtreeOf(page(), 'e40', refs(['e40']))).toThrow(expect.objectContaining({ code: 'ref_stale' }));
    expect(() => subtreeOf(page(), 'e40', refs([]))).toThrow(expect.objectContaining({ code: 'ref_unknown' }));
  });
});

describe('a brief view', () => {
  it('keeps headings and what has a ref, indented only under kept lines', () => {
    expect(renderLines(briefLines(page(1)), { interactive: false }).text.split('\n')).toEqual([
      '- heading "People" [level=1]',
      '- link "Home" [ref=e1]',
      '- button "Edit Person 1" [ref=e2]',
      '- heading "Todos" [level=2]',
      '- checkbox "Done" [ref=e3]',
      '- button "Delete" [ref=e4]',
      '- checkbox "Done" [ref=e5]',
      '- button "Delete" [ref=e6]',
    ]);
    const nested = [line(0, 'dialog "Sign in":'), line(1, 'text: "Welcome"'), line(1, 'group:'), line(2, 'textbox "Email"', 'e1'), line(0, 'button "Later"', 'e2')];
    expect(renderLines(briefLines(nested), { interactive: false }).text).toBe('- dialog "Sign in":\n  - textbox "Email" [ref=e1]\n- button "Later" [ref=e2]');
  });
});

describe('part of the content', () => {
  const article = ['# Harbour News', '', 'Intro paragraph.', '', '## The storm', '', 'Waves hit the pier.', '', 'The lighthouse keeper stayed.', '', '### Aftermath', '', 'The pier was closed.', '', '## Sports', '', 'The harbour team won.'].join('\n');

  it('is the section under the first heading holding the text, down to the next of its level', () => {
    expect(sectionUnder(article, 'STORM')).toBe(['## The storm', '', 'Waves hit the pier.', '', 'The lighthouse keeper stayed.', '', '### Aftermath', '', 'The pier was closed.'].join('\n'));
    expect(() => sectionUnder(article, 'weather')).toThrow('no heading holds "weather"; they are: "Harbour News", "The storm", "Aftermath", "Sports"');
  });

  it('is the paragraphs holding the text, each group under its heading', () => {
    expect(paragraphsWith(article, 'pier')).toEqual({ content: ['## The storm', '', 'Waves hit the pier.', '', '### Aftermath', '', 'The pier was closed.'].join('\n'), matches: 2 });
    expect(paragraphsWith(article, 'harbour').matches).toBe(1); // a heading alone is not a paragraph
    expect(paragraphsWith(article, 'tennis')).toEqual({ content: '(no paragraph holds "tennis"; the headings: "Harbour News", "The storm", "Aftermath", "Sports")', matches: 0 });
  });
});
