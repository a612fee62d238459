// Reading part of a page instead of all of it: find with context, one element's subtree, the
// brief view actions and loads answer, and a section or the matching paragraphs of the content.

import { describe, expect, it } from 'vitest';
import { paragraphsWith, sectionUnder } from '../../relay/agent/capture/content-parts';
import { findLines, subtreeOf } from '../../relay/agent/snapshots/find-lines';
import type { RefIndex, SnapshotLine } from '../../relay/agent/snapshots/snapshot-engine';
import { briefLines, renderLines } from '../../relay/agent/snapshots/snapshot-lines';
import { dropSaidTwice } from '../../relay/agent/snapshots/walk-lines';
import type { WalkLine } from '../../relay/agent/in-page/page-walker';

const line = (depth: number, text: string, ref?: string): SnapshotLine => ({
  depth,
  text: ref ? `${text} [${ref}]` : text,
  ...(ref ? { ref } : {}),
});

/** A page: a heading, a navigation, a table of people with an Edit button per row, a list of todos. */
function page(rows = 3): SnapshotLine[] {
  const lines = [
    line(0, 'heading "People" [level=1]'),
    line(0, 'navigation "Main":'),
    line(1, 'link "Home"', 'e1'),
    line(0, 'table "Staff":'),
  ];
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
    line(2, '"Buy milk"'),
    line(2, 'button "Delete"', `e${next + 1}`),
    line(1, 'listitem:'),
    line(2, 'checkbox "Done"', `e${next + 2}`),
    line(2, '"Walk the dog"'),
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
  it('answers the matching row with its button in its named table (which says more than the heading before), a small part of a big table', () => {
    const lines = page(2_000);
    const found = findLines(lines, { query: 'person1234@', limit: 10 });
    expect(found.matches).toBe(1);
    expect(found.text.split('\n')).toEqual([
      'table "Staff":',
      '  row: "Person 1234 | person1234@example.com | Edit"',
      '    button "Edit Person 1234" [e1235]',
    ]);
    expect(found.refs).toEqual(['e1235']);
    const whole = renderLines(lines, { interactive: false }).text;
    expect(found.text.length).toBeLessThan(whole.length / 100);
  });

  it('shows what can be done with a match in a list item: its checkbox and button', () => {
    const found = findLines(page(), { query: 'walk the DOG', limit: 10 });
    expect(found.text.split('\n')).toEqual([
      'list "Todos":',
      '  listitem:',
      '    checkbox "Done" [e7]',
      '    "Walk the dog"',
      '    button "Delete" [e8]',
    ]);
  });

  it('answers a field with the other fields of its row: a line item’s quantity beside its description', () => {
    const invoice = [
      line(0, 'heading "Invoice 1001" [level=1]'),
      line(0, 'table "Items":'),
      line(1, 'row: "Kettle | 2 | £41"'),
      line(2, 'textbox "Description"', 'e1'),
      line(2, 'spinbutton "Quantity"', 'e2'),
      line(2, 'textbox "Price"', 'e3'),
      line(2, 'button "Remove"', 'e4'),
      line(1, 'row: "Mug | 1 | £9"'),
      line(2, 'textbox "Description 2"', 'e5'),
      line(2, 'spinbutton "Quantity 2"', 'e6'),
      line(0, 'button "Save invoice"', 'e7'),
    ];
    expect(findLines(invoice, { query: 'description', limit: 1 }).text.split('\n')).toEqual([
      'table "Items":',
      '  row: "Kettle | 2 | £41"',
      '    textbox "Description" [e1]',
      '    spinbutton "Quantity" [e2]',
      '    textbox "Price" [e3]',
      '    button "Remove" [e4]',
      '… 1 more matches: narrow the query (or role), or raise limit',
    ]);
    // A match with a ref in a large frame only (the table, the page): no neighbours.
    expect(findLines(invoice, { query: 'save', limit: 10 }).text).toBe('button "Save invoice" [e7]');
  });

  it('shows what follows a match framed only by its section: a product card drawn as a heading, text and a button', () => {
    const cards = [line(0, 'main:')];
    for (const [i, name] of ['Steel kettle', 'Blue Kettle', 'Red teapot'].entries()) {
      cards.push(
        line(1, `heading "${name}" [level=3]`),
        line(1, `"£${40 + i}.00 · free delivery"`),
        line(1, 'button "Add to basket"', `e${i + 1}`),
        line(1, 'link "Reviews"', `e${i + 11}`),
      );
    }
    expect(findLines(cards, { query: 'blue kettle', limit: 10 }).text.split('\n')).toEqual([
      'heading "Blue Kettle" [level=3]',
      'button "Add to basket" [e2]',
      'link "Reviews" [e12]',
    ]);
    // A match inside the card: its heading before it, its button after it, not the next card's.
    expect(findLines(cards, { query: '£41', limit: 1 }).text.split('\n')).toEqual([
      'heading "Blue Kettle" [level=3]',
      '"£41.00 · free delivery"',
      'button "Add to basket" [e2]',
      'link "Reviews" [e12]',
    ]);
  });

  it('leaves out the heading before a match that needs none: a row (its cells say where), an element to act on like no other', () => {
    expect(findLines(page(), { query: 'person2@', limit: 10 }).text.split('\n')).toEqual([
      'table "Staff":',
      '  row: "Person 2 | person2@example.com | Edit"',
      '    button "Edit Person 2" [e3]',
    ]);
    const section = [
      line(0, 'heading "Your basket" [level=1]'),
      line(0, '"1 item"'),
      line(0, 'button "Check out"', 'e1'),
      line(0, 'button "Remove"', 'e2'),
      line(0, 'heading "Saved" [level=2]'),
      line(0, 'button "Remove"', 'e3'),
    ];
    expect(findLines(section, { query: 'check out', limit: 10 }).text).toBe('button "Check out" [e1]');
    // Named alike but for their values, or one of several matches: the heading tells them apart.
    const addresses = [
      line(0, 'heading "Billing" [level=2]'),
      line(0, 'textbox "Street"', 'e1'),
      line(0, 'heading "Shipping" [level=2]'),
      { depth: 0, text: 'textbox "Street" [e2]: "1 Quay St"', ref: 'e2' },
    ];
    expect(findLines(addresses, { query: 'quay', limit: 10 }).text.split('\n')).toEqual([
      'heading "Shipping" [level=2]',
      'textbox "Street" [e2]: "1 Quay St"',
    ]);
    expect(findLines(section, { query: 'remove', limit: 10 }).text.split('\n')).toEqual([
      'heading "Your basket" [level=1]',
      'button "Remove" [e2]',
      'heading "Saved" [level=2]',
      'button "Remove" [e3]',
    ]);
  });

  it('narrows by role, caps the matches at limit and says how many more there are', () => {
    const buttons = findLines(page(30), { query: 'person', role: 'button', limit: 3 });
    expect(buttons.matches).toBe(30);
    expect(buttons.shown).toBe(3);
    expect(buttons.refs).toEqual(['e2', 'e3', 'e4']);
    expect(buttons.text).toMatch(/\n… 27 more matches: narrow the query \(or role\), or raise limit$/);
    expect(findLines(page(), { query: 'person', role: 'link', limit: 3 }).matches).toBe(0);
  });

  it('does not match the refs themselves, and answers nothing when nothing matches', () => {
    expect(findLines(page(), { query: 'e2', limit: 10 }).matches).toBe(0);
    expect(findLines(page(), { query: 'nowhere', limit: 10 })).toEqual({ text: '', matches: 0, shown: 0, refs: [] });
  });
});

describe('one element of the snapshot', () => {
  it('is its line and everything under it, indented from it', () => {
    expect(subtreeOf(page(), 'e4', undefined)).toEqual([{ depth: 0, text: 'button "Edit Person 3" [e4]', ref: 'e4' }]);
    const list = page().findIndex((l) => l.text === 'list "Todos":');
    const lines = page();
    lines[list] = { ...lines[list]!, text: 'list "Todos" [e99]', ref: 'e99' };
    expect(renderLines(subtreeOf(lines, 'e99', undefined), { interactive: false }).text.split('\n')).toEqual([
      'list "Todos" [e99]',
      '  listitem:',
      '    checkbox "Done" [e5]',
      '    "Buy milk"',
      '    button "Delete" [e6]',
      '  listitem:',
      '    checkbox "Done" [e7]',
      '    "Walk the dog"',
      '    button "Delete" [e8]',
    ]);
  });

  it('refuses a ref that went as stale and one never given as unknown', () => {
    expect(() => subtreeOf(page(), 'e40', refs(['e40']))).toThrow(expect.objectContaining({ code: 'ref_stale' }));
    expect(() => subtreeOf(page(), 'e40', refs([]))).toThrow(expect.objectContaining({ code: 'ref_unknown' }));
  });
});

describe('a brief view', () => {
  it('shows two of a run of rows of the same shape and counts the rest: a mailbox', () => {
    const mails = Array.from({ length: 6 }, (_, i) => [
      line(0, `row "Sender ${i} Subject ${i}"`, `e${i * 3 + 1}`),
      line(1, 'button "Star"', `e${i * 3 + 2}`),
      line(1, `clickable "Subject ${i}"`, `e${i * 3 + 3}`),
    ]).flat();
    expect(
      renderLines(briefLines([...mails, line(0, 'button "Older"', 'e99')]), { interactive: false }).text.split('\n'),
    ).toEqual([
      'row "Sender 0 Subject 0" [e1]',
      '  button "Star" [e2]',
      '  clickable "Subject 0" [e3]',
      'row "Sender 1 Subject 1" [e4]',
      '  button "Star" [e5]',
      '  clickable "Subject 1" [e6]',
      '… 4 more rows like these (e7 to e18): find one by its words',
      'button "Older" [e99]',
    ]);
  });

  it('keeps headings and what has a ref, indented only under kept lines', () => {
    expect(renderLines(briefLines(page(1)), { interactive: false }).text.split('\n')).toEqual([
      'heading "People" [level=1]',
      'navigation "Main": 1 ref folded',
      'button "Edit Person 1" [e2]',
      'heading "Todos" [level=2]',
      'checkbox "Done" [e3]',
      'button "Delete" [e4]',
      'checkbox "Done" [e5]',
      'button "Delete" [e6]',
    ]);
    const nested = [
      line(0, 'dialog "Sign in":'),
      line(1, '"Welcome"'),
      line(1, 'group:'),
      line(2, 'textbox "Email"', 'e1'),
      line(0, 'button "Later"', 'e2'),
    ];
    expect(renderLines(briefLines(nested), { interactive: false }).text).toBe(
      'dialog "Sign in":\n  textbox "Email" [e1]\nbutton "Later" [e2]',
    );
  });

  it('keeps what the page says about how things went: its status and alert messages, a refused field with why', () => {
    const said = [
      line(0, 'main:'),
      line(1, 'heading "Blue mug" [level=1]'),
      line(1, 'status "Added to your cart: Blue mug"'),
      line(1, '"A mug, blue."'),
      line(1, 'form "Ship to":'),
      line(2, 'textbox "Email" [required] [invalid="Please include an \'@\' in the email address."]', 'e1'),
      line(2, 'alert "Check the fields in red"'),
    ];
    expect(renderLines(briefLines(said), { interactive: false }).text.split('\n')).toEqual([
      'heading "Blue mug" [level=1]',
      'status "Added to your cart: Blue mug"',
      'textbox "Email" [required] [invalid="Please include an \'@\' in the email address."] [e1]',
      'alert "Check the fields in red"',
    ]);
  });

  it("folds the site's header, menus and footer outside main into a line each, and keeps main's own", () => {
    const links = (depth: number, names: string[], from: number) =>
      names.map((n, i) => line(depth, `link "${n}"`, `e${from + i}`));
    const site = [
      line(0, 'banner:'),
      ...links(1, ['Acme home'], 1),
      line(1, 'navigation "Main":'),
      ...links(2, ['Deals', 'New in', 'Brands', 'Help', 'Stores', 'Blog'], 2),
      line(0, 'main:'),
      line(1, 'heading "Kitchen" [level=1]'),
      line(1, 'navigation "Pages":'),
      ...links(2, ['1', '2', 'Next page'], 10),
      line(1, 'button "Add to basket"', 'e20'),
      line(0, 'contentinfo:'),
      line(1, 'heading "Help" [level=2]'),
      ...links(1, ['Delivery', 'Returns'], 30),
    ];
    expect(renderLines(briefLines(site), { interactive: false }).text.split('\n')).toEqual([
      'banner: 7 refs folded',
      'heading "Kitchen" [level=1]',
      'link "1" [e10]',
      'link "2" [e11]',
      'link "Next page" [e12]',
      'button "Add to basket" [e20]',
      'contentinfo: 2 refs folded',
    ]);
    // A button per row: the first two, then a count with the refs' range.
    const rows = Array.from({ length: 500 }, (_, i) => line(0, 'button "Edit"', `e${i + 1}`));
    expect(
      renderLines(briefLines([line(0, 'heading "Orders" [level=1]'), ...rows]), { interactive: false }).text.split(
        '\n',
      ),
    ).toEqual([
      'heading "Orders" [level=1]',
      'button "Edit" [e1]',
      'button "Edit" [e2]',
      '… 498 more button "Edit" (e3 to e500): find one by what is near it',
    ]);
    // A page of nothing but chrome is shown whole: there would be nothing left to act on.
    const menu = [line(0, 'navigation "Main":'), ...links(1, ['Deals', 'Help'], 1)];
    expect(renderLines(briefLines(menu), { interactive: false }).text).toBe('link "Deals" [e1]\nlink "Help" [e2]');
  });

  it("leaves out the top heading that says what the page's title (said above it) says, and no other", () => {
    const form = [
      line(0, 'heading "Create your account" [level=1]'),
      line(0, 'textbox "Email"', 'e1'),
      line(0, 'heading "Plan" [level=2]'),
    ];
    const brief = (title?: string) => renderLines(briefLines(form, title), { interactive: false }).text.split('\n');
    expect(brief('Create your account | Acme')).toEqual(['textbox "Email" [e1]', 'heading "Plan" [level=2]']);
    expect(brief('Create your account')).toEqual(['textbox "Email" [e1]', 'heading "Plan" [level=2]']);
    expect(brief('Create your accounts today')[0]).toBe('heading "Create your account" [level=1]');
    expect(brief()[0]).toBe('heading "Create your account" [level=1]');
  });
});

describe('what is said twice is said once', () => {
  const walked = (...lines: Array<[number, string, string?]>): WalkLine[] =>
    lines.map(([d, s, r]) => ({ d, s, ...(r ? { r } : {}) }));

  it('drops a text beside a control whose name holds it, and a heading that names the frame it titles; keeps what no neighbour says', () => {
    const lines = walked(
      [0, 'dialog "Edit order 17":'],
      [1, 'heading "Edit order 17" [level=2]'],
      [1, 'checkbox "Done: Buy milk" [e1]', 'e1'],
      [1, '"Buy milk"'],
      [1, 'button "Delete Buy milk" [e2]', 'e2'],
      [1, '"2 items left"'],
      [1, 'heading "Totals" [level=3]'],
      [0, '"Buy milk"'],
    );
    expect(dropSaidTwice(lines).map((l) => l.s)).toEqual([
      'dialog "Edit order 17":',
      'checkbox "Done: Buy milk" [e1]',
      'button "Delete Buy milk" [e2]',
      '"2 items left"',
      'heading "Totals" [level=3]',
      '"Buy milk"',
    ]);
  });

  it("keeps a region's heading (a brief view shows headings, not regions) and a text a name holds only as part of a word", () => {
    const lines = walked(
      [0, 'region "Billing address":'],
      [1, 'heading "Billing address" [level=2]'],
      [1, '"Ada"'],
      [1, 'button "Email Adam" [e1]', 'e1'],
      [1, '"12"'],
      [1, 'link "Reviews (12)" [e2]', 'e2'],
    );
    expect(dropSaidTwice(lines).map((l) => l.s)).toEqual([
      'region "Billing address":',
      'heading "Billing address" [level=2]',
      '"Ada"',
      'button "Email Adam" [e1]',
      'link "Reviews (12)" [e2]',
    ]);
  });
});

describe('part of the content', () => {
  const article = [
    '# Harbour News',
    '',
    'Intro paragraph.',
    '',
    '## The storm',
    '',
    'Waves hit the pier.',
    '',
    'The lighthouse keeper stayed.',
    '',
    '### Aftermath',
    '',
    'The pier was closed.',
    '',
    '## Sports',
    '',
    'The harbour team won.',
  ].join('\n');

  it('is the section under the first heading holding the text, down to the next of its level', () => {
    expect(sectionUnder(article, 'STORM')).toBe(
      [
        '## The storm',
        '',
        'Waves hit the pier.',
        '',
        'The lighthouse keeper stayed.',
        '',
        '### Aftermath',
        '',
        'The pier was closed.',
      ].join('\n'),
    );
    expect(() => sectionUnder(article, 'weather')).toThrow(
      'no heading holds "weather"; they are: "Harbour News", "The storm", "Aftermath", "Sports"',
    );
  });

  it('is the paragraphs holding the text, each group under its heading', () => {
    expect(paragraphsWith(article, 'pier')).toEqual({
      content: ['## The storm', '', 'Waves hit the pier.', '', '### Aftermath', '', 'The pier was closed.'].join('\n'),
      matches: 2,
    });
    expect(paragraphsWith(article, 'harbour').matches).toBe(1); // a heading alone is not a paragraph
    expect(paragraphsWith(article, 'tennis')).toEqual({
      content: '(no paragraph holds "tennis"; the headings: "Harbour News", "The storm", "Aftermath", "Sports")',
      matches: 0,
    });
  });
});
