/// <reference lib="dom" />
// The words the page walk decides with (part of the walker bundle, see page-walker.ts): which
// roles act, which hold others, which say nothing by themselves, the implicit role of a tag, and
// the small text helpers every part of the walk uses. Constants and pure functions only.

export const INTERACTIVE = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'treeitem',
  'gridcell',
]);
// Roles whose accessible name comes from their content (accname "name from content").
export const FROM_CONTENT = new Set([
  'button',
  'link',
  'heading',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'checkbox',
  'radio',
  'switch',
  'tooltip',
  'row',
  'clickable',
  'legend',
]);
// Shown as a container line when named (or always, for the landmarks), with what is inside below.
export const CONTAINERS = new Set([
  'navigation',
  'main',
  'banner',
  'contentinfo',
  'complementary',
  'region',
  'form',
  'search',
  'dialog',
  'alertdialog',
  'group',
  'table',
  'grid',
  'tablist',
  'menu',
  'menubar',
  'tree',
  'radiogroup',
  'toolbar',
]);
export const ALWAYS_SHOWN = new Set([
  'navigation',
  'main',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'dialog',
  'alertdialog',
  'menu',
  'menubar',
  'tablist',
  'tree',
  'grid',
]);
export const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base']);
export const ARIA_ROLES = new Set([
  ...INTERACTIVE,
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'caption',
  'cell',
  'columnheader',
  'complementary',
  'contentinfo',
  'definition',
  'dialog',
  'directory',
  'document',
  'feed',
  'figure',
  'form',
  'generic',
  'grid',
  'group',
  'heading',
  'img',
  'list',
  'listitem',
  'log',
  'main',
  'marquee',
  'math',
  'menu',
  'menubar',
  'meter',
  'navigation',
  'none',
  'note',
  'presentation',
  'progressbar',
  'radiogroup',
  'region',
  'row',
  'rowgroup',
  'rowheader',
  'scrollbar',
  'search',
  'separator',
  'status',
  'table',
  'tablist',
  'tabpanel',
  'term',
  'timer',
  'toolbar',
  'tooltip',
  'tree',
  'treegrid',
  'image',
  'paragraph',
]);

export const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
export const quote = (text: string) => JSON.stringify(text);
/** A status or alert message longer than this is a region of the page, walked as one. */
export const MESSAGE_MAX = 300;

/** Where a page's messages come from (the `messages` request): status and alert messages, then refused fields. */
export const MESSAGE_SOURCES = '[role], [aria-live], output';
export const REFUSED_SOURCES = 'input, select, textarea, [aria-invalid]';
export const cap = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** The element's children as rendered: its shadow root's, a slot's assigned nodes. */
export const childrenOf = (node: Node): ArrayLike<Node> => {
  if (!(node instanceof Element)) return node.childNodes;
  return node.shadowRoot?.childNodes ?? assignedTo(node) ?? node.childNodes;
};

/** A slot's assigned nodes, when it has any (otherwise its own children are what renders). */
export const assignedTo = (el: Element): Node[] | undefined => {
  if (el.localName !== 'slot' || el.shadowRoot) return undefined;
  const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
  return assigned.length > 0 ? assigned : undefined;
};

// Tags whose implicit role does not depend on attributes or context.
export const TAG_ROLES: Record<string, string> = {
  button: 'button',
  summary: 'button',
  textarea: 'textbox',
  option: 'option',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  nav: 'navigation',
  main: 'main',
  aside: 'complementary',
  form: 'form',
  section: 'region',
  dialog: 'dialog',
  details: 'group',
  fieldset: 'group',
  optgroup: 'group',
  table: 'table',
  tr: 'row',
  td: 'cell',
  ul: 'list',
  ol: 'list',
  li: 'listitem',
  iframe: 'iframe',
  frame: 'iframe',
  progress: 'progressbar',
  meter: 'meter',
  hr: 'separator',
  p: 'paragraph',
  label: 'label',
  legend: 'legend',
  output: 'status',
};
// Roles that say nothing by themselves: such an element shows as `clickable` when it acts like one.
export const PLAIN = new Set(['generic', 'none', 'presentation', 'paragraph', 'listitem']);

/** Roles of controls: their own line says their name and value. */
export const CONTROLS = new Set([
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'menuitemcheckbox',
  'menuitemradio',
]);

export const parentOf = (el: Element): Element | null =>
  el.parentElement ?? (el.parentNode as ShadowRoot | null)?.host ?? null;
