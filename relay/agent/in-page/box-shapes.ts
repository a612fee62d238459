/// <reference lib="dom" />
// Pure readings of a computed style or a box that tell whether something is drawn (part of the
// walker bundle): a transform, a scale, a filter, a clip-path, insets that meet, a box inside
// another, a moved box off the page. No state: unseen-rules.ts asks them with its own caches.

export type Colour = [number, number, number, number];
export const luminance = ([r, g, b]: Colour) => {
  const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
/** Whether the moved box is where no person sees it: out of the window (fixed) or of the page, where no scrolling reaches. */
export const offPage = (el: Element, fixed: boolean): boolean => {
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
export const transformDraws = (transform: string): 'nothing' | 'moved' | 'drawn' => {
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
export type Tuple6 = [number, number, number, number, number, number];
/** The `scale` property ('0', '0.05 1', '1 1 0'): hides when x or y is a tenth or less. */
export const scaleHides = (scale: string): boolean => {
  const [x, y = x] = scale.split(' ').map((v) => parseFloat(v) / (v.endsWith('%') ? 100 : 1));
  return Math.abs(x!) < 0.1 || Math.abs(y!) < 0.1;
};
/**
 * A computed filter: opacity(0) (or several that multiply below 0.05), or a blur that leaves the
 * words a smudge (a quarter of the font size, 4px at least: 16px text under blur(4px) is not
 * read, nor a 40px headline under blur(10px)). A drop shadow or a light blur is drawn.
 */
export const filterHides = (st: CSSStyleDeclaration, filter: string): boolean => {
  let alpha = 1;
  for (const [, fn, arg] of filter.matchAll(/\b(opacity|blur)\(([^)]*)\)/g)) {
    const value = parseFloat(arg!) / (arg!.endsWith('%') ? 100 : 1);
    if (fn === 'opacity') alpha *= value;
    else if (value >= Math.max(4, parseFloat(st.fontSize) / 4)) return true;
  }
  return alpha < 0.05;
};
/**
 * A computed clip-path that leaves nothing: an inset whose sides meet (inset(50%),
 * inset(0 0 100% 0); rect() and xywh() compute to inset()), a circle or ellipse of radius 0, a
 * polygon of no area (every point on one line). Its reference box is taken as the border box.
 */
export const clipPathHides = (el: Element, clipPath: string): boolean => {
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
export const meets = (a: string, b: string, size: () => number): boolean => {
  if (a.endsWith('%') && b.endsWith('%')) return parseFloat(a) + parseFloat(b) >= 100;
  if (!(parseFloat(a) > 0 || parseFloat(b) > 0)) return false; // inset(0 round 6px): rounded corners
  const whole = size();
  if (!(whole > 0)) return false;
  const px = (v: string) => (v.endsWith('%') ? (parseFloat(v) / 100) * whole : parseFloat(v));
  return px(a) + px(b) >= whole;
};
/** Whether the box `inner` (not empty) lies within `outer`, to half a pixel. */
export const within = (inner: DOMRect, outer: DOMRect): boolean =>
  inner.width > 0 &&
  inner.height > 0 &&
  outer.left <= inner.left + 0.5 &&
  outer.top <= inner.top + 0.5 &&
  outer.right >= inner.right - 0.5 &&
  outer.bottom >= inner.bottom - 0.5;
/** Whether a person (or the keyboard) can reach the element in an unseen box: it stays in the snapshot. */
export const takesFocus = (el: Element): boolean =>
  (el as HTMLElement).tabIndex >= 0 &&
  !(el as HTMLInputElement).disabled &&
  !(el.localName === 'input' && (el as HTMLInputElement).type === 'hidden');
