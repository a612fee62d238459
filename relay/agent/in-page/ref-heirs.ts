/// <reference lib="dom" />
// Refs that outlive a re-render (part of the walker bundle): a ref is kept while its element's
// role and name stay; an element a page rebuilt takes the old one's ref when it is the same to a
// person — the same role and name in the same place, as many alike there as before, in page
// order — and anything else is a new element, the old ref stale. Made per request over the
// frame's registry; a walk or a resolve opens and closes the places it reads (beginWalk, rebound).
// Kept whole (under the 400-line cap): one matching rule, read in order; its places and counts are
// its own.

import { PLAIN, SKIPPED, parentOf, squash } from './walker-words';
import type { ElementReading } from './element-reading';
import type { UnseenRules } from './unseen-rules';
import type { Registry, RegistryEntry, WalkResult } from './walker-types';
import { RemovalWatch } from './removal-watch';

/** Refs whose element is gone, by role and name: what a walk may give to their rebuilt elements. */
export type Orphans = Map<string, Array<[string, Element]>>;
/**
 * During a walk: the gone refs, and the groups of heirs. A group is the gone elements of one
 * role and name in one place and the new elements alike there; when there are as many of each,
 * each new one takes the ref of the gone one in the same order (rows alike, rebuilt alike),
 * and otherwise none does (one of them came or went: which, nobody can tell).
 */
export interface HeirGroup {
  olds: Array<[string, Element]>;
  news: Array<[string, Element]>;
  /** Its place is where they stood one by one (TAKEN_OUT): heirs only while no more alike came beside them. */
  key?: string;
}

/**
 * A re-render is not a change: an element a page rebuilt (its old one gone from the document)
 * takes the old one's ref when it is the same to a person — the same role and name in the same
 * place (placeOf: the words of the record it is in — a row, a list item — or the first words
 * of the region around it) — as many alike there as before, in page order (groupOf, settleHeirs). Anything
 * else is a new element, and the old ref is stale.
 */
const PLACE_MAX = 300;
/** How many characters of a region's words (or a neighbouring block's) name it. */
const FIRST_WORDS = 60;

/** Buttons: what is acted on in a region, not what names it. */
const BUTTONS = 'button, [role="button"], [role="menuitem"], [role="tab"]';
/** Links: one link beside another is no part of its place (its own words name it). */
const LINKS = 'a, [role="link"]';
const ACTED_ON = `${LINKS}, ${BUTTONS}`;

/**
 * A place read whole (a record's words, a block with its neighbours): elements alike there are
 * alike to a person, so several take the old refs in page order. A place named only by its
 * first words (a region) is not: two alike there (two Edit buttons of one card) keep their
 * refs only one by one.
 */
const WHOLE = 'W ';
const NAMED = 'N ';

/**
 * The place of an element taken out of the page on its own (a page that sets innerHTML takes
 * out its container's children one by one): nothing around it is left to read, so it is heir
 * only to an element alike after the same element's words as it stood after when given its
 * ref (besideThen), and only one.
 */
const TAKEN_OUT = '\u0001taken out';

/**
 * The refs of one request over the frame's registry. What a walk and a resolve call (refFor,
 * settleHeirs, beginWalk, endWalk, rebound) are arrow functions, so they can be taken apart from
 * it (`const { refFor } = refs`).
 */
export class RefHeirs {
  /** Places read during one walk or resolve (a gone element's is compared with each new one alike). */
  private places: Map<Element, string> | undefined;

  /** `fresh`: the elements given a new ref in this walk, by role and name (those no ref holds). */
  private heirs: { orphans: Orphans; groups: Map<string, HeirGroup>; fresh: Map<string, Element[]> } | undefined;

  constructor(
    private readonly reg: Registry,
    private readonly rules: UnseenRules,
    private readonly reading: ElementReading,
  ) {}

  /** The words around an element: those of its nearest ancestor that says more than it does (a row, a card, a list item). */
  private placeOf(el: Element): string {
    const known = this.places?.get(el);
    if (known !== undefined) return known;
    const place = this.readPlace(el);
    this.places?.set(el, place);
    return place;
  }

  private readPlace(el: Element): string {
    // In a record (a table row, a list item, an option): the record's words, all of them (up to
    // PLACE_MAX). Rows alike but for one cell stay apart, and a row sorted elsewhere keeps them.
    for (let at = parentOf(el), i = 0; at && i < 10; at = parentOf(at), i++)
      if (this.isRecord(at)) return `${WHOLE}${at.localName} ${this.plainText(at, PLACE_MAX)}`;
    const own = this.plainText(el, PLACE_MAX);
    let child = el;
    for (let i = 0; i < 8; i++) {
      const at = parentOf(child);
      if (!at) return i === 0 ? TAKEN_OUT : '';
      const around = this.plainText(at, PLACE_MAX + 1);
      if (around && around !== own) {
        // A region (a card, a message, a toast, a side bar): its first words name it — a count
        // or a label applied further in is no move. A region titled by a heading is named by
        // its title and what it says besides what is acted on in it: a side bar's "Labels" is
        // the same with a label's count changed or its button's words ("Create label", then
        // "Save label").
        if (around.length <= PLACE_MAX)
          return `${NAMED}${at.localName} ${this.titled(el, at, around) ?? this.plainText(at, FIRST_WORDS)}`;
        // A long list of what is not a record: the element's own block, with the blocks beside it.
        const beside = (sibling: Element | null) => (sibling ? this.plainText(sibling, FIRST_WORDS) : '');
        return `${WHOLE}${at.localName} ‹${beside(child.previousElementSibling)}› ‹${beside(child.nextElementSibling)}› ${this.plainText(child, PLACE_MAX)}`;
      }
      child = at;
    }
    return '';
  }

  /**
   * A region that opens with a heading: its title, then its words outside that title and outside
   * what is acted on there (a count on a label's link is no move, nor a button's words: "Create
   * label", then "Save label"); undefined for a region without one (its first words name it). A
   * link's own words name it, so links leave its place; for anything else (a "Delete" that names
   * nothing) the links' words stay, counts aside: a card titled alike whose link now says
   * another thing is another card, and its button's old ref is stale.
   */
  private titled(el: Element, region: Element, around: string): string | undefined {
    const heading = region.querySelector('h1, h2, h3, h4, h5, h6, [role="heading"]');
    if (!heading) return undefined;
    const title = this.plainText(heading, FIRST_WORDS);
    if (!title || !around.startsWith(title)) return undefined;
    const rest = this.plainText(region, FIRST_WORDS, (n) => n === heading || n.matches(ACTED_ON));
    if (el.matches(LINKS)) return `‹${title}› ${rest}`;
    let links = '';
    for (const link of region.querySelectorAll(LINKS)) {
      if (links.length > FIRST_WORDS) break;
      links += ` ${this.plainText(link, FIRST_WORDS)}`;
    }
    return `‹${title}› ${rest} ‹${links.replace(/\d+/g, '#').trim().slice(0, FIRST_WORDS)}›`;
  }

  /** A table row, a list item, an option, a tree item: one record of a list, whole in its words. */
  private isRecord(el: Element): boolean {
    const tag = el.localName;
    if (tag === 'tr' || tag === 'li') return true;
    const role = el.getAttribute('role');
    return role === 'row' || role === 'listitem' || role === 'option' || role === 'treeitem';
  }

  /**
   * An element's text nodes, squashed, up to `max` (controls inside left out, as in names, and
   * what `leaveOut` says): read alike in a document and in a subtree taken out of it.
   */
  private plainText(root: Element, max: number, leaveOut?: (el: Element) => boolean): string {
    const { isControl } = this.reading;
    let out = '';
    const visit = (n: Node) => {
      if (out.length > max * 2) return;
      if (n.nodeType === Node.TEXT_NODE) out += n.nodeValue ?? '';
      else if (n instanceof Element && !SKIPPED.has(n.localName) && (n === root || (!isControl(n) && !leaveOut?.(n)))) {
        out += ' ';
        for (let c = n.firstChild; c; c = c.nextSibling) visit(c);
      }
    };
    visit(root);
    return squash(out).slice(0, max);
  }

  private takeOrphans(): Orphans {
    const { reg } = this;
    const out: Orphans = new Map();
    // Nothing taken out of the document since the last walk: every element held is still there.
    reg.removals ??= new RemovalWatch();
    if (!reg.removals.looked()) return out;
    for (const [ref, entry] of reg.byId) {
      const { el } = entry;
      if (el.isConnected) {
        // Moved into a shadow tree since it was given its ref (a removal made this look).
        reg.removals.holds(el);
        continue;
      }
      reg.byId.delete(ref);
      const key = `${entry.role}\u0000${entry.name}`;
      const list = out.get(key);
      if (list) list.push([ref, el]);
      else out.set(key, [[ref, el]]);
    }
    return out;
  }

  /** The group a new element of `key` joins, if gone elements alike were in its place (or taken out on their own). */
  private groupOf(el: Element, key: string): HeirGroup | undefined {
    const { heirs } = this;
    const list = heirs?.orphans.get(key);
    if (!heirs || !list) return undefined;
    const place = this.placeOf(el);
    // Taken out on its own: the one before it then and now say where it stood.
    const before = this.besideThen(el, true);
    for (const at of [place, `${TAKEN_OUT}${before}`]) {
      const claim = `${key}\u0000${at}`;
      let group = heirs.groups.get(claim);
      if (!group) {
        const olds = list.filter(([, old]) =>
          at === place
            ? this.placeOf(old) === at
            : this.placeOf(old) === TAKEN_OUT && this.besideThen(old, false) === before,
        );
        if (olds.length === 0) continue;
        for (const old of olds) list.splice(list.indexOf(old), 1);
        heirs.groups.set(claim, (group = { olds, news: [], ...(at === place ? {} : { key }) }));
      }
      return group;
    }
    return undefined;
  }

  /**
   * The words of the element before `el`: now (in the page), or then (when it was given its ref);
   * '' for the first, undefined when not known (then nothing matches it).
   */
  private besideThen(el: Element, now: boolean): string | undefined {
    const prev = now ? el.previousElementSibling : this.reg.prevOf.get(el);
    if (prev === undefined) return undefined;
    return prev === null ? '' : `‹${this.plainText(prev, FIRST_WORDS)}›`;
  }

  /** The ref for `el`, kept while its role and name stay what they were; a new one otherwise. */
  readonly refFor = (el: Element, role: string, name: string, counter: { next: number }): string => {
    const { reg, heirs } = this;
    const known = reg.idOf.get(el);
    const entry = known !== undefined ? reg.byId.get(known) : undefined;
    if (known !== undefined && entry && entry.role === role && entry.name === name) return known;
    if (known !== undefined) reg.byId.delete(known);
    const ref = `e${counter.next++}`;
    reg.idOf.set(el, ref);
    reg.byId.set(ref, { el: el, role, name });
    reg.prevOf.set(el, el.previousElementSibling);
    reg.removals?.holds(el);
    // Maybe heir to a gone one: its ref is settled once the walk has seen every one alike.
    const key = `${role}\u0000${name}`;
    if (heirs) heirs.fresh.set(key, [...(heirs.fresh.get(key) ?? []), el]);
    this.groupOf(el, key)?.news.push([ref, el]);
    return ref;
  };

  /**
   * Elements taken out one by one are heirs to new ones after the same words only while the new
   * ones' container holds no more alike (no ref of their own) than went: a copy beside the one
   * in the old place (a row duplicated, then the list rebuilt) makes either the same to a person,
   * and the ref is stale rather than on a guess (the ref fuzz found it so).
   */
  private noneBeside(news: Array<[string, Element]>, alike: Element[], went: number): boolean {
    const container = news[0]?.[1].parentNode;
    return alike.filter((el) => el.parentNode === container).length === went;
  }

  /**
   * Gone elements alike, in the order they stood in the page (they were taken out together, so
   * they still share a tree); undefined when that cannot be told (taken out one by one).
   */
  private inPageOrder(olds: Array<[string, Element]>): Array<[string, Element]> | undefined {
    if (olds.length < 2) return olds;
    const [, first] = olds[0]!;
    if (olds.some(([, el]) => first.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_DISCONNECTED))
      return undefined;
    return [...olds].sort(([, a], [, b]) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }

  /** After a walk: each group of as many heirs as gone elements takes their refs, in order. */
  readonly settleHeirs = (result: WalkResult): void => {
    const { reg, heirs } = this;
    const taken = new Map<string, string>();
    for (const [claim, { olds, news, key }] of heirs?.groups ?? []) {
      if (key !== undefined && !this.noneBeside(news, heirs!.fresh.get(key) ?? [], olds.length)) continue;
      const alike = olds.length === news.length && (olds.length === 1 || !claim.includes(`\u0000${NAMED}`));
      const ordered = alike ? this.inPageOrder(olds) : undefined;
      if (!ordered) continue;
      news.forEach(([ref, el], i) => {
        const old = ordered[i]![0];
        const entry = reg.byId.get(ref)!;
        reg.byId.delete(ref);
        reg.byId.set(old, entry);
        reg.idOf.set(el, old);
        reg.prevOf.set(el, el.previousElementSibling);
        taken.set(ref, old);
      });
    }
    if (taken.size === 0) return;
    for (const line of result.lines) {
      const old = line.r !== undefined ? taken.get(line.r) : undefined;
      if (old === undefined) continue;
      line.s = line.s.replace(`[${line.r}]`, `[${old}]`);
      line.r = old;
    }
  };

  /**
   * A ref whose element is gone since the last walk (a re-render before the action), given to
   * the element now in the document that is the same to a person, as a walk would (groupOf).
   */
  private rebind(ref: string, entry: RegistryEntry): Element | undefined {
    const { reg } = this;
    const { clicksLike, roleOf, nameOf } = this.reading;
    const { style } = this.rules;
    const old = entry.el;
    const candidates: Element[] = [];
    for (const el of document.querySelectorAll(old.localName)) {
      const mine = reg.idOf.get(el);
      if (mine !== undefined && mine !== ref && reg.byId.get(mine)?.el === el) continue;
      const role = roleOf(el);
      const clicks = () =>
        clicksLike(el, style(el), el.hasAttribute('tabindex') && Number(el.getAttribute('tabindex')) >= 0);
      const shown = entry.role === 'clickable' && PLAIN.has(role) && clicks() ? 'clickable' : role;
      if (shown === entry.role && nameOf(el, shown) === entry.name) candidates.push(el);
    }
    // The new ones alike in the old one's place (in the page, for one taken out on its own); as
    // many as the gone ones alike there, the one in the same order is its heir.
    const place = this.placeOf(old);
    const before = this.besideThen(old, false);
    const news =
      place === TAKEN_OUT
        ? candidates.filter((el) => before !== undefined && this.besideThen(el, true) === before)
        : candidates.filter((el) => this.placeOf(el) === place);
    const olds: Array<[string, Element]> = [];
    for (const [other, was] of reg.byId) {
      const gone = was.el;
      if (was.role === entry.role && was.name === entry.name && !gone.isConnected && this.placeOf(gone) === place)
        olds.push([other, gone]);
    }
    const alike =
      news.length === olds.length &&
      (olds.length === 1 || !place.startsWith(NAMED)) &&
      (place !== TAKEN_OUT ||
        this.noneBeside(
          news.map((el): [string, Element] => ['', el]),
          candidates,
          olds.length,
        ));
    const ordered = alike ? this.inPageOrder(olds) : undefined;
    const at = ordered ? ordered.findIndex(([other]) => other === ref) : -1;
    if (at < 0) return undefined;
    const heir = news[at]!;
    reg.idOf.set(heir, ref);
    reg.byId.set(ref, { el: heir, role: entry.role, name: entry.name });
    reg.prevOf.set(heir, heir.previousElementSibling);
    reg.removals?.holds(heir);
    return heir;
  }

  /** A walk begins: refs whose element is gone may go to a rebuilt element the same to a person (refFor); the rest are forgotten. */
  readonly beginWalk = (): void => {
    const orphans = this.takeOrphans();
    this.heirs = orphans.size > 0 ? { orphans, groups: new Map(), fresh: new Map() } : undefined;
    this.places = new Map();
  };

  readonly endWalk = (): void => {
    this.heirs = undefined;
    this.places = undefined;
  };

  /** `rebind` with the places it reads kept for its length. */
  readonly rebound = (ref: string, entry: RegistryEntry): Element | undefined => {
    this.places = new Map();
    try {
      return this.rebind(ref, entry);
    } finally {
      this.places = undefined;
    }
  };
}
