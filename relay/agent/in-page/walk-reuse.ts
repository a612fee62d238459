/// <reference lib="dom" />
// A walk that costs what changed (part of the walker bundle): each block element's part of the
// last walk is kept (a Segment), and the page's changes since are marked as they happen
// (walk-marks.ts); a walk asked to reuse takes an unmarked block's part as it was, walking only
// what changed and the elements above it. Whatever marks cannot say (a style sheet, the window's
// size, fonts, a state or a :has() a style rule reads that moved) makes the walk whole again.

import type { WalkIds } from './walk-codec';
import { ChangeMarks } from './walk-marks';
import { readSheets, type SheetRules } from './sheet-rules';
import type { Segment } from './walker-types';

/** A whole walk at least this often: what marks cannot see does not stay wrong for long. */
const WHOLE_EVERY_MS = 60_000;
const WHOLE_EVERY_WALKS = 25;
/** Not walked for this long: the marks stop and the parts go (a registry the relay let go of). */
const SLEEP_MS = 10 * 60_000;

/**
 * A frame document's kept parts and marks, from its first walk on. What marks cannot see, a
 * diff's walk can miss until the next whole one (a snapshot without `since`, or the diff's walk
 * after a minute or 25 diffs): a click listener added with nothing else changed (markup a script
 * hydrates), a rule replaced in place through the CSSOM (one inserted or deleted is seen), a
 * shadow root attached to an element already defined, whether a picture is behind low-contrast
 * words after a scroll, and a colour or cursor a rule gives on hover (only where it moves do
 * those say differently). Never a ref for the wrong element: a walk checks every ref it shows
 * (page-walker.ts), and an action checks its role and name again.
 */
export class WalkReuse {
  readonly marks = new ChangeMarks();
  /**
   * Each block's part, by element (a Map: a WeakMap's set cost the walk a fifth more). Made anew
   * by a whole walk; a walk that reuses writes over it, and past twice the whole walk's size (the
   * parts of elements since taken out) the next walk is whole again.
   */
  private segments = new Map<Element, Segment>();
  private wholeSize = 0;
  /** Whether this walk made the parts anew (a whole walk), and when and how many walks ago the last one was. */
  private fresh = true;
  private wholeAt = 0;
  private sinceWhole = 0;
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
  private sleeper: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.marks.siblingRules = () => this.sheetRules(this.print).sibling;
  }

  /**
   * A walk begins: whether it may reuse (`want`: the request asked, and nothing since the last
   * walk needs it whole). `params`: what the request walks with (its rules and budget).
   */
  begin(want: boolean, params: string): void {
    const { marks } = this;
    this.reused = false;
    marks.wake();
    marks.settle();
    const print = this.printNow();
    const rules = want ? this.sheetRules(print) : undefined;
    this.active =
      rules !== undefined &&
      params === this.params &&
      print === this.print &&
      !marks.everything &&
      !rules.never &&
      !(marks.stateMoved && rules.state) &&
      !(marks.marked.size > 0 && rules.has) &&
      performance.now() - this.wholeAt < WHOLE_EVERY_MS &&
      this.sinceWhole < WHOLE_EVERY_WALKS &&
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
   * The walk is done: what it read is the page as it is now, and the marks start again from
   * here. Not called for a walk that threw: its marks stay for the next.
   */
  end(): void {
    if (this.fresh) {
      this.wholeSize = this.segments.size;
      this.wholeAt = performance.now();
      this.sinceWhole = 0;
    } else this.sinceWhole++;
    this.marks.clear(this.fresh);
    this.active = false;
    clearTimeout(this.sleeper);
    this.sleeper = setTimeout(() => {
      this.marks.sleep();
      this.segments = new Map();
      this.lastWalk = undefined;
    }, SLEEP_MS);
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
    this.marks.mark(el);
  }

  /** A block's part of the last walk, when it may stand for a walk of it now (same depth, quiet and boxes around). */
  reusable(el: Element, depth: number, quiet: boolean, unseen: () => boolean): Segment | undefined {
    if (!this.active || this.marks.marked.has(el)) return undefined;
    const segment = this.segments.get(el);
    if (!segment || segment.depth !== depth || segment.quiet !== quiet) return undefined;
    if (segment.unseen !== undefined && unseen() !== segment.unseen) return undefined;
    this.reused = true;
    return segment;
  }

  /** Whether everything inside `el` must be walked again (none of its blocks' parts hold). */
  isDeep(el: Element): boolean {
    return this.marks.deep.has(el);
  }

  keep(el: Element, segment: Segment): void {
    this.segments.set(el, segment);
  }

  /** A form control the walk read, and an open shadow root it went into: watched from now on. */
  control(el: Element): void {
    this.marks.control(el);
  }

  shadow(root: ShadowRoot): void {
    this.marks.shadow(root);
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
    for (const root of this.marks.shadowRoots()) all.push(...root.styleSheets, ...(root.adoptedStyleSheets ?? []));
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
