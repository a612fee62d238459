/// <reference lib="dom" />
// How the walk reads one element (part of the walker bundle): its role, whether a person can
// click it though its role does not say so (the one rule: README, "What has a ref"), its
// accessible name, text, states, value, and the message it gives. Made per request, over that
// request's unseen rules (a heading's or a message's words are only those a person sees).
// Kept whole (under the 400-line cap): the readers call each other (a name reads a role, a click
// reads both) over one request's rules.

import { ARIA_ROLES, CONTROLS, FROM_CONTENT, SKIPPED, TAG_ROLES, cap, childrenOf, quote, squash } from './walker-words';
import type { UnseenRules } from './unseen-rules';

/** What a listener host holding one of these takes clicks for: its controls, not itself. */
const HELD_CONTROLS = 'a[href], button, input, select, textarea, [role=button], [role=link], [onclick]';

/** The handlers of a person's click, as React names its props. */
const CLICKS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp'];

/** How much of each cell a row's name says. */
const ROW_CELL_MAX = 40;

/**
 * The readings of one request. Those used elsewhere are arrow functions, so they can be taken
 * apart from it (`const { roleOf, nameOf } = reading`).
 */
export class ElementReading {
  /** The key React keeps an element's props under (`__reactProps$…`, one per React copy), once seen. */
  private reactProps: string | undefined;

  /** `clickListener`: whether an element has a click listener of its own, as far as the frame's walker knows. */
  constructor(
    private readonly rules: UnseenRules,
    private readonly clickListener: (el: Element) => boolean = () => false,
  ) {}

  /**
   * A control inside what is being named adds nothing to its name: a checkbox's "on" or its
   * "Select" label, a field's text, a select's option, an icon button's "Star" would name a row or
   * a card by what sits in it or was typed there, and change it when they change. The control's
   * own line says its name and value.
   */
  readonly isControl = (el: Element): boolean => {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return true;
    const role = el.getAttribute('role')?.trim().split(/\s+/)[0]!.toLowerCase();
    // A button says words of its own ("INV-1001", an accordion's "Shipping"): those stay; an icon
    // button (☆, ×, ⋮) says only its label, which is what it does, not what holds it.
    if (tag === 'button' || role === 'button') return !/[\p{L}\p{N}]/u.test(el.textContent ?? '');
    return role !== undefined && CONTROLS.has(role);
  };

  /**
   * What a person can click though its role does not say so — the one rule (README, "What has a
   * ref"): a link without `href` that has words, an element with a click handler of its own (an
   * `onclick`, or a framework's own: React's props, Vue's invokers, Svelte's and Preact's
   * delegated handlers; a click listener added with addEventListener, as Angular's and plain
   * scripts' are, unless the element holds controls it takes the clicks for), a `tabindex` of 0
   * or more, or a pointer cursor of its own — not one it only inherits, which would make every
   * word of a clickable row a target.
   */
  readonly clicksLike = (el: Element, st: CSSStyleDeclaration, focusable: boolean): boolean => {
    if (focusable) return true;
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && /\S/.test(el.textContent ?? '')) return true;
    if ((el.hasAttribute('onclick') || (el as HTMLElement).onclick || this.frameworkHandler(el)) && this.aTarget(el))
      return true;
    if (this.clickListener(el) && this.aTarget(el) && !el.querySelector(HELD_CONTROLS)) return true;
    if (st.cursor !== 'pointer') return false;
    const parent = el.parentElement ?? (el.parentNode as ShadowRoot | null)?.host ?? null;
    return !parent || this.rules.style(parent).cursor !== 'pointer';
  };

  /**
   * A handler on a whole region (a page's root catching clicks outside a menu, a form's wrapper)
   * is not a target: only an element of a few dozen elements, with no page region or form inside.
   */
  private aTarget(el: Element): boolean {
    if (el === document.body || el === document.documentElement) return false;
    return (
      el.getElementsByTagName('*').length <= 60 &&
      !el.querySelector('main, nav, form, [role=main], [role=navigation], [role=form]')
    );
  }

  private frameworkHandler(el: Element): boolean {
    const own = el as unknown as Record<string, unknown>;
    if (this.reactProps === undefined) {
      for (const key of Object.keys(own))
        if (key.startsWith('__reactProps$')) {
          this.reactProps = key;
          break;
        }
    }
    const props =
      this.reactProps !== undefined ? (own[this.reactProps] as Record<string, unknown> | undefined) : undefined;
    if (props && CLICKS.some((name) => typeof props[name] === 'function')) return true;
    const vue = own._vei as Record<string, unknown> | undefined; // Vue 3's invokers, by event
    if (vue && typeof vue === 'object' && (vue.onClick || vue.onMousedown || vue.onPointerdown)) return true;
    if (typeof own.__click === 'function') return true; // Svelte 5's delegated click
    const preact = own.l as Record<string, unknown> | undefined; // Preact's listeners, by event and phase
    return !!preact && typeof preact === 'object' && ('clickfalse' in preact || 'clicktrue' in preact);
  }

  private implicitRole(el: Element): string {
    const tag = el.localName;
    const fixed = TAG_ROLES[tag];
    if (fixed) return fixed;
    switch (tag) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : 'generic';
      case 'input': {
        const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
        if (type === 'hidden') return 'none';
        if (['button', 'submit', 'reset', 'image', 'file'].includes(type)) return 'button';
        if (type === 'checkbox' || type === 'radio') return type;
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'select':
        return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
      case 'img':
        return el.getAttribute('alt') === '' ? 'none' : 'img';
      case 'header':
        return el.closest('article, aside, main, nav, section') ? 'generic' : 'banner';
      case 'footer':
        return el.closest('article, aside, main, nav, section') ? 'generic' : 'contentinfo';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      default:
        return 'generic';
    }
  }

  readonly roleOf = (el: Element): string => {
    const explicit = el.getAttribute('role');
    if (explicit) {
      for (const token of explicit.trim().toLowerCase().split(/\s+/))
        if (ARIA_ROLES.has(token)) return token === 'image' ? 'img' : token;
    }
    const role = this.implicitRole(el);
    if (role !== 'generic') return role;
    if (
      el instanceof HTMLElement &&
      el.isContentEditable &&
      (el.parentElement === null || !el.parentElement.isContentEditable)
    )
      return 'textbox';
    return role;
  };

  /** CSS `content` of a pseudo-element as text ('' for none, counters or images). */
  private pseudoText(el: Element, which: '::before' | '::after'): string {
    const content = getComputedStyle(el, which).content;
    if (!content || content === 'none' || content === 'normal') return '';
    const parts = content.match(/"((?:[^"\\]|\\.)*)"/g);
    return parts ? parts.map((p) => p.slice(1, -1).replace(/\\(.)/g, '$1')).join('') : '';
  }

  /**
   * Text of a subtree for a name (accname's name from content, simplified), bounded by `max`.
   * `seenOnly`: only what a person sees (a heading, a message, a row): a control's name keeps
   * visually hidden text, the rest of the page does not.
   */
  readonly textOf = (node: Node, max: number, pseudo: boolean, skip?: Element, seenOnly = false): string => {
    const { style, isHiddenForAll, textUnseen, boxUnseen } = this.rules;
    let out = '';
    const visit = (n: Node) => {
      if (out.length > max) return;
      if (n.nodeType === Node.TEXT_NODE) {
        if (seenOnly && n.parentElement && /\S/.test(n.nodeValue ?? '') && textUnseen(n.parentElement)) return;
        out += n.nodeValue ?? '';
        return;
      }
      if (!(n instanceof Element) || n === skip) return;
      if (SKIPPED.has(n.localName) || isHiddenForAll(n) || this.isControl(n)) return;
      if (seenOnly && (style(n).visibility === 'hidden' || boxUnseen(n, style(n)))) return;
      const label = n.getAttribute('aria-label');
      if (label && label.trim()) {
        out += ` ${label} `;
        return;
      }
      const tag = n.localName;
      if (tag === 'img' || (tag === 'input' && (n as HTMLInputElement).type === 'image')) {
        out += ` ${n.getAttribute('alt') ?? ''} `;
        return;
      }
      const block = style(n).display !== 'inline';
      if (block) out += ' ';
      if (pseudo) out += this.pseudoText(n, '::before');
      const kids = childrenOf(n);
      for (let i = 0; i < kids.length; i++) visit(kids[i]!);
      if (pseudo) out += this.pseudoText(n, '::after');
      if (block) out += ' ';
    };
    const kids = childrenOf(node);
    if (pseudo && node instanceof Element) out += this.pseudoText(node, '::before');
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    if (pseudo && node instanceof Element) out += this.pseudoText(node, '::after');
    return squash(out);
  };

  private byIds(el: Element, ids: string): Element[] {
    const root = el.getRootNode() as Document | ShadowRoot;
    return ids
      .split(/\s+/)
      .map((id) => root.getElementById?.(id) ?? el.ownerDocument.getElementById(id))
      .filter((e): e is HTMLElement => e !== null);
  }

  /**
   * A cell's words in its row's name: a long cell says up to its first separator (a mail's
   * subject before " — " and its snippet), else its first ROW_CELL_MAX characters, on a word.
   */
  private cellWords(text: string): string {
    if (text.length <= ROW_CELL_MAX) return text;
    const separator = text.search(/ [—–·|] /);
    if (separator > 0 && separator < ROW_CELL_MAX) return `${text.slice(0, separator)}…`;
    const space = text.lastIndexOf(' ', ROW_CELL_MAX - 1);
    return space > ROW_CELL_MAX / 2 ? `${text.slice(0, space)}…` : cap(text, ROW_CELL_MAX);
  }

  readonly nameOf = (el: Element, role: string): string => {
    const { textOf } = this;
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = squash(
        this.byIds(el, labelledBy)
          .map((e) => e.getAttribute('aria-label') || textOf(e, 300, false))
          .join(' '),
      );
      if (text) return cap(text, 150);
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return cap(squash(label), 150);
    const tag = el.localName;
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = (el as HTMLInputElement).type;
      if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) {
        const value = (el as HTMLInputElement).value;
        return cap(squash(value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '')), 150);
      }
      if (tag === 'input' && type === 'image')
        return cap(squash(el.getAttribute('alt') ?? el.getAttribute('value') ?? 'Submit'), 150);
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length > 0) {
        const text = squash([...labels].map((l) => textOf(l, 300, false, el)).join(' '));
        if (text) return cap(text, 150);
      }
      const title = el.getAttribute('title') ?? '';
      const placeholder = el.getAttribute('placeholder') ?? '';
      return cap(squash(title || placeholder), 150);
    }
    if (tag === 'img' || tag === 'area')
      return cap(squash(el.getAttribute('alt') ?? el.getAttribute('title') ?? ''), 150);
    if (tag === 'fieldset') {
      const legend = [...el.children].find((c) => c.localName === 'legend');
      if (legend) return cap(textOf(legend, 300, false), 150);
    }
    if (tag === 'table') {
      const caption = (el as HTMLTableElement).caption;
      if (caption) return cap(textOf(caption, 300, false), 150);
    }
    if (tag === 'iframe') return cap(squash(el.getAttribute('title') ?? el.getAttribute('name') ?? ''), 150);
    if (role === 'row') {
      // A row leads with what identifies it: each cell's first words (a long cell, a mail's
      // snippet, cut), not one long run of the first cells.
      const cells = [...el.children]
        .map((c) => this.cellWords(textOf(c, 100, false)))
        .filter(Boolean)
        .join(' ');
      if (cells) return cap(cells, 120);
    }
    if (FROM_CONTENT.has(role)) {
      const text = textOf(el, 300, false) || textOf(el, 300, true);
      if (text) return cap(text, role === 'row' ? 120 : 150);
    }
    return cap(squash(el.getAttribute('title') ?? ''), 150);
  };

  readonly states = (el: Element, role: string): string => {
    const parts: string[] = [];
    const aria = (name: string) => el.getAttribute(name);
    if (role === 'heading') {
      const level = aria('aria-level') ?? (/^h[1-6]$/.test(el.localName) ? el.localName[1] : undefined);
      if (level) parts.push(`[level=${level}]`);
    }
    const input = el as HTMLInputElement;
    const checked =
      aria('aria-checked') ??
      (el.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')
        ? String(input.indeterminate ? 'mixed' : input.checked)
        : null);
    if (checked === 'true') parts.push('[checked]');
    if (checked === 'mixed') parts.push('[checked=mixed]');
    if (aria('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true) parts.push('[disabled]');
    const expanded =
      aria('aria-expanded') ??
      (el.localName === 'summary' && el.parentElement?.localName === 'details'
        ? String((el.parentElement as HTMLDetailsElement).open)
        : null);
    if (expanded === 'true') parts.push('[expanded]');
    if (expanded === 'false') parts.push('[collapsed]');
    const pressed = aria('aria-pressed');
    if (pressed === 'true') parts.push('[pressed]');
    if (aria('aria-selected') === 'true' || (el.localName === 'option' && (el as HTMLOptionElement).selected))
      parts.push('[selected]');
    if ((el as HTMLInputElement).required === true || aria('aria-required') === 'true') parts.push('[required]');
    const invalid = this.invalidMessage(el);
    if (invalid !== undefined) parts.push(invalid ? `[invalid=${quote(cap(invalid, 150))}]` : '[invalid]');
    return parts.join(' ');
  };

  /**
   * Why a field is refused, when it is: `aria-invalid` with its `aria-errormessage` (or
   * `aria-describedby`) text, or the browser's own validation once the person — or the agent —
   * has tried it (`:user-invalid`, not `:invalid`: an empty required field is not an error
   * before anyone typed or submitted). '' when invalid without a message; undefined when valid.
   */
  readonly invalidMessage = (el: Element): string | undefined => {
    const aria = el.getAttribute('aria-invalid');
    let user = false;
    try {
      user = el.matches(':user-invalid');
    } catch {
      // A browser before :user-invalid: aria-invalid only.
    }
    if (!user && (aria === null || aria === 'false')) return undefined;
    const said = (attr: string) => {
      const ids = el.getAttribute(attr);
      return ids
        ? squash(
            this.byIds(el, ids)
              .map((e) => this.textOf(e, 300, false))
              .join(' '),
          )
        : '';
    };
    return (
      said('aria-errormessage') ||
      (user ? squash((el as HTMLInputElement).validationMessage ?? '') : '') ||
      said('aria-describedby')
    );
  };

  /** `status` or `alert` for an element that tells the person how something went, else undefined. */
  readonly messageRole = (el: Element, role: string): 'status' | 'alert' | undefined => {
    if (role === 'status' || role === 'alert') return role;
    const live = el.getAttribute('aria-live');
    return live === 'polite' ? 'status' : live === 'assertive' ? 'alert' : undefined;
  };

  readonly valueOf = (el: Element, role: string): string | undefined => {
    const tag = el.localName;
    if (tag === 'select')
      return [...(el as HTMLSelectElement).selectedOptions].map((o) => squash(o.textContent ?? '')).join(', ');
    if (tag === 'textarea' || (tag === 'input' && role !== 'checkbox' && role !== 'radio' && role !== 'button')) {
      const input = el as HTMLInputElement;
      return input.type === 'password' ? (input.value ? '••••' : '') : input.value;
    }
    if (role === 'textbox' && el instanceof HTMLElement && el.isContentEditable) return squash(el.innerText ?? '');
    const now = el.getAttribute('aria-valuenow');
    if (now !== null) return el.getAttribute('aria-valuetext') ?? now;
    return undefined;
  };
}
