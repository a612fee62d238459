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
