/// <reference lib="dom" />
// What changed on a page since its last walk, marked as it happens (part of the walker bundle,
// read by walk-reuse.ts): a MutationObserver on the document and every open shadow root the walk
// went into, the form controls' values (a script sets one with no event), the events that move a
// state a style rule reads (focus, a toggle, a refused form), custom elements defined since, and
// running animations. An element marked is walked again (its unmarked blocks taken as they were);
// one marked deep is walked again whole. What marks cannot say sets `everything`.
// Kept whole (under the 400-line cap): each kind of change and how far it reaches, read together.

import { parentOf } from './walker-words';

/** Marked elements (or records waiting) past this: the page changed too much for marks to be cheaper than a walk. */
const MARKED_MAX = 10_000;
/** Custom elements not yet defined that are watched for their definition; past it, the next walk is whole. */
const UNDEFINED_MAX = 2_000;

const OBSERVED: MutationObserverInit = { subtree: true, childList: true, attributes: true, characterData: true };

/** Nodes a page adds or takes out that change nothing a walk reads. */
const INERT_TAGS = new Set(['script', 'noscript', 'template', 'base']);
const INERT_LINKS = /^(preload|prefetch|modulepreload|dns-prefetch|preconnect)$/i;

/** Attributes that say which element names which: changed, no mark can say whose name moved. */
const READER_ATTRIBUTES = ['aria-labelledby', 'aria-describedby', 'aria-errormessage', 'aria-owns', 'aria-details'];
const NAMING = new Set(['id', 'for', ...READER_ATTRIBUTES]);
const READERS = READER_ATTRIBUTES.map((name) => `[${name}]`).join(', ');
const UNDEFINED = ':not(:defined)';

/**
 * Events that move a state a style rule may read, heard on the window; `invalid`: a form's submit
 * the browser's own validation refused (its fields read [invalid] now, by :user-invalid).
 */
const STATE_EVENTS = ['pointerover', 'focusin', 'focusout', 'input', 'change', 'invalid', 'hashchange'];
/** A popover's or a details' toggle (beforetoggle comes at once; toggle a task later); a picture loaded. */
const OTHER_EVENTS = ['beforetoggle', 'toggle', 'load', 'error'];
/** Events that do not leave a shadow root, heard on each one too (a popover toggled in a component). */
const SHADOW_EVENTS = ['beforetoggle', 'toggle', 'change', 'invalid', 'load', 'error', 'slotchange'];

/** A frame document's marks since its last walk. */
export class ChangeMarks {
  /** Walked again (its unmarked blocks reused): changed, or something inside changed. */
  readonly marked = new Set<Element>();
  /** Walked again whole: changed so that all inside may read differently. */
  readonly deep = new Set<Element>();
  /** Something no mark can say changed: the next walk is whole. */
  everything = false;
  /** A state a style rule may read moved (hover, focus, a value, a toggle). */
  stateMoved = false;
  /** Whether a style rule reads siblings or places (sheet-rules.ts): a change reaches its parent's other children. */
  siblingRules = () => false;

  private readonly observer = new MutationObserver((records) => this.read(records));
  private watching = false;
  /** Children added or taken out, judged when the walk begins (an element added hidden changes nothing). */
  private children: MutationRecord[] = [];
  private readonly controls = new Map<Element, string>();
  private shadows: ShadowRoot[] = [];
  private observed = new WeakSet<ShadowRoot>();
  /** Who names itself by which id (aria-labelledby and the like), read once per walk. */
  private readers = new Map<string, Element[]>();
  private undefinedEls: Element[] = [];
  /** Elements added and open shadow roots first walked since the last walk (clear reads what they hold). */
  private added: Element[] = [];
  private newShadows: ShadowRoot[] = [];
  /** Every listener this adds, taken off at once when it sleeps. */
  private listening = new AbortController();

  constructor() {
    this.listen();
  }

  /** Before a walk: the changes waiting read, the controls and definitions compared, animations marked. */
  settle(): void {
    this.read(this.observer.takeRecords());
    this.judgeChildren();
    for (const [el, was] of this.controls) {
      if (!el.isConnected) this.controls.delete(el);
      else if (controlPrint(el) !== was) {
        this.mark(el);
        this.stateMoved = true;
      }
    }
    for (const el of this.undefinedEls) if (el.isConnected && el.matches(':defined')) this.markDeep(el);
    for (const animation of document.getAnimations()) {
      const target = (animation.effect as KeyframeEffect | null)?.target;
      if (target) this.markDeep(target);
    }
    if (this.marked.size > MARKED_MAX) this.giveUp();
  }

  /**
   * After a walk: marks start again from the page as it is now. Who names itself by an id and
   * which custom elements wait for their definition are read from the whole document after a
   * whole walk (`whole`), and after a walk that reused only from what was added since: an
   * element's own naming attributes changed make the next walk whole, and an element is
   * undefined only from its start (each is a query of every element: 12 ms on a 20k page).
   */
  clear(whole: boolean): void {
    this.marked.clear();
    this.deep.clear();
    this.children = [];
    this.everything = false;
    this.stateMoved = false;
    if (!this.watching) this.observe();
    // A root dropped here is watched again when a walk goes into it again.
    for (const root of this.shadows) if (!root.host.isConnected) this.observed.delete(root);
    this.shadows = this.shadows.filter((root) => root.host.isConnected);
    const added = this.added.filter((el) => el.isConnected);
    const newShadows = this.newShadows.filter((root) => root.host.isConnected);
    this.added = [];
    this.newShadows = [];
    if (whole) {
      this.readers = readersById([document, ...this.shadows]);
      this.undefinedEls = [...document.querySelectorAll(UNDEFINED)];
    } else {
      readersById([...added, ...newShadows], this.readers);
      const since = added.flatMap((el) => [...(el.matches(UNDEFINED) ? [el] : []), ...el.querySelectorAll(UNDEFINED)]);
      // A Set: an element moved, or added inside one added, is found twice.
      this.undefinedEls = [
        ...new Set([...this.undefinedEls.filter((el) => el.isConnected && el.matches(UNDEFINED)), ...since]),
      ];
    }
    if (this.undefinedEls.length > UNDEFINED_MAX) {
      this.undefinedEls = [];
      this.everything = true;
    }
  }

  /** The open shadow roots watched (their style sheets are the page's too). */
  shadowRoots(): readonly ShadowRoot[] {
    return this.shadows;
  }

  /** A form control the walk read: its value is compared before the next walk. */
  control(el: Element): void {
    this.controls.set(el, controlPrint(el));
  }

  /** An open shadow root the walk went into: its changes and its own events are marked too. */
  shadow(root: ShadowRoot): void {
    if (this.observed.has(root)) return;
    this.observed.add(root);
    this.shadows.push(root);
    this.newShadows.push(root);
    if (this.watching) this.observer.observe(root, OBSERVED);
    this.listenIn(root);
  }

  /** Nothing marked holds any more: the next walk is whole, and a busy page is not watched till then. */
  giveUp(): void {
    this.everything = true;
    this.children = [];
    this.observer.disconnect();
    this.watching = false;
  }

  /** Not walked for long: nothing watched, nothing held (the next walk, if any, wakes it whole). */
  sleep(): void {
    this.giveUp();
    this.listening.abort();
    this.controls.clear();
    this.shadows = [];
    this.observed = new WeakSet();
    this.readers = new Map();
    this.undefinedEls = [];
    this.added = [];
    this.newShadows = [];
  }

  wake(): void {
    if (!this.listening.signal.aborted) return;
    this.listening = new AbortController();
    this.listen();
  }

  markDeep(el: Element): void {
    this.deep.add(el);
    this.mark(el);
  }

  /**
   * `el` and every element above it are walked again (a slotted one's slot and what holds that
   * slot too); and what names itself by their words: a label's control, aria-labelledby readers.
   */
  mark(start: Element | null): void {
    const todo: Element[] = start ? [start] : [];
    while (todo.length > 0) {
      for (let at: Element | null = todo.pop()!; at && !this.marked.has(at); at = parentOf(at)) {
        this.marked.add(at);
        if (at.assignedSlot) todo.push(at.assignedSlot);
        if (at.localName === 'label') {
          const control = (at as HTMLLabelElement).control;
          if (control) todo.push(control);
        }
        if (at.id) todo.push(...(this.readers.get(at.id) ?? []));
      }
    }
  }

  private listen(): void {
    const options = { capture: true, passive: true, signal: this.listening.signal };
    for (const type of [...STATE_EVENTS, ...OTHER_EVENTS])
      addEventListener(type, (event) => this.heard(event), options);
    document.fonts?.addEventListener('loadingdone', () => this.giveUp(), { signal: this.listening.signal });
    this.observe();
    for (const root of this.shadows) this.listenIn(root);
  }

  private listenIn(root: ShadowRoot): void {
    const options = { capture: true, passive: true, signal: this.listening.signal };
    for (const type of SHADOW_EVENTS) root.addEventListener(type, (event) => this.heard(event), options);
  }

  /** An event: a picture loaded (its size and name), a slot's nodes or a popover toggled (all inside), else the element's own state. */
  private heard(event: Event): void {
    const target = event.target;
    if (event.type === 'load' || event.type === 'error') {
      if (target instanceof HTMLImageElement) this.mark(target);
      return;
    }
    this.stateMoved = true;
    if (!(target instanceof Element)) return;
    if (event.type === 'toggle' || event.type === 'beforetoggle' || event.type === 'slotchange') this.markDeep(target);
    else this.mark(target);
  }

  private observe(): void {
    this.observer.observe(document, OBSERVED);
    for (const root of this.shadows) this.observer.observe(root, OBSERVED);
    this.watching = true;
  }

  private read(records: MutationRecord[]): void {
    if (this.everything) return;
    for (const record of records) {
      const target = record.target;
      const el = target instanceof ShadowRoot ? target.host : target instanceof Element ? target : target.parentElement;
      if (!el) return this.giveUp(); // the document itself
      if (inHead(el)) {
        if (touchesStyle(el, record)) return this.giveUp();
        continue;
      }
      if (record.type === 'childList') {
        if (el.localName === 'style' || [...record.addedNodes, ...record.removedNodes].some(isStyleNode))
          return this.giveUp();
        this.children.push(record);
        if (this.children.length > MARKED_MAX) return this.giveUp();
      } else if (record.type === 'attributes') {
        if (isSheetElement(el) || NAMING.has(record.attributeName ?? '')) return this.giveUp();
        this.changed(el);
      } else {
        // Words: their element's, and what reads them beside it; a slotted text's slot.
        if (el.localName === 'style') return this.giveUp();
        this.changed(el);
        const slot = (target as Text).assignedSlot;
        if (slot) this.mark(slot);
      }
    }
    if (this.marked.size > MARKED_MAX) this.giveUp();
  }

  /**
   * Children added or taken out: the element is walked again, each element added whole (new, or
   * moved: where it stands now may read differently), and the element whole when its other
   * children could read differently now — a rule reads siblings, its last child came or went (a
   * cover drawn over those before it), one hidden from assistive technology came or went (a
   * sibling saying the same), or it holds a shadow root (its slots take other nodes). Names read
   * from what came or went (a label, an id another names itself by) are marked. An element
   * added hidden, a script, a comment change nothing.
   */
  private judgeChildren(): void {
    for (const record of this.children) {
      if (this.everything) break;
      const el = record.target instanceof ShadowRoot ? record.target.host : (record.target as Element);
      const added = [...record.addedNodes];
      for (const n of added) if (n instanceof Element) this.added.push(n);
      const gone = [...record.removedNodes].filter((n) => !isInert(n));
      const came = added.filter((n) => !isInert(n) && n.isConnected);
      const shown = came.filter((n) => !(n instanceof Element && getComputedStyle(n).display === 'none'));
      // The last child is what may cover those before it (unseen-rules.ts, coverOf): one taken
      // out may have; one put after a positioned one uncovers them; a positioned one put last may.
      const last = el.lastElementChild;
      const lastMoved =
        (record.nextSibling === null && gone.some((n) => n instanceof Element)) ||
        (last !== null &&
          added.includes(last) &&
          (positioned(last) || positioned(elementBefore(record.previousSibling))));
      if (shown.length === 0 && gone.length === 0 && !lastMoved) continue;
      this.mark(el);
      for (const n of shown) if (n instanceof Element) this.markDeep(n);
      for (const n of [...gone, ...came]) if (n instanceof Element) this.namedBy(n);
      const hiddenFromAt = (n: Node) => n instanceof Element && n.getAttribute('aria-hidden') === 'true';
      if (this.siblingRules() || lastMoved || el.shadowRoot || gone.some(hiddenFromAt) || came.some(hiddenFromAt))
        this.markDeep(el);
    }
    this.children = [];
  }

  /** The controls and readers named by what came or went: a label's, an aria-labelledby target's. */
  private namedBy(root: Element): void {
    const labels = root.localName === 'label' ? [root] : [...root.querySelectorAll('label')];
    for (const label of labels) {
      const forId = (label as HTMLLabelElement).htmlFor;
      if (forId) this.mark(document.getElementById(forId));
    }
    if (this.readers.size === 0) return;
    for (const el of [root, ...root.querySelectorAll('[id]')])
      if (el.id) for (const reader of this.readers.get(el.id) ?? []) this.mark(reader);
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
    if (el === parent.lastElementChild || el.getAttribute('aria-hidden') === 'true' || this.siblingRules())
      this.markDeep(parent);
  }
}

/** Who names itself by which id in these roots, themselves included (aria-labelledby and the like); added to `readers`. */
function readersById(
  roots: Array<Document | ShadowRoot | Element>,
  readers = new Map<string, Element[]>(),
): Map<string, Element[]> {
  for (const root of roots) {
    const found = [...root.querySelectorAll(READERS)];
    if (root instanceof Element && root.matches(READERS)) found.push(root);
    for (const reader of found)
      for (const name of READER_ATTRIBUTES)
        for (const id of reader.getAttribute(name)?.split(/\s+/) ?? []) {
          if (!id) continue;
          const list = readers.get(id);
          if (list) list.push(reader);
          else readers.set(id, [reader]);
        }
  }
  return readers;
}

function positioned(el: Element | null): boolean {
  return el !== null && el.isConnected && /^(absolute|fixed)$/.test(getComputedStyle(el).position);
}

/** The element at or before `node` among its siblings. */
function elementBefore(node: Node | null): Element | null {
  let at = node;
  while (at && !(at instanceof Element)) at = at.previousSibling;
  return at;
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

function isSheetElement(el: Element): boolean {
  return el.localName === 'style' || (el.localName === 'link' && /stylesheet/i.test(el.getAttribute('rel') ?? ''));
}

/** A node added or taken out that is a style sheet or holds one. */
function isStyleNode(node: Node): boolean {
  if (!(node instanceof Element)) return false;
  if (isSheetElement(node)) return true;
  return node.firstElementChild !== null && node.querySelector('style, link[rel~="stylesheet" i]') !== null;
}

/** A node whose coming or going changes nothing a walk reads (spaces do: they part words). */
function isInert(node: Node): boolean {
  if (node.nodeType === Node.COMMENT_NODE) return true;
  if (!(node instanceof Element)) return false;
  if (INERT_TAGS.has(node.localName)) return true;
  return node.localName === 'link' && INERT_LINKS.test(node.getAttribute('rel') ?? '');
}
