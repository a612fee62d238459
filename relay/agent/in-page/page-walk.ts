/// <reference lib="dom" />
// The walk itself (part of the walker bundle): one synchronous pass over a frame's document
// (open shadow roots included) that writes the snapshot's lines — actionable elements with refs,
// headings, messages, rows and landmarks for orientation, visible text condensed — and the prune
// of page-content.ts, which takes out of a clone what a person cannot see by the same rules.
// A block's lines are kept for the next walk, which takes those nothing changed (walk-reuse.ts).
// Kept whole (a few lines over the 400-line cap): one walk's order of lines, read in one place; the prune
// (PageWalk.prune) is what would move out next.

import {
  ALWAYS_SHOWN,
  CONTAINERS,
  INTERACTIVE,
  MESSAGE_MAX,
  PLAIN,
  SKIPPED,
  cap,
  assignedTo,
  childrenOf,
  quote,
  squash,
} from './walker-words';
import { takesFocus } from './box-shapes';
import type { ElementReading } from './element-reading';
import type { RefHeirs } from './ref-heirs';
import type { UnseenRules } from './unseen-rules';
import type { Segment, WalkLine, WalkResult } from './walker-types';
import type { WalkReuse } from './walk-reuse';

const isSegment = (item: WalkLine | Segment): item is Segment => 'items' in item;

/** Whether a computed `visibility` lets an element be seen. */
const seen = (visibility: string): boolean => visibility !== 'hidden' && visibility !== 'collapse';

/** Form controls: their values are read again before a walk that reuses (a script sets one with no event). */
const CONTROLS = new Set(['input', 'select', 'textarea']);

/** The walk's root: inside no box at all. */
const NONE_UNSEEN = () => false;

/**
 * What is below an element once its line is written (Walk.lineOf): its children walked as it
 * was, one level deeper (under its line), deeper and quiet (its line says their text already),
 * or not at all (a field or a frame says it whole; a tracking pixel says nothing).
 */
const CHILDREN_AS_IS = 0;
const CHILDREN_DEEPER = 1;
const CHILDREN_QUIET = 2;
const NO_CHILDREN = 3;
type Below = typeof CHILDREN_AS_IS | typeof CHILDREN_DEEPER | typeof CHILDREN_QUIET | typeof NO_CHILDREN;

/** The walk and the prune of one request, by its rules and readings (taken apart: `const { walk } = …`). */
export class PageWalk {
  constructor(
    private readonly judged: boolean,
    private readonly rules: UnseenRules,
    private readonly reading: ElementReading,
    private readonly refs: RefHeirs,
  ) {}

  /** `reuse`: the frame's kept parts and marks (walk-reuse.ts), begun by the caller for this walk. */
  readonly walk = (root: Node, nextRef: number, textMax: number, reuse?: WalkReuse): WalkResult => {
    const walk = new Walk(this.judged, this.rules, this.reading, this.refs, nextRef, textMax, reuse);
    walk.visit(root, 0, false);
    return walk.done();
  };

  /** The prune request: the same rules as the walk, on a clone, node for node (a clone's children are the original's, in order). */
  readonly prune = (from: Node, copy: Node): number => {
    const { style, isHiddenForAll, textUnseen, boxUnseen, repeatsShownText } = this.rules;
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
  };
}

/**
 * One walk: the lines written so far (each block element's in a Segment of its own when the frame
 * keeps parts), the page's text read since the last of them.
 */
class Walk {
  private readonly top: Array<WalkLine | Segment> = [];
  /** Where lines go now: the innermost block's segment, or the top. */
  private out = this.top;
  private readonly counter: { next: number };
  private pending = '';
  private pendingDepth = 0;
  /** Inside an element changed so that none of its blocks' kept parts hold (WalkReuse.isDeep). */
  private whole = 0;
  private broken = false;

  constructor(
    private readonly judged: boolean,
    private readonly rules: UnseenRules,
    private readonly reading: ElementReading,
    private readonly refs: RefHeirs,
    nextRef: number,
    private readonly textMax: number,
    private readonly reuse: WalkReuse | undefined,
  ) {
    this.counter = { next: nextRef };
  }

  done(): WalkResult {
    this.flush();
    const lines: WalkLine[] = [];
    const flat = (items: Array<WalkLine | Segment>) => {
      for (const item of items) {
        if (isSegment(item)) flat(item.items);
        else lines.push(item);
      }
    };
    flat(this.top);
    return { lines, nextRef: this.counter.next };
  }

  private flush(): void {
    if (this.pending === '') return;
    const text = squash(this.pending);
    // A line of the page's text is its words in quotes, alone: every other line opens with a role.
    if (text) this.out.push({ d: this.pendingDepth, s: quote(cap(text, this.textMax)) });
    this.pending = '';
  }

  private addText(text: string, depth: number): void {
    if (this.pending && depth !== this.pendingDepth) this.flush();
    this.pendingDepth = depth;
    this.pending += text;
  }

  /**
   * `quiet`: inside an element whose name already says its text (a button, a link): no text lines.
   * `unseen`: whether it is inside a box no person sees (boxUnseen): then only what takes focus is
   * shown. Asked, not told: a box is judged only when something inside needs it (a text, a
   * heading), never for a wrapper that holds only links and buttons — they are shown either way,
   * and most of a page's boxes are such wrappers.
   */
  visit(node: Node, depth: number, quiet: boolean, unseen: () => boolean = NONE_UNSEEN): void {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!quiet && !unseen()) this.addText(node.nodeValue ?? '', depth);
      return;
    }
    if (!(node instanceof Element)) {
      if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE || node.nodeType === Node.DOCUMENT_NODE) {
        const kids = childrenOf(node);
        for (let i = 0; i < kids.length; i++) this.visit(kids[i]!, depth, quiet, unseen);
      }
      return;
    }
    this.visitElement(node, depth, quiet, unseen);
  }

  private visitElement(el: Element, depth: number, quiet: boolean, unseen: () => boolean): void {
    const reuse = this.reuse;
    if (reuse) {
      // A block unchanged since the last walk, in the same place: its part as it was.
      const kept = this.whole === 0 ? reuse.reusable(el, depth, quiet, unseen) : undefined;
      if (kept) {
        this.flush();
        this.out.push(kept);
        return;
      }
      if (CONTROLS.has(el.localName)) reuse.control(el);
      if (el.shadowRoot) reuse.shadow(el.shadowRoot);
    }
    if (SKIPPED.has(el.localName)) return;
    if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return;
    const { boxUnseenNow, repeatsShownText } = this.rules;
    // Read here without the rules' cache: most elements' style is read once, by this walk, and
    // a map entry per element costs as much as the read (the rules cache what they read again).
    const st = getComputedStyle(el);
    const display = st.display;
    if (display === 'none') return;
    const block = display !== 'inline' && display !== 'contents';
    if (block) this.flush();
    // A block's lines are its segment, kept for the next walk; whether it asked about the boxes
    // around it is kept too (a kept part holds only while their answer does).
    const segment: Segment | undefined = reuse && block ? { items: [], depth, quiet } : undefined;
    let asked = false;
    const around = segment ? () => ((asked = true), unseen()) : unseen;
    const outer = this.out;
    if (segment) this.out = segment.items;
    const whole = reuse?.isDeep(el) ?? false;
    if (whole) this.whole++;
    try {
      // Whether it is visible, and whether its box or one around it is unseen: each read once,
      // when first asked (a wrapper that holds only controls is never asked either).
      let visibleNow: boolean | undefined;
      const visible = () => (visibleNow ??= seen(st.visibility));
      let hiddenNow: boolean | undefined;
      const hidden = () => (hiddenNow ??= around() || (boxUnseenNow(el, st, display) && !repeatsShownText(el)));
      // Seen by a person; in an unseen box, still reachable by the keyboard when it takes focus.
      const shown = () => visible() && !hidden();
      const reachable = () => visible() && (takesFocus(el) || !hidden());
      const below = this.lineOf(el, st, depth, quiet, hidden, shown, reachable);
      if (below === NO_CHILDREN) return;
      const childDepth = below === CHILDREN_AS_IS ? depth : depth + 1;
      this.visitChildren(el, st, childDepth, below === CHILDREN_QUIET || quiet, hidden, shown);
      if (block) this.flush();
    } catch (error) {
      this.broken = true; // a part cut short is never kept
      throw error;
    } finally {
      if (whole) this.whole--;
      if (segment && !this.broken) {
        this.out = outer;
        if (asked) segment.unseen = unseen();
        outer.push(segment);
        reuse!.keep(el, segment);
      }
    }
  }

  /**
   * The element's own line, if it has one: a control's or a frame's (with its ref), a heading's,
   * a message's, a row's, a picture's, a named container's; and what is below it.
   */
  private lineOf(
    el: Element,
    st: CSSStyleDeclaration,
    depth: number,
    quiet: boolean,
    hidden: () => boolean,
    shown: () => boolean,
    reachable: () => boolean,
  ): Below {
    const { clicksLike, roleOf, messageRole } = this.reading;
    const role = roleOf(el);
    const editable = role === 'textbox' && el instanceof HTMLElement && el.isContentEditable;
    const focusable = el.hasAttribute('tabindex') && Number(el.getAttribute('tabindex')) >= 0;
    let shownRole = role;
    // A row or cell a person clicks keeps its role, with a ref; a plain element shows as clickable.
    const clickedAsIs = (role === 'row' || role === 'cell') && clicksLike(el, st, focusable);
    if (PLAIN.has(role) && clicksLike(el, st, focusable) && reachable()) shownRole = 'clickable';
    const actionable =
      (INTERACTIVE.has(shownRole) || shownRole === 'clickable' || clickedAsIs || editable) && reachable();
    if (shownRole === 'iframe') {
      // Tracking pixels and parked ad slots (a pixel or less across) hold nothing to act on; a
      // frame in an unseen box shows nothing a person sees.
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1 || hidden()) return NO_CHILDREN;
    }
    if (actionable || shownRole === 'iframe') return this.refLine(el, shownRole, editable, depth);
    if (role === 'heading' && shown()) return this.headingLine(el, depth);
    if (!quiet && messageRole(el, role) && shown()) return this.messageLine(el, role, depth);
    if (role === 'row' && shown()) return this.rowLine(el, depth);
    if (role === 'img' && shown()) return this.imgLine(el, depth, quiet);
    if (CONTAINERS.has(role) && shown()) return this.containerLine(el, role, depth);
    return CHILDREN_AS_IS;
  }

  /** The line of what has a ref (a control, a frame: the child frame's lines go below it). */
  private refLine(el: Element, shownRole: string, editable: boolean, depth: number): Below {
    const { nameOf, valueOf, states } = this.reading;
    this.flush();
    const name = nameOf(el, shownRole);
    const ref = this.refs.refFor(el, shownRole, name, this.counter);
    const value = valueOf(el, shownRole);
    const attrs = states(el, shownRole);
    const head = `${shownRole}${name ? ` ${quote(name)}` : ''}${attrs ? ` ${attrs}` : ''} [${ref}]`;
    if (shownRole === 'iframe') {
      this.out.push({ d: depth, s: `${head}:`, r: ref, f: 1, t: [shownRole, name], e: el });
      return NO_CHILDREN;
    }
    this.out.push({
      d: depth,
      s: value !== undefined && value !== '' ? `${head}: ${quote(cap(value, 200))}` : head,
      r: ref,
      t: [shownRole, name],
      e: el,
    });
    if (editable || el.localName === 'select' || el.localName === 'textarea') return NO_CHILDREN;
    return CHILDREN_QUIET;
  }

  private headingLine(el: Element, depth: number): Below {
    const { textOf, nameOf, states } = this.reading;
    this.flush();
    // What the person reads there (a heading is not a control: its hidden words are not its name).
    const name =
      el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
        ? nameOf(el, 'heading')
        : cap(textOf(el, 300, false, undefined, true) || textOf(el, 300, true, undefined, true), 150);
    const attrs = states(el, 'heading');
    if (name) this.out.push({ d: depth, s: `heading ${quote(name)}${attrs ? ` ${attrs}` : ''}` });
    return CHILDREN_QUIET;
  }

  /**
   * How an action went ("Added to your cart", "Wrong password"): one line an answer keeps,
   * its text said once; a long live region (a feed, a results list) is a container.
   */
  private messageLine(el: Element, role: string, depth: number): Below {
    this.flush();
    const said = this.reading.textOf(el, MESSAGE_MAX + 1, false, undefined, true);
    const kind = this.reading.messageRole(el, role)!;
    if (said && said.length <= MESSAGE_MAX) {
      this.out.push({ d: depth, s: `${kind} ${quote(said)}` });
      return CHILDREN_QUIET;
    }
    if (!said) return CHILDREN_AS_IS;
    this.out.push({ d: depth, s: `${kind}:`, c: 1 });
    return CHILDREN_DEEPER;
  }

  private rowLine(el: Element, depth: number): Below {
    const { isHiddenForAll } = this.rules;
    const { textOf } = this.reading;
    this.flush();
    const cells = [...el.children]
      .filter((c) => !isHiddenForAll(c))
      .map((c) => textOf(c, 60, false, undefined, true))
      .filter(Boolean);
    this.out.push({ d: depth, s: `row: ${quote(cap(cells.join(' | '), 120))}` });
    return CHILDREN_QUIET;
  }

  private imgLine(el: Element, depth: number, quiet: boolean): Below {
    // A picture of 2×2 pixels or less (a tracking pixel) has no words a person reads.
    const box = this.judged ? el.getBoundingClientRect() : { width: 3, height: 3 };
    const name = box.width > 2 || box.height > 2 ? this.reading.nameOf(el, 'img') : '';
    if (name && !quiet) {
      this.flush();
      this.out.push({ d: depth, s: `img ${quote(name)}` });
    }
    return CHILDREN_AS_IS;
  }

  private containerLine(el: Element, role: string, depth: number): Below {
    const name = this.reading.nameOf(el, role);
    if (!name && !ALWAYS_SHOWN.has(role)) return CHILDREN_AS_IS;
    this.flush();
    this.out.push({ d: depth, s: `${role}${name ? ` ${quote(name)}` : ''}:`, c: 1 });
    return CHILDREN_DEEPER;
  }

  /** What is below an element (`st` its style): at `depth`, `quiet` as its line leaves them; `hidden` and `shown` its own. */
  private visitChildren(
    el: Element,
    st: CSSStyleDeclaration,
    depth: number,
    quiet: boolean,
    hidden: () => boolean,
    shown: () => boolean,
  ): void {
    // A label's text is its control's name, a legend's its group's: said once is enough.
    const labelOfControl =
      (el.localName === 'label' && (el as HTMLLabelElement).control !== null) ||
      (el.localName === 'legend' && el.parentElement?.localName === 'fieldset');
    // An invisible element's own text is not shown (asked at its first words); its children have
    // their own visibility.
    const textQuiet = quiet || labelOfControl;
    // A closed <details> renders its summary only (its other children stay in the DOM, unseen).
    const closed = el.localName === 'details' && !(el as HTMLDetailsElement).open;
    const list = closed ? [...el.children].filter((c) => c.localName === 'summary') : assignedTo(el);
    // Whether this element's own text can be read (textUnseen), asked once, at its first words.
    let ownText: boolean | undefined;
    // Siblings one after another, not a live NodeList by index (a third of this loop's time).
    let i = 0;
    for (let kid = list ? list[0] : (el.shadowRoot ?? el).firstChild; kid; kid = list ? list[++i] : kid.nextSibling) {
      if (kid.nodeType === Node.TEXT_NODE) {
        if (textQuiet || !shown()) continue;
        // Spaces between words stay; words are asked whether they can be read.
        if (/\S/.test(kid.nodeValue ?? '') && (ownText ??= !this.rules.textUnseen(el, st)) === false) continue;
        this.visit(kid, depth, false);
      } else this.visit(kid, depth, quiet || labelOfControl, hidden);
    }
  }
}
