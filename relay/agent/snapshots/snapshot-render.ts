// Turns Playwright's AI aria snapshot (as JSON: role, name, ref, attributes, children) into the
// text agents read. Pure, so formats, filters and truncation are unit-tested without a browser.
//
// - `ai`: the whole tree with every element's ref, in Playwright's YAML-like shape.
// - `role`: refs only on interactive roles and named content roles; `[nth=k]` marks the k-th
//   repeat of the same role and name.
// Either way refs are ours, e1, e2, … in document order over the whole page (iframes included),
// each mapped to Playwright's own ref for the element. Playwright's refs are not shown: they
// gain a per-document prefix (f2e3 after a navigation, f1e2 inside an iframe).
// - `compact` lifts the children of unnamed structure (generic, group, …) into their parent;
//   `interactive` lists only actionable elements, flat; `depth` cuts the tree; `limit` caps lines.

export interface AriaNode {
  role: string;
  name?: string;
  ref?: string;
  children?: Array<AriaNode | string>;
  level?: number;
  checked?: boolean | 'mixed';
  disabled?: boolean;
  expanded?: boolean;
  pressed?: boolean | 'mixed';
  selected?: boolean;
  url?: string;
  text?: string;
  [key: string]: unknown;
}

/** What a ref stands for: the element Playwright knows it by, and what it looked like. */
export interface RefTarget {
  /** Playwright's own ref for the element (resolved with page.getByRef). */
  pw: string;
  role: string;
  name: string;
  /** The k-th element with the same role and name in this snapshot (0 for the first). */
  nth: number;
}

export interface RenderOptions {
  format: 'ai' | 'role';
  interactive?: boolean;
  compact?: boolean;
  depth?: number;
  /** Maximum number of lines. */
  limit?: number;
  /**
   * Playwright's ref of one node (an iframe) whose contents alone are shown. Refs are still
   * numbered over the whole tree, so they match a full snapshot of the same page.
   */
  within?: string;
}

export interface Rendered {
  text: string;
  refs: Map<string, RefTarget>;
  lines: number;
  /** Lines left out by `limit` or `depth`. */
  omitted: number;
  /** With `within`: whether that node was in the tree. */
  found?: boolean;
}

export const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'searchbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'treeitem',
]);

/** Content roles that get a ref when they have a name: worth pointing at (screenshots, scrolling). */
export const NAMED_CONTENT_ROLES = new Set([
  'heading',
  'img',
  'figure',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
  'listitem',
  'article',
  'region',
  'dialog',
  'alertdialog',
  'alert',
  'tabpanel',
  'table',
  'grid',
  'tree',
  'form',
  'navigation',
  'iframe',
]);

/** Structure with nothing to say when unnamed: `compact` lifts its children instead. */
const STRUCTURAL_ROLES = new Set([
  'generic',
  'group',
  'none',
  'presentation',
  'list',
  'paragraph',
  'section',
  'div',
  'Section',
  'rowgroup',
  'row',
]);

function quote(text: string): string {
  return JSON.stringify(text);
}

function attributes(node: AriaNode): string {
  const parts: string[] = [];
  if (node.checked !== undefined)
    parts.push(node.checked === 'mixed' ? '[checked=mixed]' : node.checked ? '[checked]' : '');
  if (node.disabled) parts.push('[disabled]');
  if (node.expanded !== undefined) parts.push(node.expanded ? '[expanded]' : '');
  if (node.level !== undefined) parts.push(`[level=${node.level}]`);
  if (node.pressed !== undefined)
    parts.push(node.pressed === 'mixed' ? '[pressed=mixed]' : node.pressed ? '[pressed]' : '');
  if (node.selected) parts.push('[selected]');
  return parts.filter(Boolean).join(' ');
}

function wantsRef(node: AriaNode, options: RenderOptions): boolean {
  if (!node.ref) return false;
  if (options.interactive) return INTERACTIVE_ROLES.has(node.role);
  if (options.format === 'ai') return true;
  return INTERACTIVE_ROLES.has(node.role) || (NAMED_CONTENT_ROLES.has(node.role) && !!node.name);
}

export function renderSnapshot(roots: Array<AriaNode | string>, options: RenderOptions): Rendered {
  const render = new Render(options);
  for (const root of roots) {
    if (options.within === undefined) render.visit(root, 0, 0);
    else render.pass(root, true);
  }
  return render.rendered();
}

/** One rendering: the lines so far, the refs given, how many of each role and name were seen. */
class Render {
  private readonly lines: string[] = [];
  private readonly refs = new Map<string, RefTarget>();
  private readonly seen = new Map<string, number>(); // role + name → how many so far
  private omitted = 0;
  private counter = 0;
  private found = false;
  private readonly limit: number;

  constructor(private readonly options: RenderOptions) {
    this.limit = options.limit ?? Infinity;
  }

  private push(line: string): void {
    if (this.lines.length >= this.limit) this.omitted++;
    else this.lines.push(line);
  }

  private refFor(node: AriaNode): string | undefined {
    if (!wantsRef(node, this.options)) return undefined;
    const key = `${node.role}\u0000${node.name ?? ''}`;
    const nth = this.seen.get(key) ?? 0;
    this.seen.set(key, nth + 1);
    const ref = `e${++this.counter}`;
    this.refs.set(ref, { pw: node.ref!, role: node.role, name: node.name ?? '', nth });
    return ref;
  }

  private describe(node: AriaNode, ref: string | undefined): string {
    const nth = ref && this.options.format === 'role' ? this.refs.get(ref)!.nth : 0;
    return [
      node.role,
      node.name ? quote(node.name) : '',
      attributes(node),
      ref ? `[ref=${ref}]` : '',
      nth > 0 ? `[nth=${nth}]` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }

  // Outside the shown part (beside `within`, below `depth`): number the refs, print nothing.
  pass(item: AriaNode | string, seek: boolean): void {
    if (typeof item === 'string') return;
    this.refFor(item);
    if (seek && item.ref !== undefined && item.ref === this.options.within) {
      this.found = true;
      for (const child of item.children ?? []) this.visit(child, 0, 0);
      return;
    }
    for (const child of item.children ?? []) this.pass(child, seek);
  }

  visit(item: AriaNode | string, indent: number, depth: number): void {
    const { options } = this;
    const pad = '  '.repeat(indent);
    if (typeof item === 'string') {
      if (!options.interactive) this.push(`${pad}- text: ${quote(item)}`);
      return;
    }
    if (options.depth !== undefined && depth > options.depth) {
      this.omitted++;
      this.pass(item, false);
      return;
    }
    const ref = this.refFor(item);
    const children = item.children ?? [];
    if (options.interactive) {
      if (ref) this.push(`- ${this.describe(item, ref)}`);
      for (const child of children) this.visit(child, 0, depth + 1);
      return;
    }
    const lift = options.compact && !ref && !item.name && STRUCTURAL_ROLES.has(item.role);
    if (lift) {
      if (item.text !== undefined) this.push(`${pad}- text: ${quote(item.text)}`);
      for (const child of children) this.visit(child, indent, depth + 1);
      return;
    }
    const head = this.describe(item, ref);
    const extras: string[] = [];
    if (item.url !== undefined) extras.push(`${pad}  - /url: ${quote(item.url)}`);
    if (children.length === 0 && extras.length === 0) {
      this.push(item.text !== undefined ? `${pad}- ${head}: ${quote(item.text)}` : `${pad}- ${head}`);
      return;
    }
    this.push(`${pad}- ${head}:`);
    for (const extra of extras) this.push(extra);
    if (item.text !== undefined) this.push(`${pad}  - text: ${quote(item.text)}`);
    for (const child of children) this.visit(child, indent + 1, depth + 1);
  }

  rendered(): Rendered {
    return {
      text: this.lines.join('\n'),
      refs: this.refs,
      lines: this.lines.length,
      omitted: this.omitted,
      ...(this.options.within !== undefined ? { found: this.found } : {}),
    };
  }
}

/** Cuts text to `maxChars` on a line boundary, saying so in the text. */
export function truncate(text: string, maxChars: number | undefined): { text: string; truncated: boolean } {
  if (maxChars === undefined || text.length <= maxChars) return { text, truncated: false };
  const cut = text.lastIndexOf('\n', maxChars);
  const kept = text.slice(0, cut > 0 ? cut : maxChars);
  const left = text.length - kept.length;
  return {
    text: `${kept}\n… truncated: ${left} more characters (narrow it with interactive=1, compact=1, depth, selector or frame, or raise maxChars)`,
    truncated: true,
  };
}
