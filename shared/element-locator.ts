// How a script finds an element again, as the action log keeps it and the session export and
// recipes write it: Playwright's own locators, most stable first — a test id, the role and
// accessible name (the k-th when several share them), a label, a placeholder, and a CSS path only
// where nothing else tells the element apart. Chosen when the action runs, never a ref (refs die
// with the page; a script runs on another day).

export type ElementLocator =
  | { by: 'testId'; testId: string }
  | { by: 'role'; role: string; name: string; nth?: number }
  | { by: 'label'; label: string }
  | { by: 'placeholder'; placeholder: string }
  | { by: 'css'; css: string };

/** An element as a script finds it, and what it is. */
export interface LocatedElement {
  locator: ElementLocator;
  /** The URL of the frame it is in, when that is not the page's own document. */
  frame?: string;
  /** A password field: its value is never kept, and a script asks for it. */
  password?: true;
}

/**
 * The most stable locator the facts allow: a test id, the role and name (when the reader could
 * tell that it finds this element), a label, a placeholder, else the CSS path.
 */
export function locatorOf(
  facts: { testId?: string; label?: string; placeholder?: string; css: string },
  byRole: ElementLocator | undefined,
): ElementLocator {
  if (facts.testId) return { by: 'testId', testId: facts.testId };
  if (byRole) return byRole;
  if (facts.label) return { by: 'label', label: facts.label };
  if (facts.placeholder) return { by: 'placeholder', placeholder: facts.placeholder };
  return { by: 'css', css: facts.css };
}

/**
 * A locator in words, for a step's label, its question to the person and where it stopped:
 * `button "Place order"`, `label "Full name"`. `quote` writes the page's words (fenced where an
 * agent reads them).
 */
export function locatorWords(
  locator: ElementLocator,
  quote: (words: string) => string = (w) => JSON.stringify(w),
): string {
  switch (locator.by) {
    case 'testId':
      return `test id ${quote(locator.testId)}`;
    case 'role':
      return `${locator.role} ${quote(locator.name)}${locator.nth !== undefined ? ` (the ${locator.nth + 1}th)` : ''}`;
    case 'label':
      return `label ${quote(locator.label)}`;
    case 'placeholder':
      return `placeholder ${quote(locator.placeholder)}`;
    case 'css':
      return `css ${quote(locator.css)}`;
  }
}

/** The words a locator finds its element by (a label, a name, a test id), or '' for a CSS path. */
export function elementWords(locator: ElementLocator): string {
  switch (locator.by) {
    case 'label':
      return locator.label;
    case 'placeholder':
      return locator.placeholder;
    case 'testId':
      return locator.testId;
    case 'role':
      return locator.name;
    case 'css':
      return '';
  }
}
