// The role and accessible name of an element the person acted on, as Playwright's getByRole finds
// it, read in the page by the recorder: the implicit roles of the elements people act on (Playwright's
// own table for them) and the name from aria-labelledby, aria-label, a field's label (without the
// field's own text), a button's value, an element's visible text, its title or placeholder. An
// element whose role or name this cannot tell is found by a label, a placeholder or a CSS path.

/** Input types and their roles, where the type is not a text field's. */
const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  checkbox: 'checkbox',
  file: 'button',
  image: 'button',
  number: 'spinbutton',
  radio: 'radio',
  range: 'slider',
  reset: 'button',
  submit: 'button',
};
const TEXT_INPUTS = new Set(['email', 'search', 'tel', 'text', 'url', '']);
/** Roles whose name is their content (a button's text, a link's). */
const NAMED_BY_CONTENT = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'treeitem',
  'heading',
  'cell',
  'gridcell',
]);
/** The elements that may have a role the recorder names: where the k-th of a role and name is counted. */
export const ROLED = 'a,area,button,input,select,textarea,[role]';

const clean = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

export function roleOf(el: Element): string | undefined {
  const explicit = clean(el.getAttribute('role')).split(' ')[0];
  if (explicit) return explicit;
  switch (el.tagName) {
    case 'BUTTON':
      return 'button';
    case 'A':
    case 'AREA':
      return el.hasAttribute('href') ? 'link' : undefined;
    case 'SELECT': {
      const select = el as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    case 'TEXTAREA':
      return 'textbox';
    case 'INPUT': {
      const input = el as HTMLInputElement;
      const type = input.type.toLowerCase();
      if (type === 'hidden') return undefined;
      if (TEXT_INPUTS.has(type)) return input.list ? 'combobox' : type === 'search' ? 'searchbox' : 'textbox';
      return INPUT_ROLES[type] ?? 'textbox';
    }
  }
  return undefined;
}

/** A field a label names (not a button-like input). */
export function isField(el: Element): el is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  if (el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') return true;
  return (
    el.tagName === 'INPUT' && !['button', 'submit', 'reset', 'image', 'hidden'].includes((el as HTMLInputElement).type)
  );
}

function hidden(el: Element): boolean {
  if (el.getAttribute('aria-hidden') === 'true') return true;
  const style = getComputedStyle(el);
  return style.display === 'none' || style.visibility === 'hidden';
}

/** The visible text of a node, images by their alt, leaving out `skip` and the fields in it. */
function textOf(node: Node, skip?: Element): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (node.nodeType !== Node.ELEMENT_NODE) return '';
  const el = node as Element;
  if (el === skip || hidden(el) || (skip && isField(el))) return '';
  if (el.tagName === 'IMG') return ` ${el.getAttribute('alt') ?? ''} `;
  const own = el.shadowRoot ?? el;
  const inner = [...own.childNodes].map((child) => textOf(child, skip)).join('');
  // Blocks are apart in words, as they are on screen.
  return getComputedStyle(el).display.startsWith('inline') ? inner : ` ${inner} `;
}

export function nameOf(el: Element): string {
  const doc = el.ownerDocument;
  const labelledBy = clean(el.getAttribute('aria-labelledby'));
  if (labelledBy) {
    const named = clean(
      labelledBy
        .split(' ')
        .map((id) => {
          const by = doc.getElementById(id);
          return by ? textOf(by) : '';
        })
        .join(' '),
    );
    if (named) return named;
  }
  const aria = clean(el.getAttribute('aria-label'));
  if (aria) return aria;
  if (el.tagName === 'INPUT') {
    const input = el as HTMLInputElement;
    if (['submit', 'reset', 'button'].includes(input.type))
      return clean(input.value) || (input.type === 'submit' ? 'Submit' : input.type === 'reset' ? 'Reset' : '');
    if (input.type === 'image') return clean(input.alt);
  }
  if (isField(el)) {
    const labels = [...(el.labels ?? [])];
    const labelled = clean(labels.map((label) => textOf(label, el)).join(' '));
    if (labelled) return labelled;
  }
  const role = roleOf(el);
  if (role && NAMED_BY_CONTENT.has(role)) {
    const content = clean(textOf(el));
    if (content) return content;
  }
  return clean(el.getAttribute('title')) || clean(el.getAttribute('placeholder'));
}

/** Whether Playwright's getByRole would see it (it leaves out what is hidden). */
export function shown(el: Element): boolean {
  for (let at: Element | null = el; at; at = at.parentElement) if (hidden(at)) return false;
  return true;
}
