/// <reference lib="dom" />
// The walk itself (part of the walker bundle): one synchronous pass over a frame's document
// (open shadow roots included) that writes the snapshot's lines — actionable elements with refs,
// headings, messages, rows and landmarks for orientation, visible text condensed — and the prune
// of page-content.ts, which takes out of a clone what a person cannot see by the same rules.

import {
  ALWAYS_SHOWN,
  CONTAINERS,
  INTERACTIVE,
  MESSAGE_MAX,
  PLAIN,
  SKIPPED,
  cap,
  childrenOf,
  quote,
  squash,
} from './walker-words';
import { takesFocus } from './box-shapes';
import type { ElementReading } from './element-reading';
import type { RefHeirs } from './ref-heirs';
import type { UnseenRules } from './unseen-rules';
import type { WalkLine, WalkResult } from './walker-types';

export function pageWalk(judged: boolean, rules: UnseenRules, reading: ElementReading, { refFor }: RefHeirs) {
  const { style, isHiddenForAll, textUnseen, boxUnseen, boxUnseenNow, repeatsShownText } = rules;
  const { clicksLike, roleOf, textOf, nameOf, states, messageRole, valueOf } = reading;
  /** The walk's root: inside no box at all. */
  const NONE_UNSEEN = () => false;
  function walk(root: Node, nextRef: number, textMax: number): WalkResult {
    const lines: WalkLine[] = [];
    const refs: Array<[string, string, string]> = [];
    const counter = { next: nextRef };
    let pending = '';
    let pendingDepth = 0;
    const flush = () => {
      const text = squash(pending);
      // A line of the page's text is its words in quotes, alone: every other line opens with a role.
      if (text) lines.push({ d: pendingDepth, s: quote(cap(text, textMax)) });
      pending = '';
    };
    const addText = (text: string, depth: number) => {
      if (pending && depth !== pendingDepth) flush();
      pendingDepth = depth;
      pending += text;
    };

    /**
     * `quiet`: inside an element whose name already says its text (a button, a link): no text lines.
     * `unseen`: whether it is inside a box no person sees (boxUnseen): then only what takes focus is
     * shown. Asked, not told: a box is judged only when something inside needs it (a text, a
     * heading), never for a wrapper that holds only links and buttons — they are shown either way,
     * and most of a page's boxes are such wrappers.
     */
    const visit = (node: Node, depth: number, quiet: boolean, unseen: () => boolean = NONE_UNSEEN): void => {
      if (node.nodeType === Node.TEXT_NODE) {
        if (!quiet && !unseen()) addText(node.nodeValue ?? '', depth);
        return;
      }
      if (!(node instanceof Element)) {
        if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE || node.nodeType === Node.DOCUMENT_NODE) {
          const kids = childrenOf(node);
          for (let i = 0; i < kids.length; i++) visit(kids[i]!, depth, quiet, unseen);
        }
        return;
      }
      const el = node;
      if (SKIPPED.has(el.localName)) return;
      if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return;
      const st = style(el);
      const display = st.display;
      if (display === 'none') return;
      const block = display !== 'inline' && display !== 'contents';
      if (block) flush();
      const visibility = st.visibility;
      const visible = visibility !== 'hidden' && visibility !== 'collapse';
      // Whether its box or one around it is unseen: judged once, when first asked.
      let hiddenNow: boolean | undefined;
      const hidden = () => (hiddenNow ??= unseen() || (boxUnseenNow(el, st, display) && !repeatsShownText(el)));
      // Seen by a person; in an unseen box, still reachable by the keyboard when it takes focus.
      const shown = () => visible && !hidden();
      const reachable = () => visible && (takesFocus(el) || !hidden());
      const role = roleOf(el);
      const editable = role === 'textbox' && el instanceof HTMLElement && el.isContentEditable;
      const focusable = el.hasAttribute('tabindex') && Number(el.getAttribute('tabindex')) >= 0;
      let shownRole = role;
      // A row or cell a person clicks keeps its role, with a ref; a plain element shows as clickable.
      const clickedAsIs = (role === 'row' || role === 'cell') && clicksLike(el, st, focusable);
      if (PLAIN.has(role) && clicksLike(el, st, focusable) && reachable()) shownRole = 'clickable';
      const actionable =
        (INTERACTIVE.has(shownRole) || shownRole === 'clickable' || clickedAsIs || editable) && reachable();
      let childDepth = depth;
      let childQuiet = quiet;
      if (shownRole === 'iframe') {
        // Tracking pixels and parked ad slots (a pixel or less across) hold nothing to act on; a
        // frame in an unseen box shows nothing a person sees.
        const box = el.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1 || hidden()) return;
      }
      if (actionable || shownRole === 'iframe') {
        flush();
        const name = nameOf(el, shownRole);
        const ref = refFor(el, shownRole, name, counter);
        refs.push([ref, shownRole, name]);
        const value = valueOf(el, shownRole);
        const attrs = states(el, shownRole);
        const head = `${shownRole}${name ? ` ${quote(name)}` : ''}${attrs ? ` ${attrs}` : ''} [${ref}]`;
        if (shownRole === 'iframe') {
          lines.push({ d: depth, s: `${head}:`, r: ref, f: 1 });
          return;
        }
        lines.push({
          d: depth,
          s: value !== undefined && value !== '' ? `${head}: ${quote(cap(value, 200))}` : head,
          r: ref,
        });
        if (editable || el.localName === 'select' || el.localName === 'textarea') return;
        childQuiet = true;
        childDepth = depth + 1;
      } else if (role === 'heading' && shown()) {
        flush();
        // What the person reads there (a heading is not a control: its hidden words are not its name).
        const name =
          el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
            ? nameOf(el, role)
            : cap(textOf(el, 300, false, undefined, true) || textOf(el, 300, true, undefined, true), 150);
        const attrs = states(el, role);
        if (name) lines.push({ d: depth, s: `heading ${quote(name)}${attrs ? ` ${attrs}` : ''}` });
        childQuiet = true;
        childDepth = depth + 1;
      } else if (!quiet && messageRole(el, role) && shown()) {
        // How an action went ("Added to your cart", "Wrong password"): one line an answer keeps,
        // its text said once; a long live region (a feed, a results list) is a container.
        flush();
        const said = textOf(el, MESSAGE_MAX + 1, false, undefined, true);
        const kind = messageRole(el, role)!;
        if (said && said.length <= MESSAGE_MAX) {
          lines.push({ d: depth, s: `${kind} ${quote(said)}` });
          childQuiet = true;
          childDepth = depth + 1;
        } else if (said) {
          lines.push({ d: depth, s: `${kind}:`, c: 1 });
          childDepth = depth + 1;
        }
      } else if (role === 'row' && shown()) {
        flush();
        const cells = [...el.children]
          .filter((c) => !isHiddenForAll(c))
          .map((c) => textOf(c, 60, false, undefined, true))
          .filter(Boolean);
        lines.push({ d: depth, s: `row: ${quote(cap(cells.join(' | '), 120))}` });
        childQuiet = true;
        childDepth = depth + 1;
      } else if (role === 'img' && shown()) {
        // A picture of 2×2 pixels or less (a tracking pixel) has no words a person reads.
        const box = judged ? el.getBoundingClientRect() : { width: 3, height: 3 };
        const name = box.width > 2 || box.height > 2 ? nameOf(el, role) : '';
        if (name && !quiet) {
          flush();
          lines.push({ d: depth, s: `img ${quote(name)}` });
        }
      } else if (CONTAINERS.has(role) && shown()) {
        const name = nameOf(el, role);
        if (name || ALWAYS_SHOWN.has(role)) {
          flush();
          lines.push({ d: depth, s: `${role}${name ? ` ${quote(name)}` : ''}:`, c: 1 });
          childDepth = depth + 1;
        }
      }
      // A label's text is its control's name, a legend's its group's: said once is enough.
      const labelOfControl =
        (el.localName === 'label' && (el as HTMLLabelElement).control !== null) ||
        (el.localName === 'legend' && el.parentElement?.localName === 'fieldset');
      // An invisible element's own text is not shown (asked at its first words); its children have
      // their own visibility.
      const textQuiet = childQuiet || labelOfControl;
      // A closed <details> renders its summary only (its other children stay in the DOM, unseen).
      const closed = el.localName === 'details' && !(el as HTMLDetailsElement).open;
      const kids = closed ? [...el.children].filter((c) => c.localName === 'summary') : childrenOf(el);
      // Whether this element's own text can be read (textUnseen), asked once, at its first words.
      let ownText: boolean | undefined;
      for (let i = 0; i < kids.length; i++) {
        const kid = kids[i]!;
        if (kid.nodeType === Node.TEXT_NODE) {
          if (textQuiet || !shown()) continue;
          // Spaces between words stay; words are asked whether they can be read.
          if (/\S/.test(kid.nodeValue ?? '') && (ownText ??= !textUnseen(el)) === false) continue;
          visit(kid, childDepth, false);
        } else visit(kid, childDepth, childQuiet || labelOfControl, hidden);
      }
      if (block) flush();
    };

    visit(root, 0, false);
    flush();
    return { lines, nextRef: counter.next, refs };
  }

  /** The prune request: the same rules as the walk, on a clone, node for node (a clone's children are the original's, in order). */
  function prune(from: Node, copy: Node): number {
    const gone: Node[] = [];
    const visit = (orig: Node, clone: Node, invisibleText: boolean) => {
      const origKids = orig.childNodes;
      const cloneKids = clone.childNodes;
      for (let i = 0; i < origKids.length && i < cloneKids.length; i++) {
        const o = origKids[i]!;
        const c = cloneKids[i]!;
        if (o.nodeType === Node.TEXT_NODE) {
          if (/\S/.test(o.nodeValue ?? '') && (invisibleText || (orig instanceof Element && textUnseen(orig))))
            gone.push(c);
          continue;
        }
        if (o.nodeType === Node.COMMENT_NODE) {
          gone.push(c);
          continue;
        }
        if (!(o instanceof Element) || o.localName === 'head') continue; // the head (its title, its metadata) stays as it is
        const st = style(o);
        if (
          SKIPPED.has(o.localName) ||
          isHiddenForAll(o) ||
          o.hasAttribute('inert') ||
          (boxUnseen(o, st) && !repeatsShownText(o)) ||
          (o.localName === 'input' && (o as HTMLInputElement).type === 'hidden')
        ) {
          gone.push(c);
          continue;
        }
        if (o.localName === 'img') {
          const box = o.getBoundingClientRect();
          if (box.width <= 2 && box.height <= 2) gone.push(c);
          continue;
        }
        visit(o, c, st.visibility === 'hidden' || st.visibility === 'collapse');
      }
    };
    visit(from, copy, false);
    for (const node of gone) node.parentNode?.removeChild(node);
    return gone.length;
  }

  return { walk, prune };
}
