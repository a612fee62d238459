/// <reference lib="dom" />
// A walk that costs what changed (part of the walker bundle): each block element's part of the
// last walk is kept (a Segment), and the page's changes since are marked as they happen (a
// MutationObserver, the form controls' values, the events that move a style's state); a walk
// asked to reuse takes an unmarked block's part as it was, walking only what changed and the
// elements above it. Whatever cannot be marked element by element (a style sheet, the window's
// size, fonts, a state a style rule reads that moved) makes the walk whole again.
// Kept whole (under the 400-line cap): what marks a change and how far it reaches read together.

import { parentOf } from './walker-words';
import { readSheets, type SheetRules } from './sheet-rules';
import type { WalkIds } from './walk-codec';
import type { Segment } from './walker-types';

const OBSERVED: MutationObserverInit = { subtree: true, childList: true, attributes: true, characterData: true };

/** Marked elements past this: the page changed too much for marks to be cheaper than a walk. */
const MARKED_MAX = 10_000;

/** Nodes a page adds or takes out that change nothing a walk reads. */
const INERT_TAGS = new Set(['script', 'noscript', 'template', 'base']);
const INERT_LINKS = /^(preload|prefetch|modulepreload|dns-prefetch|preconnect)$/i;

/** Events that move a state a style rule may read; a value's change is also read from the controls. */
const STATE_EVENTS = [
  'pointerover',
  'focusin',
  'focusout',
  'input',
  'change',
  // A form's submit refused by the browser's own validation: its fields read [invalid] now (:user-invalid).
  'invalid',
  'beforetoggle',
  'toggle',
  'hashchange',
];

/**
 * A frame document's marks and kept parts, from its first walk on. What marks cannot see, a
 * diff's walk can miss until the next whole one (a snapshot without `since`): a click listener
 * added with nothing else changed (markup a script hydrates), a rule edited in place through the
 * CSSOM (one inserted or deleted is seen), whether a picture is behind low-contrast words after a
 * scroll. Never a ref for the wrong element: a walk checks every ref it shows (page-walker.ts).
 */
export class WalkReuse {
  private readonly observer = new MutationObserver((records) => this.read(records));
  /**
   * Each block's part, by element (a Map: a WeakMap's set cost the walk a fifth more). Made anew
   * by a whole walk; a walk that reuses writes over it, and past twice the whole walk's size (the
   * parts of elements since taken out) the next walk is whole again.
   */
  private segments = new Map<Element, Segment>();
  private wholeSize = 0;
  /** Whether this walk made the parts anew (a whole walk). */
  private fresh = true;
  /** Changed, or something inside changed: walked again (its unmarked blocks reused). */
  private readonly marked = new Set<Element>();
  /** Changed so that all inside may read differently: walked again whole. */
  private readonly deep = new Set<Element>();
  /** Children added or taken out, judged at the next walk (an element added hidden changes nothing). */
  private children: MutationRecord[] = [];
  private everything = false;
  private watching = false;
  private stateMoved = false;
  private readonly controls = new Map<Element, string>();
  private readonly shadows: ShadowRoot[] = [];
  private readonly observed = new WeakSet<ShadowRoot>();
  /** The last walk's request and what the page was then (sheets, window, fonts). */
  private params = '';
  private print = '';
  private rules: { print: string; found: SheetRules } | undefined;
  /** Whether this walk may take kept parts, and whether it took one. */
  private active = false;
  reused = false;
  private readonly prefix = `${Math.random().toString(36).slice(2, 10)}.`;
  private walks = 0;
  private lastWalk: string | undefined;

  constructor() {
    this.observe();
    const moved = (event: Event) => {
      this.stateMoved = true;
      const target = event.target;
      if (!(target instanceof Element)) return;
      // A popover's or a details' toggle (beforetoggle comes at once; toggle a task later): all
      // inside it; else the element itself (a field left or refused reads [invalid] by its state).
      if (event.type === 'toggle' || event.type === 'beforetoggle') this.markDeep(target);
      else this.mark(target);
    };
    for (const type of STATE_EVENTS) addEventListener(type, moved, { capture: true, passive: true });
    // A picture loaded or failed: its size (a tracking pixel says nothing) and name may differ.
    const loaded = (event: Event) => {
      if (event.target instanceof HTMLImageElement) this.mark(event.target);
    };
    addEventListener('load', loaded, { capture: true, passive: true });
    addEventListener('error', loaded, { capture: true, passive: true });
    document.fonts?.addEventListener('loadingdone', () => this.giveUp());
  }

  /**
   * A walk begins: whether it may reuse (`want`: the request asked, and nothing since the last
   * walk needs it whole). `params`: what the request walks with (its root, rules and budget).
   */
  begin(want: boolean, params: string): void {
    this.reused = false;
    this.read(this.observer.takeRecords());
    this.judgeChildren();
    for (const [el, was] of this.controls) {
      if (!el.isConnected) this.controls.delete(el);
      else if (controlPrint(el) !== was) {
        this.mark(el);
        this.stateMoved = true;
      }
    }
    for (const animation of document.getAnimations()) {
      const target = (animation.effect as KeyframeEffect | null)?.target;
      if (target) this.markDeep(target);
    }
    const print = this.printNow();
    this.active =
      want &&
      params === this.params &&
      print === this.print &&
      !this.everything &&
      this.marked.size <= MARKED_MAX &&
      !(this.stateMoved && this.sheetRules(print).state) &&
      this.segments.size <= 2 * this.wholeSize + 1_000;
    this.fresh = !this.active;
    if (this.fresh) this.segments = new Map();
    this.print = print;
    this.params = params;
  }

  /** The walk is to be done again whole (a ref shown no longer stood for its line's element). */
  forget(): void {
    this.active = false;
    this.reused = false;
    this.fresh = true;
    this.segments = new Map();
  }

  /**
   * A walk's id, and the walk before it whose lines it may send as copies: the one the relay
   * holds (`held`), when that is this document's last. Ids are this registry's own (a prefix of
   * its own): a relay holding another document's walk never matches.
   */
  walked(held: string | undefined): WalkIds {
    const id = `${this.prefix}${++this.walks}`;
    const base = held !== undefined && held === this.lastWalk ? held : undefined;
    this.lastWalk = id;
    return base === undefined ? { id } : { id, base };
  }

  /** An element the relay found a click listener on since the last walk: it may read as clickable now. */
  listened(el: Element): void {
    this.mark(el);
  }

  /** The walk is done: what it read is the page as it is now, and the marks start again from here. */
  end(): void {
    if (this.fresh) this.wholeSize = this.segments.size;
    this.marked.clear();
    this.deep.clear();
    this.children = [];
    this.everything = false;
    this.stateMoved = false;
    this.active = false;
    if (!this.watching) this.observe();
  }

  /** A block's part of the last walk, when it may stand for a walk of it now. */
  reusable(el: Element, depth: number, quiet: boolean, unseen: () => boolean): Segment | undefined {
    if (!this.active || this.marked.has(el)) return undefined;
    const segment = this.segments.get(el);
    if (!segment || segment.depth !== depth || segment.quiet !== quiet) return undefined;
    if (segment.unseen !== undefined && unseen() !== segment.unseen) return undefined;
    this.reused = true;
    return segment;
  }

  /** Whether everything inside `el` must be walked again (none of its blocks' parts hold). */
  isDeep(el: Element): boolean {
    return this.deep.has(el);
  }

  keep(el: Element, segment: Segment): void {
    this.segments.set(el, segment);
  }

  /** A form control the walk read: its value is compared at the next walk (a script sets one with no event). */
  control(el: Element): void {
    this.controls.set(el, controlPrint(el));
  }

  /** An open shadow root the walk went into: its changes are marked too. */
  shadow(root: ShadowRoot): void {
    if (this.observed.has(root)) return;
    this.observed.add(root);
    this.shadows.push(root);
    if (this.watching) this.observer.observe(root, OBSERVED);
  }

  /** Watching the document and the shadow roots seen (again: the marks stop once the next walk is whole anyway). */
  private observe(): void {
    this.observer.observe(document, OBSERVED);
    for (const root of this.shadows) this.observer.observe(root, OBSERVED);
    this.watching = true;
  }

  /** Nothing marked holds any more: the next walk is whole, and a busy page is not watched till then. */
  private giveUp(): void {
    this.everything = true;
    this.children = [];
    this.observer.disconnect();
    this.watching = false;
  }

  private read(records: MutationRecord[]): void {
    if (this.everything) return;
    for (const record of records) {
      const target = record.target;
      const el = target instanceof ShadowRoot ? target.host : target instanceof Element ? target : target.parentElement;
      if (!el) {
        this.giveUp(); // the document itself
        return;
      }
      if (inHead(el)) {
        if (touchesStyle(el, record)) this.giveUp();
        continue;
      }
      if (record.type === 'childList') {
        if (el.localName === 'style' || [...record.addedNodes, ...record.removedNodes].some(isStyleNode)) {
          this.giveUp();
          return;
        }
        this.children.push(record);
        if (this.children.length > MARKED_MAX) this.giveUp();
      } else if (record.type === 'attributes') {
        if (el.localName === 'style' || (el.localName === 'link' && /stylesheet/i.test(el.getAttribute('rel') ?? '')))
          this.giveUp();
        else this.changed(el);
      } else {
        // Text: its element's words, and what reads them beside it (a sibling saying the same).
        if (el.localName === 'style') this.giveUp();
        else this.changed(el);
      }
    }
    if (this.marked.size > MARKED_MAX) this.giveUp();
  }

  /**
   * Children added or taken out: the element is walked again (its other children's parts hold),
   * and whole when those could read differently now — a rule reads siblings, its last child came
   * or went (a cover drawn over those before it), or one hidden from assistive technology did (a
   * sibling saying the same). An element added hidden, a script, a comment change nothing.
   */
  private judgeChildren(): void {
    const sibling = this.sheetRules(this.print).sibling;
    for (const record of this.children) {
      if (this.everything) break;
      const el = record.target instanceof ShadowRoot ? record.target.host : (record.target as Element);
      const gone = [...record.removedNodes].filter((n) => !isInert(n));
      const came = [...record.addedNodes].filter(
        (n) => !isInert(n) && n.isConnected && !(n instanceof Element && getComputedStyle(n).display === 'none'),
      );
      if (gone.length === 0 && came.length === 0) continue;
      this.mark(el);
      const last = el instanceof Element ? el.lastElementChild : null;
      const hiddenFromAt = (n: Node) => n instanceof Element && n.getAttribute('aria-hidden') === 'true';
      if (
        sibling ||
        (gone.length > 0 && record.nextSibling === null) ||
        (last !== null && came.includes(last) && /^(absolute|fixed)$/.test(getComputedStyle(last).position)) ||
        gone.some(hiddenFromAt) ||
        came.some(hiddenFromAt)
      )
        this.markDeep(el);
    }
    this.children = [];
  }

  /**
   * `el` changed (an attribute, its children, its words): all inside it is walked again, and its
   * parent's children too when a rule reads siblings, when it is the last one (a cover drawn over
   * those before it) or when it is hidden from assistive technology (a sibling saying the same).
   */
  private changed(el: Element): void {
    this.markDeep(el);
    const parent = parentOf(el);
    if (!parent) return;
    if (
      el === parent.lastElementChild ||
      el.getAttribute('aria-hidden') === 'true' ||
      this.sheetRules(this.print).sibling
    )
      this.markDeep(parent);
  }

  private markDeep(el: Element): void {
    this.deep.add(el);
    this.mark(el);
  }

  /** `el` and every element above it are walked again; and what names itself by `el`'s words (a label's control, aria-labelledby). */
  private mark(el: Element | null): void {
    for (let at = el; at && !this.marked.has(at); at = parentOf(at)) {
      this.marked.add(at);
      if (at.localName === 'label') this.mark((at as HTMLLabelElement).control);
      const id = at.id;
      if (id) {
        const root = at.getRootNode() as Document | ShadowRoot;
        const quoted = CSS.escape(id);
        for (const other of root.querySelectorAll(
          `[aria-labelledby~="${quoted}"], [aria-describedby~="${quoted}"], [aria-errormessage~="${quoted}"], [aria-owns~="${quoted}"], [aria-details~="${quoted}"]`,
        ))
          this.mark(other);
      }
    }
  }

  /** The page as the walk's rules see it beyond its elements: the style sheets, the window, the fonts. */
  private printNow(): string {
    const parts: Array<string | number | boolean> = [
      innerWidth,
      innerHeight,
      devicePixelRatio,
      matchMedia('(prefers-color-scheme: dark)').matches,
    ];
    parts.push(document.fonts ? `${document.fonts.status}${document.fonts.size}` : '');
    for (const sheet of this.sheets()) {
      let count: number | string;
      try {
        count = sheet.cssRules.length;
      } catch {
        count = 'x';
      }
      parts.push(`${sheet.href ?? ''}|${count}|${sheet.disabled ? 1 : 0}|${sheet.media.mediaText}`);
    }
    return parts.join('\n');
  }

  private sheets(): CSSStyleSheet[] {
    const all = [...document.styleSheets, ...(document.adoptedStyleSheets ?? [])];
    for (const root of this.shadows) all.push(...root.styleSheets, ...(root.adoptedStyleSheets ?? []));
    return all;
  }

  /** What the sheets hold (read once for each state of them; a sheet that cannot be read may hold anything). */
  private sheetRules(print: string): SheetRules {
    if (this.rules?.print === print) return this.rules.found;
    const found = readSheets(this.sheets());
    this.rules = { print, found };
    return found;
  }
}

function controlPrint(el: Element): string {
  if (el instanceof HTMLSelectElement) return Array.from(el.selectedOptions, (o) => o.index).join(',');
  const c = el as HTMLInputElement;
  return `${c.value}\u0000${c.checked ? 1 : 0}${c.indeterminate ? 1 : 0}`;
}

function inHead(el: Element): boolean {
  const head = document.head;
  return head !== null && (el === head || head.contains(el));
}

/** A change in the head that changes how the page looks: its style sheets (a script or the title does not). */
function touchesStyle(el: Element, record: MutationRecord): boolean {
  if (el.localName === 'style' || (el.localName === 'link' && record.type === 'attributes')) return true;
  if (record.type !== 'childList') return el.closest('style') !== null;
  return [...record.addedNodes, ...record.removedNodes].some(isStyleNode);
}

function isStyleNode(node: Node): boolean {
  if (!(node instanceof Element)) return false;
  if (node.localName === 'style' || (node.localName === 'link' && /stylesheet/i.test(node.getAttribute('rel') ?? '')))
    return true;
  return node.querySelector('style, link[rel~="stylesheet" i]') !== null;
}

/** A node whose coming or going changes nothing a walk reads. */
function isInert(node: Node): boolean {
  if (node.nodeType === Node.COMMENT_NODE) return true;
  if (node.nodeType === Node.TEXT_NODE) return !/\S/.test(node.nodeValue ?? '');
  if (!(node instanceof Element)) return false;
  if (INERT_TAGS.has(node.localName)) return true;
  return node.localName === 'link' && INERT_LINKS.test(node.getAttribute('rel') ?? '');
}
