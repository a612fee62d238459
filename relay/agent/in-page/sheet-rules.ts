/// <reference lib="dom" />
// How far a change can reach by the page's style rules (part of the walker bundle, read by
// walk-reuse.ts): whether a rule on a state (hover, focus, a box checked, :has) or on siblings
// sets something a walk reads. A sheet that cannot be read (another origin's) may hold anything.

/** States a style rule can read that change with no attribute written: a rule on one of them may move anything. */
const STATE = new RegExp(
  ':(hover|focus|focus-within|focus-visible|active|checked|indeterminate|valid|invalid|user-valid|user-invalid|' +
    'placeholder-shown|autofill|target|target-within|popover-open|open|closed|modal|fullscreen|playing|paused|' +
    'in-range|out-of-range|default)(?![\\w-])',
);
/** A rule on what an element holds: any change anywhere may move what it reads. */
const HAS = /:has\(/;
/** States no event or mark follows (a custom element's own states, its definition): a walk reads them whole. */
const UNMARKED = /:state\(|:defined(?![\w-])/;
/** Rules that read an element's siblings or place: a change of one element may move those beside it. */
const SIBLING = /[+~]|:(nth-|first-|last-|only-|empty)/;
/** What a rule must set to change what a walk says (text colours on hover change nothing it shows). */
const SHOWN =
  /^(display|visibility|opacity|content|position|inset|top|left|right|bottom|transform|translate|scale|rotate|clip|mask|-webkit-mask|filter|width|height|min-|max-|overflow|font-size|text-indent|z-index|zoom|content-visibility|block-size|inline-size)/;

/** What the style sheets hold that decides how far a change reaches. */
export interface SheetRules {
  /** A rule on a state (hover, focus, checked) sets what a walk reads. */
  state: boolean;
  /** A rule on siblings or places sets what a walk reads. */
  sibling: boolean;
  /** A rule on what an element holds (:has) sets what a walk reads. */
  has: boolean;
  /** A rule on a state nothing marks (:state(), :defined) sets what a walk reads. */
  never: boolean;
}

/** What these sheets hold (each rule read once; nested rules and imports too). */
export function readSheets(sheets: CSSStyleSheet[]): SheetRules {
  const found: SheetRules = { state: false, sibling: false, has: false, never: false };
  for (const sheet of sheets) readSheet(sheet, found);
  return found;
}

function readSheet(sheet: CSSStyleSheet, found: SheetRules): void {
  let rules: CSSRuleList;
  try {
    rules = sheet.cssRules;
  } catch {
    // Another origin's sheet: it may hold rules on states and siblings, as most pages' do. A
    // :has() or :defined there is not known (a diff's walk may miss what one moves: walk-reuse.ts).
    found.state = found.sibling = true;
    return;
  }
  readList(rules, found);
}

function readList(rules: CSSRuleList, found: SheetRules): void {
  for (const rule of rules) {
    if (found.state && found.sibling && found.has && found.never) return;
    if (rule instanceof CSSImportRule) {
      if (rule.styleSheet) readSheet(rule.styleSheet, found);
      else found.state = found.sibling = true;
      continue;
    }
    if (rule instanceof CSSStyleRule) {
      const selector = rule.selectorText;
      const kinds = {
        state: !found.state && STATE.test(selector),
        sibling: !found.sibling && SIBLING.test(selector),
        has: !found.has && HAS.test(selector),
        never: !found.never && UNMARKED.test(selector),
      };
      if ((kinds.state || kinds.sibling || kinds.has || kinds.never) && setsShown(rule.style))
        for (const kind of ['state', 'sibling', 'has', 'never'] as const) if (kinds[kind]) found[kind] = true;
    }
    // Nested rules (@media, @supports, @layer, @container, CSS nesting) are read the same way.
    const inner = (rule as CSSGroupingRule).cssRules;
    if (inner && inner.length > 0) readList(inner, found);
  }
}

function setsShown(style: CSSStyleDeclaration): boolean {
  for (let i = 0; i < style.length; i++) if (SHOWN.test(style[i]!)) return true;
  return false;
}
