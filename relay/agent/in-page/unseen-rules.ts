/// <reference lib="dom" />
// What a person cannot see (#36: page text a person never sees must not reach the agent), for
// one walk (part of the walker bundle). Each rule answers a way pages hide text; display:none,
// visibility:hidden, `hidden`, aria-hidden, <noscript>, <template> and comments are left out by
// the walk itself. An element caught by a box rule hides its text and what is inside it, except
// what can take focus (a skip link shown on focus, a custom checkbox's real input at opacity 0):
// those stay, named as assistive technology names them. Accessible names keep visually hidden
// text (an icon button's "Close"): that is what the control is called. Made per request: its
// caches (styles, colours, backgrounds, covers) hold for one walk only, as the page changes.

import { squash } from './walker-words';
import {
  clipPathHides,
  filterHides,
  luminance,
  offPage,
  scaleHides,
  transformDraws,
  within,
  type Colour,
} from './box-shapes';

/** What a picture may be that is behind the text (mediaBehind). */
const MEDIA = 'img, picture, video, canvas, svg, iframe';

/**
 * The rules for one request. Its readings used elsewhere (style, isHiddenForAll, textUnseen,
 * boxUnseen, boxUnseenNow, repeatsShownText) are arrow functions, so they can be taken apart
 * from it (`const { style } = rules`).
 */
export class UnseenRules {
  private readonly styles = new Map<Element, CSSStyleDeclaration>();

  /** `judged`: whether they apply (always, but in the bench's walk as it was before them). */
  constructor(private readonly judged: boolean) {}

  readonly style = (el: Element): CSSStyleDeclaration => {
    let s = this.styles.get(el);
    if (!s) this.styles.set(el, (s = getComputedStyle(el)));
    return s;
  };

  readonly isHiddenForAll = (el: Element): boolean => {
    if (el.getAttribute('aria-hidden') === 'true') return true;
    return this.style(el).display === 'none';
  };

  /** Read once per colour a page uses (a page has a few dozen; its elements, thousands). */
  private readonly colours = new Map<string, Colour | undefined>();

  /** `rgb(a, b, c)` / `rgba(a, b, c, d)` → [r, g, b, alpha], or undefined for what we cannot read (then nothing is judged). */
  private rgba(color: string): Colour | undefined {
    if (this.colours.has(color)) return this.colours.get(color);
    const m = color.match(/^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/);
    const read: Colour | undefined =
      color === 'transparent'
        ? [0, 0, 0, 0]
        : m
          ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])]
          : undefined;
    this.colours.set(color, read);
    return read;
  }

  private readonly backgrounds = new Map<Element, Colour | undefined>();

  /**
   * The colour behind an element's text: the nearest opaque-enough background colour up the tree
   * (white at the top). Background images and gradients are not read here (one style read less
   * per element): text that fails the contrast rule asks whether a picture is behind it (mediaBehind).
   */
  private backgroundOf(el: Element | null): Colour | undefined {
    // The canvas: white, unless the page may be in a dark colour scheme (then it is not known: nothing is judged).
    if (!el) return /dark/.test(this.style(document.documentElement).colorScheme) ? undefined : [255, 255, 255, 1];
    if (this.backgrounds.has(el)) return this.backgrounds.get(el);
    const own = this.rgba(this.style(el).backgroundColor);
    const bg = own && own[3] >= 0.5 ? own : this.backgroundOf(el.parentElement);
    this.backgrounds.set(el, bg);
    return bg;
  }

  private readonly unseenTexts = new Map<Element, boolean>();

  /**
   * Whether text directly in `el` cannot be read (the text's own style; children may differ).
   * `st`: the element's style, when the caller read it already (the walk reads it uncached): kept
   * for the rules' further reads.
   */
  readonly textUnseen = (el: Element, st?: CSSStyleDeclaration): boolean => {
    if (!this.judged) return false;
    let unseen = this.unseenTexts.get(el);
    if (unseen === undefined) {
      if (st && !this.styles.has(el)) this.styles.set(el, st);
      this.unseenTexts.set(el, (unseen = this.textUnseenNow(el)));
    }
    return unseen;
  };

  private textUnseenNow(el: Element): boolean {
    const st = this.style(el);
    // font-size: 0 — text shrunk to nothing ('0px', '1.5px'; most sizes are parsed no further than their first digit).
    const fontSize = st.fontSize;
    if (fontSize.charCodeAt(0) <= 49 && parseFloat(fontSize) < 2) return true;
    // text-indent that pushes the text out of its box (image replacement, -9999px); it applies to
    // block containers only.
    if (st.display !== 'inline') {
      const indent = Math.abs(parseFloat(st.textIndent) || 0);
      if (indent >= 1000 || (indent > 0 && st.overflowX !== 'visible' && indent >= (el as HTMLElement).offsetWidth))
        return true;
    }
    // Under its own last child, an opaque box positioned over the text (coverOf: one style read,
    // none for an element that holds text only).
    const cover = el.lastElementChild && this.coverOf(el);
    if (cover && this.textUnder(el, cover)) return true;
    // Transparent text (a gradient clipped to the text shows it, so that is seen).
    const fill = this.rgba(st.webkitTextFillColor || st.color);
    if (!fill) return false;
    if (fill[3] < 0.1)
      return !/text/.test(st.getPropertyValue('background-clip') + st.getPropertyValue('-webkit-background-clip'));
    // Text the colour of what is behind it: contrast under 1.2 (white on white, #fefefe on #fff).
    const bg = this.backgroundOf(el);
    if (!bg || fill[3] < 0.5) return false;
    const [a, b] = [luminance(fill), luminance(bg)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) < 1.2 && !this.mediaBehind(el);
  }

  /** Whether every word directly in `el` is drawn within `cover`'s box. */
  private textUnder(el: Element, cover: Element): boolean {
    const lid = cover.getBoundingClientRect();
    const range = document.createRange();
    for (const kid of el.childNodes) {
      if (kid.nodeType !== Node.TEXT_NODE || !/\S/.test(kid.nodeValue ?? '')) continue;
      range.selectNodeContents(kid);
      if (!within(range.getBoundingClientRect(), lid)) return false;
    }
    return true;
  }

  /**
   * Whether a picture may be what is behind the text (white text on a hero image, where every
   * background colour up the tree is white; a background image or gradient under it): then the
   * colours say nothing and the text stays. Asked only of text that failed the contrast rule.
   */
  private mediaBehind(el: Element): boolean {
    // A background image or gradient on the text's own box or one around it.
    for (let up: Element | null = el; up; up = up.parentElement) {
      if (this.style(up).backgroundImage !== 'none') return true;
      const own = this.rgba(this.style(up).backgroundColor);
      if (own && own[3] >= 0.5) break; // an opaque colour: what is further up is covered
    }
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)
      return document
        .elementsFromPoint(x, y)
        .some(
          (below) =>
            below !== el &&
            !el.contains(below) &&
            (below.matches(MEDIA) || this.style(below).backgroundImage !== 'none'),
        );
    // Out of the window: a picture near it in the tree (six levels up) may be behind it.
    let up = el.parentElement;
    for (let i = 0; up && i < 6; i++, up = up.parentElement) {
      const media = up.querySelector(MEDIA);
      if (media && !el.contains(media)) return true;
    }
    return false;
  }

  private readonly unseenBoxes = new Map<Element, boolean>();

  /**
   * Whether nothing of the element's box can be seen: its text and what is inside are left out
   * (but what takes focus). Asked of every box around a text the walk shows (not of a wrapper of
   * links and buttons only), so it reads as few styles as it can (each read costs about half a
   * microsecond, a layout query several; a 20k-element page has 20k elements). Every box: opacity,
   * filter, mask and clip-path (they apply to inline boxes too). A box that is not inline
   * (transforms, overflow and offsets apply to it only): also overflow-x, transform, translate,
   * scale and position. Anything further is read only when one of those says it may hide
   * something: a mask's size, a positioned box's offsets and clip, and the box's place on the
   * page (a layout query) when it was moved (`left: -9999px`, `translateX(-9999px)`, any fixed box);
   * and, once per parent, its last child's position (a cover drawn over the box: coverOf).
   * Transform and translate are the dearest reads (about 0.6 µs: they are resolved against the
   * layout). On the six corpus pages (2,200 boxes that are not inline judged, 900 inline ones)
   * these rules cost the walk about a third more than the rules of positioned boxes only did
   * (35 → 47 ms over the six, in the page), a few percent of a snapshot; on the bench's pages of
   * 5k and 20k controls, three boxes are judged.
   */
  readonly boxUnseen = (el: Element, st: CSSStyleDeclaration): boolean => {
    // Asked again of the same element when a row's cells or a heading's words are read (the
    // walk asks each element once, without the cache: a map lookup costs as much as a style read).
    let unseen = this.unseenBoxes.get(el);
    if (unseen === undefined) this.unseenBoxes.set(el, (unseen = this.boxUnseenNow(el, st, st.display)));
    return unseen;
  };

  /** `display`: the element's, already read by the caller (each read counts). */
  readonly boxUnseenNow = (el: Element, st: CSSStyleDeclaration, display: string): boolean => {
    if (!this.judged) return false;
    // opacity: 0 (inherited by everything inside: a child cannot be more opaque than its parent).
    // Most boxes say '1': no number is parsed for them.
    const opacity = st.opacity;
    if (opacity !== '1' && parseFloat(opacity) < 0.05) return true;
    // What is drawn of the box, whatever its position: most boxes say 'none' to each.
    const filter = st.filter;
    if (filter !== 'none' && filterHides(st, filter)) return true;
    const mask = st.maskImage; // -webkit-mask-image is the same property
    if (mask !== 'none' && this.maskHides(st, mask)) return true;
    const clipPath = st.clipPath;
    if (clipPath !== 'none' && clipPathHides(el, clipPath)) return true;
    // An inline box (a link, a <b> in a paragraph: most of a page's elements) has no overflow,
    // transform or offset of its own, and an absolute or fixed one is no longer inline.
    if (display === 'inline') return this.underCover(el, st);
    // A box clipped to (almost) nothing: overflow hidden with a size of a pixel or less (its used
    // size, read from the style: no layout query for the many boxes that clip their floats).
    const overflow = st.overflowX;
    if ((overflow === 'hidden' || overflow === 'clip') && (st.overflowY === 'hidden' || st.overflowY === 'clip')) {
      // The padding box: a video's aspect-ratio wrapper is 0 high with its height in padding.
      if ((parseFloat(st.width) <= 1 || parseFloat(st.height) <= 1) && (el.clientWidth <= 1 || el.clientHeight <= 1))
        return true;
    }
    // Transforms, static boxes too: scaled or flattened to nothing hides; moved, the box is
    // measured below (a carousel's slide moved within the page stays).
    let moved = false;
    const transform = st.transform;
    if (transform !== 'none') {
      const drawn = transformDraws(transform);
      if (drawn === 'nothing') return true;
      moved = drawn === 'moved';
    }
    const translate = st.translate;
    if (translate !== 'none' && /[1-9]/.test(translate)) moved = true;
    const scale = st.scale;
    if (scale !== 'none' && scaleHides(scale)) return true;
    const position = st.position;
    if (position === 'absolute' || position === 'fixed') {
      // clip: rect(0 0 0 0) / rect(1px 1px 1px 1px) (clip applies to absolute and fixed boxes only).
      const r = st.clip.match(/^rect\(([-\d.]+)px,\s*([-\d.]+)px,\s*([-\d.]+)px,\s*([-\d.]+)px\)$/);
      if (r && (Number(r[3]) <= Number(r[1]) || Number(r[2]) <= Number(r[4]))) return true;
      // Far off-screen: where no scrolling reaches (left: -9999px; a fixed box outside the window).
      // An absolute box is measured only when its offsets are far out (a layout query is dear).
      if (position === 'fixed') moved = true;
      else if (!moved) {
        const left = parseFloat(st.left);
        moved =
          left < -999 ||
          parseFloat(st.top) < -999 ||
          parseFloat(st.right) < -999 ||
          left > Math.max(document.documentElement.scrollWidth, innerWidth);
      }
    } else if (position === 'relative' && !moved) {
      // Moved by its offsets (`left: -9999px`; `right: 9999px` reads as left -9999px).
      moved = parseFloat(st.left) < -999 || parseFloat(st.top) < -999;
    }
    if (moved && offPage(el, position === 'fixed')) return true;
    return this.underCover(el, st);
  };

  /**
   * A computed mask-image (`-webkit-mask` sets it too) that lets nothing through: every layer sized
   * to nothing (mask-size: 0), or every layer a gradient of transparent colours only. A picture
   * (url()) or a gradient with some colour in it shows part: drawn.
   */
  private maskHides(st: CSSStyleDeclaration, mask: string): boolean {
    if (st.maskSize.split(',').every((size) => /(^|\s)0(px|%)?(\s|$)/.test(size.trim()))) return true;
    if (/url\(|image\(|image-set\(|element\(|paint\(|cross-fade\(|(^|,\s*)none\b/.test(mask)) return false;
    const colours = mask.match(/rgba?\([^)]*\)/g);
    // Colours read as rgb()/rgba() only; any other form (currentcolor, color-mix()) is not judged.
    if (!colours || /currentcolor|color|lab\(|lch\(|hsl|hwb|#/.test(mask.replace(/rgba?\([^)]*\)/g, ''))) return false;
    return colours.every((colour) => (this.rgba(colour)?.[3] ?? 1) < 0.05);
  }

  private readonly covers = new Map<Element, Element | null>();

  /**
   * The box that covers what else its parent holds, if any: its last child, absolutely positioned,
   * with an opaque background colour, drawn plainly (no opacity, filter, mask, clip or transform).
   * One style read per parent asked (its last child's position); the rest only for such a child.
   * A cover elsewhere among the children, or a cover that is a fixed box, is not looked for.
   */
  private coverOf(parent: Element): Element | null {
    let cover = this.covers.get(parent);
    if (cover !== undefined) return cover;
    this.covers.set(parent, null); // while judging the child itself (it asks its own parent)
    const last = parent.lastElementChild;
    if (!last) return null;
    const st = this.style(last);
    if (st.position !== 'absolute') return null;
    const bg = this.rgba(st.backgroundColor);
    const zIndex = st.zIndex;
    const plain =
      bg !== undefined &&
      bg[3] >= 0.99 &&
      st.display !== 'none' &&
      st.visibility === 'visible' &&
      (zIndex === 'auto' || Number(zIndex) >= 0) &&
      st.opacity === '1' &&
      st.filter === 'none' &&
      st.maskImage === 'none' &&
      st.clipPath === 'none' &&
      st.transform === 'none' &&
      st.translate === 'none' &&
      st.scale === 'none' &&
      st.rotate === 'none' &&
      !this.boxUnseen(last, st);
    cover = plain ? last : null;
    this.covers.set(parent, cover);
    return cover;
  }

  /**
   * Whether the element is under its parent's cover (coverOf), all of its box: hidden by a later
   * sibling drawn over it (`position: absolute; inset: 0; background: #fff`). Its own positioned
   * descendants with a higher z-index would be drawn over the cover: not looked for.
   */
  private underCover(el: Element, st: CSSStyleDeclaration): boolean {
    const cover = el.parentElement && this.coverOf(el.parentElement);
    if (!cover || cover === el) return false;
    // Drawn under it: in the flow, or positioned (earlier in the tree) without a higher z-index.
    if (st.position !== 'static') {
      const z = st.zIndex;
      const over = this.style(cover).zIndex;
      if (z !== 'auto' && Number(z) > (over === 'auto' ? 0 : Number(over))) return false;
    }
    return within(el.getBoundingClientRect(), cover.getBoundingClientRect());
  }

  /**
   * Whether an unseen box says again what a person sees beside it, hidden from assistive
   * technology (a shop's price: `<span class="a-offscreen">$19.99</span><span aria-hidden="true">$19.99</span>`):
   * then its words are the seen ones, and stay.
   */
  readonly repeatsShownText = (el: Element): boolean => {
    const said = squash(el.textContent ?? '');
    if (!said || said.length > 200 || !el.parentElement) return false;
    for (const sibling of el.parentElement.children)
      if (
        sibling !== el &&
        sibling.getAttribute('aria-hidden') === 'true' &&
        squash(sibling.textContent ?? '') === said
      ) {
        // The twin must itself be seen: one not displayed or invisible says nothing a person reads.
        const st = this.style(sibling);
        if (st.display === 'none' || st.visibility === 'hidden' || st.visibility === 'collapse') return false;
        return !this.boxUnseen(sibling, st);
      }
    return false;
  };
}
