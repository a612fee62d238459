/// <reference lib="dom" />
// The `agent` snapshot's work inside the page: one synchronous walk of a frame's document (open
// shadow roots included) that reads what an agent needs — roles, accessible names, values and
// states of actionable elements; headings, landmarks, dialogs and rows for orientation; visible
// text, condensed — and a registry of refs that lives in a JS object only our handle reaches.
// Nothing is written into the DOM or onto the page's globals.
//
// `inPage` is shipped to the page by Playwright as its source text, so it must be
// self-contained: every helper is nested inside it — which is why this file is longer than our
// usual one and cannot be split by role. It is the one file of the relay that sees DOM types
// (the reference above); it runs only in the page.

/** What a ref stood for when it was given: the element, and its role and name then. */
export interface RegistryEntry {
  el: WeakRef<Element>;
  role: string;
  name: string;
}

/** Per frame document: ref → entry, element → ref. Created by `createRegistry`, held by our JSHandle. */
export interface Registry {
  byId: Map<string, RegistryEntry>;
  idOf: WeakMap<Element, string>;
  /** The element before each one when it was given its ref (null: the first): where one taken out on its own stood. */
  prevOf: WeakMap<Element, Element | null>;
}

/** One line of the snapshot: depth, text without indentation, its ref, whether it is an iframe. */
export interface WalkLine {
  d: number;
  s: string;
  r?: string;
  /** An iframe: the child frame's lines go below it. */
  f?: 1;
  /** Shown for orientation only when something is below it (landmarks, rows, groups). */
  c?: 1;
}

export type InPageRequest =
  /**
   * `seeAll`: the walk without the rules of what a person cannot see — what it was before them.
   * Only the bench asks for it (a server started with CLAWD_BENCH_SEE_ALL=1), to measure what
   * the rules cost in the same run; an agent cannot.
   */
  | { kind: 'walk'; nextRef: number; selector?: string; textMax: number; seeAll?: true }
  /** In the page only (page-content.ts): takes out of `copy`, a fresh deep clone of `from`, what a person cannot see of `from`; answers how many nodes went. */
  | { kind: 'prune'; from: Node; copy: Node }
  | { kind: 'resolve'; ref: string }
  | { kind: 'boxes'; refs: string[] }
  | { kind: 'messages' };

/** What a walk answers (as a JSON string). */
export interface WalkResult {
  lines: WalkLine[];
  nextRef: number;
  /** The refs shown, with their role and name (the fingerprint a later action checks). */
  refs: Array<[string, string, string]>;
  /** With `selector`: nothing matched it. */
  missing?: true;
}

export function createRegistry(): Registry {
  return { byId: new Map(), idOf: new WeakMap(), prevOf: new WeakMap() };
}

export function inPage(reg: Registry, req: InPageRequest): unknown {
  const INTERACTIVE = new Set([
    'button',
    'link',
    'textbox',
    'searchbox',
    'checkbox',
    'radio',
    'combobox',
    'listbox',
    'option',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'slider',
    'spinbutton',
    'switch',
    'tab',
    'treeitem',
    'gridcell',
  ]);
  // Roles whose accessible name comes from their content (accname "name from content").
  const FROM_CONTENT = new Set([
    'button',
    'link',
    'heading',
    'cell',
    'gridcell',
    'columnheader',
    'rowheader',
    'option',
    'tab',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'treeitem',
    'checkbox',
    'radio',
    'switch',
    'tooltip',
    'row',
    'clickable',
    'legend',
  ]);
  // Shown as a container line when named (or always, for the landmarks), with what is inside below.
  const CONTAINERS = new Set([
    'navigation',
    'main',
    'banner',
    'contentinfo',
    'complementary',
    'region',
    'form',
    'search',
    'dialog',
    'alertdialog',
    'group',
    'table',
    'grid',
    'tablist',
    'menu',
    'menubar',
    'tree',
    'radiogroup',
    'toolbar',
  ]);
  const ALWAYS_SHOWN = new Set([
    'navigation',
    'main',
    'banner',
    'contentinfo',
    'complementary',
    'search',
    'dialog',
    'alertdialog',
    'menu',
    'menubar',
    'tablist',
    'tree',
    'grid',
  ]);
  const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base']);
  const ARIA_ROLES = new Set([
    ...INTERACTIVE,
    'alert',
    'alertdialog',
    'application',
    'article',
    'banner',
    'blockquote',
    'caption',
    'cell',
    'columnheader',
    'complementary',
    'contentinfo',
    'definition',
    'dialog',
    'directory',
    'document',
    'feed',
    'figure',
    'form',
    'generic',
    'grid',
    'group',
    'heading',
    'img',
    'list',
    'listitem',
    'log',
    'main',
    'marquee',
    'math',
    'menu',
    'menubar',
    'meter',
    'navigation',
    'none',
    'note',
    'presentation',
    'progressbar',
    'radiogroup',
    'region',
    'row',
    'rowgroup',
    'rowheader',
    'scrollbar',
    'search',
    'separator',
    'status',
    'table',
    'tablist',
    'tabpanel',
    'term',
    'timer',
    'toolbar',
    'tooltip',
    'tree',
    'treegrid',
    'image',
    'paragraph',
  ]);

  const styles = new Map<Element, CSSStyleDeclaration>();
  const style = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) styles.set(el, (s = getComputedStyle(el)));
    return s;
  };
  const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
  const quote = (text: string) => JSON.stringify(text);
  /** A status or alert message longer than this is a region of the page, walked as one. */
  const MESSAGE_MAX = 300;
  const cap = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

  /** The element's children as rendered: its shadow root's, a slot's assigned nodes. */
  const childrenOf = (node: Node): ArrayLike<Node> => {
    if (node instanceof Element) {
      if (node.shadowRoot) return node.shadowRoot.childNodes;
      if (node.localName === 'slot') {
        const assigned = (node as HTMLSlotElement).assignedNodes({ flatten: true });
        if (assigned.length > 0) return assigned;
      }
    }
    return node.childNodes;
  };

  const isHiddenForAll = (el: Element): boolean => {
    if (el.getAttribute('aria-hidden') === 'true') return true;
    return style(el).display === 'none';
  };

  // ---- What a person cannot see (#36: page text a person never sees must not reach the agent) ----
  // Each rule answers a way pages hide text; display:none, visibility:hidden, `hidden`,
  // aria-hidden, <noscript>, <template> and comments are left out by the walk itself. An element
  // caught by a box rule hides its text and what is inside it, except what can take focus (a skip
  // link shown on focus, a custom checkbox's real input at opacity 0): those stay, named as
  // assistive technology names them. Accessible names keep visually hidden text (an icon button's
  // "Close"): that is what the control is called.

  /** Whether the rules apply (always, but in the bench's walk as it was before them). */
  const judged = !(req.kind === 'walk' && req.seeAll);
  /** `rgb(a, b, c)` / `rgba(a, b, c, d)` → [r, g, b, alpha], or undefined for what we cannot read (then nothing is judged). */
  /** Read once per colour a page uses (a page has a few dozen; its elements, thousands). */
  const colours = new Map<string, Colour | undefined>();
  type Colour = [number, number, number, number];
  const rgba = (color: string): Colour | undefined => {
    if (colours.has(color)) return colours.get(color);
    const m = color.match(/^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/);
    const read: Colour | undefined =
      color === 'transparent'
        ? [0, 0, 0, 0]
        : m
          ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])]
          : undefined;
    colours.set(color, read);
    return read;
  };
  const luminance = ([r, g, b]: Colour) => {
    const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const backgrounds = new Map<Element, Colour | undefined>();
  /**
   * The colour behind an element's text: the nearest opaque-enough background colour up the tree
   * (white at the top). Background images and gradients are not read here (one style read less
   * per element): text that fails the contrast rule asks whether a picture is behind it (mediaBehind).
   */
  const backgroundOf = (el: Element | null): Colour | undefined => {
    // The canvas: white, unless the page may be in a dark colour scheme (then it is not known: nothing is judged).
    if (!el) return /dark/.test(style(document.documentElement).colorScheme) ? undefined : [255, 255, 255, 1];
    if (backgrounds.has(el)) return backgrounds.get(el);
    const own = rgba(style(el).backgroundColor);
    const bg = own && own[3] >= 0.5 ? own : backgroundOf(el.parentElement);
    backgrounds.set(el, bg);
    return bg;
  };
  const unseenTexts = new Map<Element, boolean>();
  /** Whether text directly in `el` cannot be read (the text's own style; children may differ). */
  const textUnseen = (el: Element): boolean => {
    if (!judged) return false;
    let unseen = unseenTexts.get(el);
    if (unseen === undefined) unseenTexts.set(el, (unseen = textUnseenNow(el)));
    return unseen;
  };
  const textUnseenNow = (el: Element): boolean => {
    const st = style(el);
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
    const cover = el.lastElementChild && coverOf(el);
    if (cover && textUnder(el, cover)) return true;
    // Transparent text (a gradient clipped to the text shows it, so that is seen).
    const fill = rgba(st.webkitTextFillColor || st.color);
    if (!fill) return false;
    if (fill[3] < 0.1)
      return !/text/.test(st.getPropertyValue('background-clip') + st.getPropertyValue('-webkit-background-clip'));
    // Text the colour of what is behind it: contrast under 1.2 (white on white, #fefefe on #fff).
    const bg = backgroundOf(el);
    if (!bg || fill[3] < 0.5) return false;
    const [a, b] = [luminance(fill), luminance(bg)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) < 1.2 && !mediaBehind(el);
  };
  /** Whether every word directly in `el` is drawn within `cover`'s box. */
  const textUnder = (el: Element, cover: Element): boolean => {
    const lid = cover.getBoundingClientRect();
    const range = document.createRange();
    for (const kid of el.childNodes) {
      if (kid.nodeType !== Node.TEXT_NODE || !/\S/.test(kid.nodeValue ?? '')) continue;
      range.selectNodeContents(kid);
      if (!within(range.getBoundingClientRect(), lid)) return false;
    }
    return true;
  };
  const MEDIA = 'img, picture, video, canvas, svg, iframe';
  /**
   * Whether a picture may be what is behind the text (white text on a hero image, where every
   * background colour up the tree is white; a background image or gradient under it): then the
   * colours say nothing and the text stays. Asked only of text that failed the contrast rule.
   */
  const mediaBehind = (el: Element): boolean => {
    // A background image or gradient on the text's own box or one around it.
    for (let up: Element | null = el; up; up = up.parentElement) {
      if (style(up).backgroundImage !== 'none') return true;
      const own = rgba(style(up).backgroundColor);
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
            below !== el && !el.contains(below) && (below.matches(MEDIA) || style(below).backgroundImage !== 'none'),
        );
    // Out of the window: a picture near it in the tree (six levels up) may be behind it.
    let up = el.parentElement;
    for (let i = 0; up && i < 6; i++, up = up.parentElement) {
      const media = up.querySelector(MEDIA);
      if (media && !el.contains(media)) return true;
    }
    return false;
  };
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
  const unseenBoxes = new Map<Element, boolean>();
  const boxUnseen = (el: Element, st: CSSStyleDeclaration): boolean => {
    // Asked again of the same element when a row's cells or a heading's words are read (the
    // walk asks each element once, without the cache: a map lookup costs as much as a style read).
    let unseen = unseenBoxes.get(el);
    if (unseen === undefined) unseenBoxes.set(el, (unseen = boxUnseenNow(el, st, st.display)));
    return unseen;
  };
  /** `display`: the element's, already read by the caller (each read counts). */
  const boxUnseenNow = (el: Element, st: CSSStyleDeclaration, display: string): boolean => {
    if (!judged) return false;
    // opacity: 0 (inherited by everything inside: a child cannot be more opaque than its parent).
    // Most boxes say '1': no number is parsed for them.
    const opacity = st.opacity;
    if (opacity !== '1' && parseFloat(opacity) < 0.05) return true;
    // What is drawn of the box, whatever its position: most boxes say 'none' to each.
    const filter = st.filter;
    if (filter !== 'none' && filterHides(st, filter)) return true;
    const mask = st.maskImage; // -webkit-mask-image is the same property
    if (mask !== 'none' && maskHides(st, mask)) return true;
    const clipPath = st.clipPath;
    if (clipPath !== 'none' && clipPathHides(el, clipPath)) return true;
    // An inline box (a link, a <b> in a paragraph: most of a page's elements) has no overflow,
    // transform or offset of its own, and an absolute or fixed one is no longer inline.
    if (display === 'inline') return underCover(el, st);
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
    return underCover(el, st);
  };
  /** Whether the moved box is where no person sees it: out of the window (fixed) or of the page, where no scrolling reaches. */
  const offPage = (el: Element, fixed: boolean): boolean => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return false; // a positioned anchor for what is inside
    if (fixed) return box.right <= 0 || box.bottom <= 0 || box.left >= innerWidth || box.top >= innerHeight;
    const page = document.documentElement;
    return (
      box.right + scrollX <= 0 ||
      box.bottom + scrollY <= 0 ||
      box.left + scrollX >= Math.max(page.scrollWidth, innerWidth) ||
      box.top + scrollY >= Math.max(page.scrollHeight, innerHeight)
    );
  };
  /**
   * A computed transform (`matrix(…)`, `matrix3d(…)`): 'nothing' when it flattens the box or
   * shrinks it to a tenth or less along some direction (scale(0), scaleY(0.05), rotateY(90deg):
   * its text is under two pixels high), 'moved' when it moves it (then where it lands is measured).
   * A rotated or slightly scaled box is drawn.
   */
  const transformDraws = (transform: string): 'nothing' | 'moved' | 'drawn' => {
    const m = transform
      .slice(transform.indexOf('(') + 1, -1)
      .split(',')
      .map(Number);
    const is3d = m.length === 16;
    const [a, b, c, d, e, f] = is3d ? [m[0]!, m[1]!, m[4]!, m[5]!, m[12]!, m[13]!] : (m as Tuple6);
    // The smaller singular value of the 2D part: how far the box is squeezed along its thinnest direction.
    const sum = a * a + b * b + c * c + d * d;
    const det = a * d - b * c;
    const least = Math.sqrt(Math.max(0, (sum - Math.sqrt(Math.max(0, sum * sum - 4 * det * det))) / 2));
    if (least < 0.1) return 'nothing';
    return e !== 0 || f !== 0 ? 'moved' : 'drawn';
  };
  type Tuple6 = [number, number, number, number, number, number];
  /** The `scale` property ('0', '0.05 1', '1 1 0'): hides when x or y is a tenth or less. */
  const scaleHides = (scale: string): boolean => {
    const [x, y = x] = scale.split(' ').map((v) => parseFloat(v) / (v.endsWith('%') ? 100 : 1));
    return Math.abs(x!) < 0.1 || Math.abs(y!) < 0.1;
  };
  /**
   * A computed filter: opacity(0) (or several that multiply below 0.05), or a blur that leaves the
   * words a smudge (a quarter of the font size, 4px at least: 16px text under blur(4px) is not
   * read, nor a 40px headline under blur(10px)). A drop shadow or a light blur is drawn.
   */
  const filterHides = (st: CSSStyleDeclaration, filter: string): boolean => {
    let alpha = 1;
    for (const [, fn, arg] of filter.matchAll(/\b(opacity|blur)\(([^)]*)\)/g)) {
      const value = parseFloat(arg!) / (arg!.endsWith('%') ? 100 : 1);
      if (fn === 'opacity') alpha *= value;
      else if (value >= Math.max(4, parseFloat(st.fontSize) / 4)) return true;
    }
    return alpha < 0.05;
  };
  /**
   * A computed mask-image (`-webkit-mask` sets it too) that lets nothing through: every layer sized
   * to nothing (mask-size: 0), or every layer a gradient of transparent colours only. A picture
   * (url()) or a gradient with some colour in it shows part: drawn.
   */
  const maskHides = (st: CSSStyleDeclaration, mask: string): boolean => {
    if (st.maskSize.split(',').every((size) => /(^|\s)0(px|%)?(\s|$)/.test(size.trim()))) return true;
    if (/url\(|image\(|image-set\(|element\(|paint\(|cross-fade\(|(^|,\s*)none\b/.test(mask)) return false;
    const colours = mask.match(/rgba?\([^)]*\)/g);
    // Colours read as rgb()/rgba() only; any other form (currentcolor, color-mix()) is not judged.
    if (!colours || /currentcolor|color|lab\(|lch\(|hsl|hwb|#/.test(mask.replace(/rgba?\([^)]*\)/g, ''))) return false;
    return colours.every((colour) => (rgba(colour)?.[3] ?? 1) < 0.05);
  };
  /**
   * A computed clip-path that leaves nothing: an inset whose sides meet (inset(50%),
   * inset(0 0 100% 0); rect() and xywh() compute to inset()), a circle or ellipse of radius 0, a
   * polygon of no area (every point on one line). Its reference box is taken as the border box.
   */
  const clipPathHides = (el: Element, clipPath: string): boolean => {
    const open = clipPath.indexOf('(');
    const shape = clipPath.slice(0, open);
    const args = clipPath.slice(open + 1, clipPath.indexOf(')', open)); // lengths only: no nested ()
    if (shape === 'circle') return /^0(px|%)?(\s|$)/.test(args);
    if (shape === 'ellipse') return /^(0(px|%)?\s|\S+\s+0(px|%)?(\s|$))/.test(args);
    if (shape === 'inset') {
      if (clipPath.includes('calc(')) return false;
      const [t, r = t, b = t, l = r] = args.split(' round ')[0]!.trim().split(/\s+/);
      const box = el as HTMLElement;
      return meets(t!, b!, () => box.offsetHeight) || meets(l!, r!, () => box.offsetWidth);
    }
    if (shape === 'polygon') {
      if (clipPath.includes('calc(')) return false;
      const points = args
        .replace(/^(evenodd|nonzero),/, '')
        .split(',')
        .map((p) =>
          p
            .trim()
            .split(/\s+/)
            .map((v) => (parseFloat(v) === 0 ? '0' : v)),
        );
      if (points.some((p) => p.length !== 2)) return false;
      // On one vertical or horizontal line, whatever the units.
      if (points.every((p) => p[0] === points[0]![0]) || points.every((p) => p[1] === points[0]![1])) return true;
      // Of no area (collinear or repeated points), when every coordinate has the same unit.
      const unit = (v: string) => v.replace(/^[-\d.e+]+/, '');
      const units = new Set(
        points
          .flat()
          .filter((v) => v !== '0')
          .map(unit),
      );
      if (units.size > 1) return false;
      let area = 0;
      for (let i = 0; i < points.length; i++) {
        const [x1, y1] = points[i]!.map(parseFloat) as [number, number];
        const [x2, y2] = points[(i + 1) % points.length]!.map(parseFloat) as [number, number];
        area += x1 * y2 - x2 * y1;
      }
      return Math.abs(area) < 1e-6;
    }
    return false;
  };
  /** Whether two opposite insets ('50%', '20px') meet: percentages of the reference box, lengths against `size` (a layout query, asked only then). */
  const meets = (a: string, b: string, size: () => number): boolean => {
    if (a.endsWith('%') && b.endsWith('%')) return parseFloat(a) + parseFloat(b) >= 100;
    if (!(parseFloat(a) > 0 || parseFloat(b) > 0)) return false; // inset(0 round 6px): rounded corners
    const whole = size();
    if (!(whole > 0)) return false;
    const px = (v: string) => (v.endsWith('%') ? (parseFloat(v) / 100) * whole : parseFloat(v));
    return px(a) + px(b) >= whole;
  };
  /**
   * The box that covers what else its parent holds, if any: its last child, absolutely positioned,
   * with an opaque background colour, drawn plainly (no opacity, filter, mask, clip or transform).
   * One style read per parent asked (its last child's position); the rest only for such a child.
   * A cover elsewhere among the children, or a cover that is a fixed box, is not looked for.
   */
  const covers = new Map<Element, Element | null>();
  const coverOf = (parent: Element): Element | null => {
    let cover = covers.get(parent);
    if (cover !== undefined) return cover;
    covers.set(parent, null); // while judging the child itself (it asks its own parent)
    const last = parent.lastElementChild;
    if (!last) return null;
    const st = style(last);
    if (st.position !== 'absolute') return null;
    const bg = rgba(st.backgroundColor);
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
      !boxUnseen(last, st);
    cover = plain ? last : null;
    covers.set(parent, cover);
    return cover;
  };
  /**
   * Whether the element is under its parent's cover (coverOf), all of its box: hidden by a later
   * sibling drawn over it (`position: absolute; inset: 0; background: #fff`). Its own positioned
   * descendants with a higher z-index would be drawn over the cover: not looked for.
   */
  const underCover = (el: Element, st: CSSStyleDeclaration): boolean => {
    const cover = el.parentElement && coverOf(el.parentElement);
    if (!cover || cover === el) return false;
    // Drawn under it: in the flow, or positioned (earlier in the tree) without a higher z-index.
    if (st.position !== 'static') {
      const z = st.zIndex;
      const over = style(cover).zIndex;
      if (z !== 'auto' && Number(z) > (over === 'auto' ? 0 : Number(over))) return false;
    }
    return within(el.getBoundingClientRect(), cover.getBoundingClientRect());
  };
  /** Whether the box `inner` (not empty) lies within `outer`, to half a pixel. */
  const within = (inner: DOMRect, outer: DOMRect): boolean =>
    inner.width > 0 &&
    inner.height > 0 &&
    outer.left <= inner.left + 0.5 &&
    outer.top <= inner.top + 0.5 &&
    outer.right >= inner.right - 0.5 &&
    outer.bottom >= inner.bottom - 0.5;
  /**
   * Whether an unseen box says again what a person sees beside it, hidden from assistive
   * technology (a shop's price: `<span class="a-offscreen">$19.99</span><span aria-hidden="true">$19.99</span>`):
   * then its words are the seen ones, and stay.
   */
  const repeatsShownText = (el: Element): boolean => {
    const said = squash(el.textContent ?? '');
    if (!said || said.length > 200 || !el.parentElement) return false;
    for (const sibling of el.parentElement.children)
      if (
        sibling !== el &&
        sibling.getAttribute('aria-hidden') === 'true' &&
        squash(sibling.textContent ?? '') === said
      )
        return !boxUnseen(sibling, style(sibling));
    return false;
  };
  /** The walk's root: inside no box at all. */
  const NONE_UNSEEN = () => false;
  /** Whether a person (or the keyboard) can reach the element in an unseen box: it stays in the snapshot. */
  const takesFocus = (el: Element): boolean =>
    (el as HTMLElement).tabIndex >= 0 &&
    !(el as HTMLInputElement).disabled &&
    !(el.localName === 'input' && (el as HTMLInputElement).type === 'hidden');

  // Tags whose implicit role does not depend on attributes or context.
  const TAG_ROLES: Record<string, string> = {
    button: 'button',
    summary: 'button',
    textarea: 'textbox',
    option: 'option',
    h1: 'heading',
    h2: 'heading',
    h3: 'heading',
    h4: 'heading',
    h5: 'heading',
    h6: 'heading',
    nav: 'navigation',
    main: 'main',
    aside: 'complementary',
    form: 'form',
    section: 'region',
    dialog: 'dialog',
    details: 'group',
    fieldset: 'group',
    optgroup: 'group',
    table: 'table',
    tr: 'row',
    td: 'cell',
    ul: 'list',
    ol: 'list',
    li: 'listitem',
    iframe: 'iframe',
    frame: 'iframe',
    progress: 'progressbar',
    meter: 'meter',
    hr: 'separator',
    p: 'paragraph',
    label: 'label',
    legend: 'legend',
    output: 'status',
  };
  // Roles that say nothing by themselves: such an element shows as `clickable` when it acts like one.
  const PLAIN = new Set(['generic', 'none', 'presentation', 'paragraph', 'listitem']);

  /** Roles of controls: their own line says their name and value. */
  const CONTROLS = new Set([
    'checkbox',
    'radio',
    'switch',
    'textbox',
    'searchbox',
    'combobox',
    'listbox',
    'slider',
    'spinbutton',
    'menuitemcheckbox',
    'menuitemradio',
  ]);

  /**
   * A control inside what is being named adds nothing to its name: a checkbox's "on" or its
   * "Select" label, a field's text, a select's option, an icon button's "Star" would name a row or
   * a card by what sits in it or was typed there, and change it when they change. The control's
   * own line says its name and value.
   */
  function isControl(el: Element): boolean {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return true;
    const role = el.getAttribute('role')?.trim().split(/\s+/)[0]!.toLowerCase();
    // A button says words of its own ("INV-1001", an accordion's "Shipping"): those stay; an icon
    // button (☆, ×, ⋮) says only its label, which is what it does, not what holds it.
    if (tag === 'button' || role === 'button') return !/[\p{L}\p{N}]/u.test(el.textContent ?? '');
    return role !== undefined && CONTROLS.has(role);
  }

  /**
   * What a person can click though its role does not say so — the one rule (README, "What has a
   * ref"): a link without `href` that has words, an element with a click handler of its own (an
   * `onclick`, or a framework's own: React's props, Vue's invokers, Svelte's and Preact's
   * delegated handlers), a `tabindex` of 0 or more, or a pointer cursor of its own — not one it
   * only inherits, which would make every word of a clickable row a target. A handler added with
   * addEventListener on the element itself is not seen here (its cursor usually says it).
   */
  function clicksLike(el: Element, st: CSSStyleDeclaration, focusable: boolean): boolean {
    if (focusable) return true;
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && /\S/.test(el.textContent ?? '')) return true;
    if ((el.hasAttribute('onclick') || (el as HTMLElement).onclick || frameworkHandler(el)) && aTarget(el)) return true;
    if (st.cursor !== 'pointer') return false;
    const parent = el.parentElement ?? (el.parentNode as ShadowRoot | null)?.host ?? null;
    return !parent || style(parent).cursor !== 'pointer';
  }

  /**
   * A handler on a whole region (a page's root catching clicks outside a menu, a form's wrapper)
   * is not a target: only an element of a few dozen elements, with no page region or form inside.
   */
  function aTarget(el: Element): boolean {
    if (el === document.body || el === document.documentElement) return false;
    return (
      el.getElementsByTagName('*').length <= 60 &&
      !el.querySelector('main, nav, form, [role=main], [role=navigation], [role=form]')
    );
  }

  /** The key React keeps an element's props under (`__reactProps$…`, one per React copy), once seen. */
  let reactProps: string | undefined;
  const CLICKS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp'];

  function frameworkHandler(el: Element): boolean {
    const own = el as unknown as Record<string, unknown>;
    if (reactProps === undefined) {
      for (const key of Object.keys(own))
        if (key.startsWith('__reactProps$')) {
          reactProps = key;
          break;
        }
    }
    const props = reactProps !== undefined ? (own[reactProps] as Record<string, unknown> | undefined) : undefined;
    if (props && CLICKS.some((name) => typeof props[name] === 'function')) return true;
    const vue = own._vei as Record<string, unknown> | undefined; // Vue 3's invokers, by event
    if (vue && typeof vue === 'object' && (vue.onClick || vue.onMousedown || vue.onPointerdown)) return true;
    if (typeof own.__click === 'function') return true; // Svelte 5's delegated click
    const preact = own.l as Record<string, unknown> | undefined; // Preact's listeners, by event and phase
    return !!preact && typeof preact === 'object' && ('clickfalse' in preact || 'clicktrue' in preact);
  }

  function implicitRole(el: Element): string {
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

  function roleOf(el: Element): string {
    const explicit = el.getAttribute('role');
    if (explicit) {
      for (const token of explicit.trim().toLowerCase().split(/\s+/))
        if (ARIA_ROLES.has(token)) return token === 'image' ? 'img' : token;
    }
    const role = implicitRole(el);
    if (role !== 'generic') return role;
    if (
      el instanceof HTMLElement &&
      el.isContentEditable &&
      (el.parentElement === null || !el.parentElement.isContentEditable)
    )
      return 'textbox';
    return role;
  }

  /** CSS `content` of a pseudo-element as text ('' for none, counters or images). */
  function pseudoText(el: Element, which: '::before' | '::after'): string {
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
  function textOf(node: Node, max: number, pseudo: boolean, skip?: Element, seenOnly = false): string {
    let out = '';
    const visit = (n: Node) => {
      if (out.length > max) return;
      if (n.nodeType === Node.TEXT_NODE) {
        if (seenOnly && n.parentElement && /\S/.test(n.nodeValue ?? '') && textUnseen(n.parentElement)) return;
        out += n.nodeValue ?? '';
        return;
      }
      if (!(n instanceof Element) || n === skip) return;
      if (SKIPPED.has(n.localName) || isHiddenForAll(n) || isControl(n)) return;
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
      if (pseudo) out += pseudoText(n, '::before');
      const kids = childrenOf(n);
      for (let i = 0; i < kids.length; i++) visit(kids[i]!);
      if (pseudo) out += pseudoText(n, '::after');
      if (block) out += ' ';
    };
    const kids = childrenOf(node);
    if (pseudo && node instanceof Element) out += pseudoText(node, '::before');
    for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    if (pseudo && node instanceof Element) out += pseudoText(node, '::after');
    return squash(out);
  }

  function byIds(el: Element, ids: string): Element[] {
    const root = el.getRootNode() as Document | ShadowRoot;
    return ids
      .split(/\s+/)
      .map((id) => root.getElementById?.(id) ?? el.ownerDocument.getElementById(id))
      .filter((e): e is HTMLElement => e !== null);
  }

  /** How much of each cell a row's name says. */
  const ROW_CELL_MAX = 40;

  function nameOf(el: Element, role: string): string {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = squash(
        byIds(el, labelledBy)
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
        .map((c) => cap(textOf(c, 100, false), ROW_CELL_MAX))
        .filter(Boolean)
        .join(' ');
      if (cells) return cap(cells, 120);
    }
    if (FROM_CONTENT.has(role)) {
      const text = textOf(el, 300, false) || textOf(el, 300, true);
      if (text) return cap(text, role === 'row' ? 120 : 150);
    }
    return cap(squash(el.getAttribute('title') ?? ''), 150);
  }

  function states(el: Element, role: string): string {
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
    const invalid = invalidMessage(el);
    if (invalid !== undefined) parts.push(invalid ? `[invalid=${quote(cap(invalid, 150))}]` : '[invalid]');
    return parts.join(' ');
  }

  /**
   * Why a field is refused, when it is: `aria-invalid` with its `aria-errormessage` (or
   * `aria-describedby`) text, or the browser's own validation once the person — or the agent —
   * has tried it (`:user-invalid`, not `:invalid`: an empty required field is not an error
   * before anyone typed or submitted). '' when invalid without a message; undefined when valid.
   */
  function invalidMessage(el: Element): string | undefined {
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
            byIds(el, ids)
              .map((e) => textOf(e, 300, false))
              .join(' '),
          )
        : '';
    };
    return (
      said('aria-errormessage') ||
      (user ? squash((el as HTMLInputElement).validationMessage ?? '') : '') ||
      said('aria-describedby')
    );
  }

  /** `status` or `alert` for an element that tells the person how something went, else undefined. */
  function messageRole(el: Element, role: string): 'status' | 'alert' | undefined {
    if (role === 'status' || role === 'alert') return role;
    const live = el.getAttribute('aria-live');
    return live === 'polite' ? 'status' : live === 'assertive' ? 'alert' : undefined;
  }

  function valueOf(el: Element, role: string): string | undefined {
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

  /** Places read during one walk or resolve (a gone element's is compared with each new one alike). */
  let places: Map<Element, string> | undefined;

  /** The words around an element: those of its nearest ancestor that says more than it does (a row, a card, a list item). */
  function placeOf(el: Element): string {
    const known = places?.get(el);
    if (known !== undefined) return known;
    const place = readPlace(el);
    places?.set(el, place);
    return place;
  }

  function readPlace(el: Element): string {
    // In a record (a table row, a list item, an option): the record's words, all of them (up to
    // PLACE_MAX). Rows alike but for one cell stay apart, and a row sorted elsewhere keeps them.
    for (let at = parentOf(el), i = 0; at && i < 10; at = parentOf(at), i++)
      if (isRecord(at)) return `${WHOLE}${at.localName} ${plainText(at, PLACE_MAX)}`;
    const own = plainText(el, PLACE_MAX);
    let child = el;
    for (let i = 0; i < 8; i++) {
      const at = parentOf(child);
      if (!at) return i === 0 ? TAKEN_OUT : '';
      const around = plainText(at, PLACE_MAX + 1);
      if (around && around !== own) {
        // A region (a card, a message, a toast, a side bar): its first words name it — a count
        // or a label applied further in is no move. A region titled by a heading is named by
        // its title and what it says besides what is acted on in it: a side bar's "Labels" is
        // the same with a label's count changed or its button's words ("Create label", then
        // "Save label").
        if (around.length <= PLACE_MAX)
          return `${NAMED}${at.localName} ${titled(el, at, around) ?? plainText(at, FIRST_WORDS)}`;
        // A long list of what is not a record: the element's own block, with the blocks beside it.
        const beside = (sibling: Element | null) => (sibling ? plainText(sibling, FIRST_WORDS) : '');
        return `${WHOLE}${at.localName} ‹${beside(child.previousElementSibling)}› ‹${beside(child.nextElementSibling)}› ${plainText(child, PLACE_MAX)}`;
      }
      child = at;
    }
    return '';
  }

  /** Buttons: what is acted on in a region, not what names it. */
  const BUTTONS = 'button, [role="button"], [role="menuitem"], [role="tab"]';
  /** Links: one link beside another is no part of its place (its own words name it). */
  const LINKS = 'a, [role="link"]';
  const ACTED_ON = `${LINKS}, ${BUTTONS}`;

  /**
   * A region that opens with a heading: its title, then its words outside that title and outside
   * what is acted on there (a count on a label's link is no move, nor a button's words: "Create
   * label", then "Save label"); undefined for a region without one (its first words name it). A
   * link's own words name it, so links leave its place; for anything else (a "Delete" that names
   * nothing) the links' words stay, counts aside: a card titled alike whose link now says
   * another thing is another card, and its button's old ref is stale.
   */
  function titled(el: Element, region: Element, around: string): string | undefined {
    const heading = region.querySelector('h1, h2, h3, h4, h5, h6, [role="heading"]');
    if (!heading) return undefined;
    const title = plainText(heading, FIRST_WORDS);
    if (!title || !around.startsWith(title)) return undefined;
    const rest = plainText(region, FIRST_WORDS, (n) => n === heading || n.matches(ACTED_ON));
    if (el.matches(LINKS)) return `‹${title}› ${rest}`;
    let links = '';
    for (const link of region.querySelectorAll(LINKS)) {
      if (links.length > FIRST_WORDS) break;
      links += ` ${plainText(link, FIRST_WORDS)}`;
    }
    return `‹${title}› ${rest} ‹${links.replace(/\d+/g, '#').trim().slice(0, FIRST_WORDS)}›`;
  }

  /**
   * A place read whole (a record's words, a block with its neighbours): elements alike there are
   * alike to a person, so several take the old refs in page order. A place named only by its
   * first words (a region) is not: two alike there (two Edit buttons of one card) keep their
   * refs only one by one.
   */
  const WHOLE = 'W ';
  const NAMED = 'N ';

  const parentOf = (el: Element): Element | null =>
    el.parentElement ?? (el.parentNode as ShadowRoot | null)?.host ?? null;

  /** A table row, a list item, an option, a tree item: one record of a list, whole in its words. */
  function isRecord(el: Element): boolean {
    const tag = el.localName;
    if (tag === 'tr' || tag === 'li') return true;
    const role = el.getAttribute('role');
    return role === 'row' || role === 'listitem' || role === 'option' || role === 'treeitem';
  }

  /**
   * The place of an element taken out of the page on its own (a page that sets innerHTML takes
   * out its container's children one by one): nothing around it is left to read, so it is heir
   * only to an element alike after the same element's words as it stood after when given its
   * ref (besideThen), and only one.
   */
  const TAKEN_OUT = '\u0001taken out';

  /**
   * An element's text nodes, squashed, up to `max` (controls inside left out, as in names, and
   * what `leaveOut` says): read alike in a document and in a subtree taken out of it.
   */
  function plainText(root: Element, max: number, leaveOut?: (el: Element) => boolean): string {
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

  /** Refs whose element is gone, by role and name: what a walk may give to their rebuilt elements. */
  type Orphans = Map<string, Array<[string, Element]>>;
  /**
   * During a walk: the gone refs, and the groups of heirs. A group is the gone elements of one
   * role and name in one place and the new elements alike there; when there are as many of each,
   * each new one takes the ref of the gone one in the same order (rows alike, rebuilt alike),
   * and otherwise none does (one of them came or went: which, nobody can tell).
   */
  interface HeirGroup {
    olds: Array<[string, Element]>;
    news: Array<[string, Element]>;
  }
  let heirs: { orphans: Orphans; groups: Map<string, HeirGroup> } | undefined;

  function takeOrphans(): Orphans {
    const out: Orphans = new Map();
    for (const [ref, entry] of reg.byId) {
      const el = entry.el.deref();
      if (el && el.isConnected) continue;
      reg.byId.delete(ref);
      if (!el) continue;
      const key = `${entry.role}\u0000${entry.name}`;
      const list = out.get(key);
      if (list) list.push([ref, el]);
      else out.set(key, [[ref, el]]);
    }
    return out;
  }

  /** The group a new element of `key` joins, if gone elements alike were in its place (or taken out on their own). */
  function groupOf(el: Element, key: string): HeirGroup | undefined {
    const list = heirs?.orphans.get(key);
    if (!heirs || !list) return undefined;
    const place = placeOf(el);
    // Taken out on its own: the one before it then and now say where it stood.
    const before = besideThen(el, true);
    for (const at of [place, `${TAKEN_OUT}${before}`]) {
      const claim = `${key}\u0000${at}`;
      let group = heirs.groups.get(claim);
      if (!group) {
        const olds = list.filter(([, old]) =>
          at === place ? placeOf(old) === at : placeOf(old) === TAKEN_OUT && besideThen(old, false) === before,
        );
        if (olds.length === 0) continue;
        for (const old of olds) list.splice(list.indexOf(old), 1);
        heirs.groups.set(claim, (group = { olds, news: [] }));
      }
      return group;
    }
    return undefined;
  }

  /**
   * The words of the element before `el`: now (in the page), or then (when it was given its ref);
   * '' for the first, undefined when not known (then nothing matches it).
   */
  function besideThen(el: Element, now: boolean): string | undefined {
    const prev = now ? el.previousElementSibling : reg.prevOf.get(el);
    if (prev === undefined) return undefined;
    return prev === null ? '' : `‹${plainText(prev, FIRST_WORDS)}›`;
  }

  /** The ref for `el`, kept while its role and name stay what they were; a new one otherwise. */
  function refFor(el: Element, role: string, name: string, counter: { next: number }): string {
    const known = reg.idOf.get(el);
    const entry = known !== undefined ? reg.byId.get(known) : undefined;
    if (known !== undefined && entry && entry.role === role && entry.name === name) return known;
    if (known !== undefined) reg.byId.delete(known);
    const ref = `e${counter.next++}`;
    reg.idOf.set(el, ref);
    reg.byId.set(ref, { el: new WeakRef(el), role, name });
    reg.prevOf.set(el, el.previousElementSibling);
    // Maybe heir to a gone one: its ref is settled once the walk has seen every one alike.
    groupOf(el, `${role}\u0000${name}`)?.news.push([ref, el]);
    return ref;
  }

  /**
   * Gone elements alike, in the order they stood in the page (they were taken out together, so
   * they still share a tree); undefined when that cannot be told (taken out one by one).
   */
  function inPageOrder(olds: Array<[string, Element]>): Array<[string, Element]> | undefined {
    if (olds.length < 2) return olds;
    const [, first] = olds[0]!;
    if (olds.some(([, el]) => first.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_DISCONNECTED))
      return undefined;
    return [...olds].sort(([, a], [, b]) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }

  /** After a walk: each group of as many heirs as gone elements takes their refs, in order. */
  function settleHeirs(result: WalkResult): void {
    const taken = new Map<string, string>();
    for (const [claim, { olds, news }] of heirs?.groups ?? []) {
      const alike = olds.length === news.length && (olds.length === 1 || !claim.includes(`\u0000${NAMED}`));
      const ordered = alike ? inPageOrder(olds) : undefined;
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
    for (const shown of result.refs) shown[0] = taken.get(shown[0]) ?? shown[0];
  }

  /**
   * A ref whose element is gone since the last walk (a re-render before the action), given to
   * the element now in the document that is the same to a person, as a walk would (groupOf).
   */
  function rebind(ref: string, entry: RegistryEntry): Element | undefined {
    const old = entry.el.deref();
    if (!old) return undefined;
    const candidates: Element[] = [];
    for (const el of document.querySelectorAll(old.localName)) {
      const mine = reg.idOf.get(el);
      if (mine !== undefined && mine !== ref && reg.byId.get(mine)?.el.deref() === el) continue;
      const role = roleOf(el);
      const clicks = () =>
        clicksLike(el, style(el), el.hasAttribute('tabindex') && Number(el.getAttribute('tabindex')) >= 0);
      const shown = entry.role === 'clickable' && PLAIN.has(role) && clicks() ? 'clickable' : role;
      if (shown === entry.role && nameOf(el, shown) === entry.name) candidates.push(el);
    }
    // The new ones alike in the old one's place (in the page, for one taken out on its own); as
    // many as the gone ones alike there, the one in the same order is its heir.
    const place = placeOf(old);
    const before = besideThen(old, false);
    const news =
      place === TAKEN_OUT
        ? candidates.filter((el) => before !== undefined && besideThen(el, true) === before)
        : candidates.filter((el) => placeOf(el) === place);
    const olds: Array<[string, Element]> = [];
    for (const [other, was] of reg.byId) {
      const gone = was.el.deref();
      if (was.role === entry.role && was.name === entry.name && gone && !gone.isConnected && placeOf(gone) === place)
        olds.push([other, gone]);
    }
    const alike = news.length === olds.length && (olds.length === 1 || !place.startsWith(NAMED));
    const ordered = alike ? inPageOrder(olds) : undefined;
    const at = ordered ? ordered.findIndex(([other]) => other === ref) : -1;
    if (at < 0) return undefined;
    const heir = news[at]!;
    reg.idOf.set(heir, ref);
    reg.byId.set(ref, { el: new WeakRef(heir), role: entry.role, name: entry.name });
    reg.prevOf.set(heir, heir.previousElementSibling);
    return heir;
  }

  function walk(root: Node, nextRef: number, textMax: number): WalkResult {
    const lines: WalkLine[] = [];
    const refs: Array<[string, string, string]> = [];
    const counter = { next: nextRef };
    let pending = '';
    let pendingDepth = 0;
    const flush = () => {
      const text = squash(pending);
      if (text) lines.push({ d: pendingDepth, s: `text: ${quote(cap(text, textMax))}` });
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

  switch (req.kind) {
    case 'prune':
      return prune(req.from, req.copy);
    case 'walk': {
      const root = req.selector ? document.querySelector(req.selector) : (document.body ?? document.documentElement);
      if (!root)
        return JSON.stringify({ lines: [], nextRef: req.nextRef, refs: [], missing: true } satisfies WalkResult);
      // Refs whose element is gone: a rebuilt element the same to a person takes one (refFor);
      // the rest can only be stale now, and are forgotten.
      const orphans = takeOrphans();
      heirs = orphans.size > 0 ? { orphans, groups: new Map() } : undefined;
      places = new Map();
      try {
        const result = walk(root, req.nextRef, req.textMax);
        settleHeirs(result);
        // One string back: Playwright's structured serialisation of thousands of small objects
        // costs several times the walk itself (measured on a long article: 50 ms against 15).
        return JSON.stringify(result);
      } finally {
        heirs = undefined;
        places = undefined;
      }
    }
    case 'resolve': {
      const entry = reg.byId.get(req.ref);
      if (!entry) return 'gone';
      let el = entry.el.deref();
      // Rebuilt since the snapshot (a re-render): the one element the same to a person, or gone.
      if (!el || !el.isConnected) {
        places = new Map();
        el = rebind(req.ref, entry);
        places = undefined;
      }
      if (!el) return 'gone';
      const role = roleOf(el);
      const shownRole = entry.role === 'clickable' && PLAIN.has(role) ? 'clickable' : role;
      if (shownRole !== entry.role || nameOf(el, shownRole) !== entry.name) return 'changed';
      return el;
    }
    case 'messages': {
      // What a page says about how things went, without a walk: its status and alert messages
      // (outermost only) and the fields it refuses, as the snapshot's lines say them.
      const out: string[] = [];
      const taken: Element[] = [];
      for (const el of document.querySelectorAll('[role], [aria-live], output')) {
        const kind = messageRole(el, roleOf(el));
        if (!kind || taken.some((t) => t.contains(el)) || !el.checkVisibility({ visibilityProperty: true })) continue;
        taken.push(el);
        const said = textOf(el, MESSAGE_MAX, false, undefined, true);
        if (said) out.push(`${kind} ${quote(cap(said, MESSAGE_MAX))}`);
      }
      for (const el of document.querySelectorAll('input, select, textarea, [aria-invalid]')) {
        const invalid = invalidMessage(el);
        if (invalid === undefined || !el.checkVisibility()) continue;
        const role = roleOf(el);
        const name = nameOf(el, role);
        out.push(
          `${role}${name ? ` ${quote(name)}` : ''} ${invalid ? `[invalid=${quote(cap(invalid, 150))}]` : '[invalid]'}`,
        );
      }
      return out.slice(0, 10);
    }
    case 'boxes': {
      const boxes: Array<[string, number, number, number, number]> = [];
      for (const ref of req.refs) {
        const el = reg.byId.get(ref)?.el.deref();
        if (!el || !el.isConnected) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) boxes.push([ref, r.x, r.y, r.width, r.height]);
      }
      return boxes;
    }
  }
}
