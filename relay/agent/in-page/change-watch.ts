/// <reference lib="dom" />
// What an action changed on the page, in a person's words (part of the walker bundle): a watch
// started just before the action keeps what the page added, took out and rewrote; read after it,
// the words that appeared and were not there before — each said with its block's words (a total
// with its label, a count with its badge's), so an answer says how the action ended wherever on
// the page that is. A re-render that writes the same words again says nothing.

import { SKIPPED, cap, squash } from './walker-words';
import type { UnseenRules } from './unseen-rules';

/** A watch a frame's registry holds between an action's start and its answer (one per action: calls may overlap). */
export interface ChangeWatch {
  observer: MutationObserver;
  records: MutationRecord[];
  /** How many records the page wrote; past RECORDS_MAX none is kept (the view changed whole). */
  seen: number;
  /** Ends it when nobody asks for what it saw (a call that ran out of its bound first). */
  timer: ReturnType<typeof setTimeout>;
}

/** How long a watch nobody asked for keeps watching. */
const WATCH_MS = 60_000;
let nextWatch = 1;

/** Records kept at most (a page rebuilt whole writes one per element). */
const RECORDS_MAX = 50_000;
/** Blocks an answer names at most, and the words of each. */
const BLOCKS_MAX = 3;
const WORDS_MAX = 100;
/** More texts appeared than this: the view changed, and none of them is said (their count is). */
const VIEW_MIN = 8;
/**
 * As many places appeared in elements put in, and as many texts went for good with elements
 * taken out: the action swapped one view for
 * another (a mail's page for the inbox, one tab's panel for the next); the first few words of
 * the new view in page order would be arbitrary, so a count says it, and a look shows it.
 */
const SWAP_MIN = 4;
/** How far up a changed text's block is looked for (a text in a long inline run says itself). */
const BLOCK_DEPTH = 6;

/** Starts watching the document (its light DOM); answers the watch's id, for `endWatch`. */
export function startWatch(watches: Map<number, ChangeWatch>): number {
  const id = nextWatch++;
  const watch: ChangeWatch = {
    observer: new MutationObserver((batch) => keep(watch, batch)),
    records: [],
    seen: 0,
    timer: setTimeout(() => endWatch(watches, id), WATCH_MS),
  };
  watch.observer.observe(document, {
    subtree: true,
    childList: true,
    characterData: true,
    characterDataOldValue: true,
  });
  watches.set(id, watch);
  return id;
}

/** Ends a watch: what it kept, or undefined when it ended already. */
export function endWatch(watches: Map<number, ChangeWatch>, id: number): ChangeWatch | undefined {
  const watch = watches.get(id);
  if (!watch) return undefined;
  watches.delete(id);
  clearTimeout(watch.timer);
  keep(watch, watch.observer.takeRecords());
  watch.observer.disconnect();
  return watch;
}

function keep(watch: ChangeWatch, batch: MutationRecord[]): void {
  watch.seen += batch.length;
  if (watch.seen <= RECORDS_MAX) watch.records.push(...batch);
  else if (watch.records.length > 0) {
    // Past the bound the view changed whole: nothing it took out is held for a count.
    watch.records = [];
    watch.observer.disconnect();
  }
}

/** Each text node in `node` (itself, or in its subtree), scripts and styles left out. */
function eachText(node: Node, seen: (text: Text) => void): void {
  if (node.nodeType === Node.TEXT_NODE) return seen(node as Text);
  if (node instanceof Element && SKIPPED.has(node.localName)) return;
  for (let c = node.firstChild; c; c = c.nextSibling) eachText(c, seen);
}

/** What the records say: the texts that went (by words) and those that came. */
interface Traffic {
  went: Map<string, number>;
  came: Set<Text>;
  /** Of those, the texts that went inside an element taken out (a view's), by words. */
  wentWithElements: Map<string, number>;
  /** The texts that came inside an element put in (a new view's, not a value written in place). */
  cameWithElements: Set<Text>;
}

function trafficOf(watch: ChangeWatch): Traffic {
  const t: Traffic = {
    went: new Map(),
    came: new Set(),
    wentWithElements: new Map(),
    cameWithElements: new Set(),
  };
  const gone = (text: string | null, withElement: boolean) => {
    const words = squash(text ?? '');
    if (!words) return;
    t.went.set(words, (t.went.get(words) ?? 0) + 1);
    if (!withElement) return;
    t.wentWithElements.set(words, (t.wentWithElements.get(words) ?? 0) + 1);
  };
  for (const record of watch.records) {
    if (record.type === 'characterData') {
      gone(record.oldValue, false);
      if (record.target.nodeType === Node.TEXT_NODE) t.came.add(record.target as Text);
      continue;
    }
    record.removedNodes.forEach((node) => {
      const withElement = node.nodeType === Node.ELEMENT_NODE;
      eachText(node, (text) => gone(text.nodeValue, withElement));
    });
    record.addedNodes.forEach((node) => {
      const withElement = node.nodeType === Node.ELEMENT_NODE;
      eachText(node, (text) => {
        t.came.add(text);
        if (withElement) t.cameWithElements.add(text);
      });
    });
  }
  return t;
}

/** A count's step down in a map of counts; whether there was one to take. */
function takeOne(counts: Map<string, number>, words: string): boolean {
  const left = counts.get(words);
  if (!left) return false;
  counts.set(words, left - 1);
  return true;
}

/**
 * Ends the watch and says what appeared: the words of each block (up to BLOCKS_MAX) holding a
 * text that is in the page now, shown, and not one of the texts that went (a re-render writes the
 * same words again); what the page announces (a status, an alert) up to BLOCKS_MAX more.
 */
export function changedWords(watch: ChangeWatch, rules: UnseenRules): ChangedWords {
  if (watch.seen > RECORDS_MAX) return { words: [], more: watch.seen, view: true };
  const { went, came, wentWithElements, cameWithElements } = trafficOf(watch);
  const out: string[] = [];
  const blocks: Element[] = [];
  /** Whether each block said was announced by the page, and whether it came in an element put in. */
  const announced: boolean[] = [];
  let told = 0;
  let newPlaces = 0;
  // Lines that appeared past the blocks said (a row once, whatever its cells): the answer counts
  // them, so an agent knows it did not see all.
  const more = new Set<Element>();
  for (const text of came) {
    const words = squash(text.nodeValue ?? '');
    if (!words || !text.isConnected) continue;
    if (takeOne(went, words)) {
      takeOne(wentWithElements, words);
      continue;
    }
    const said = !!text.parentElement?.closest(ANNOUNCED);
    // What the page announces is said past the bound too (a toast after the rows that came), up to a bound of its own.
    if (out.length >= BLOCKS_MAX && !(said && told < BLOCKS_MAX)) {
      const at = text.parentElement;
      if (at && !blocks.some((b) => b.contains(text)) && !at.closest(DOES) && shownText(at, rules)) {
        const line = at.closest(LINE) ?? at;
        if (!more.has(line) && cameWithElements.has(text)) newPlaces++;
        more.add(line);
      }
      continue;
    }
    const block = blockOf(text, rules);
    if (!block || blocks.some((b) => b.contains(block.el) || block.el.contains(b))) continue;
    if (!block.el.checkVisibility({ visibilityProperty: true })) continue;
    blocks.push(block.el);
    out.push(block.words);
    announced.push(said);
    if (said) told++;
    if (cameWithElements.has(text)) newPlaces++;
  }
  // That many, or a view taken out for one put in (an inbox back, another tab's panel): the action
  // switched the view, and a look says it, not a few of its words — only what the page announced
  // (a status, an alert: "Archived") is said even then. Values written in place are no new view.
  const places = out.length + more.size;
  let goneForGood = 0;
  for (const left of wentWithElements.values()) goneForGood += left;
  const swapped = newPlaces >= SWAP_MIN && goneForGood >= SWAP_MIN;
  if (places <= VIEW_MIN && !swapped) return { words: out, more: more.size };
  const words = out.filter((_, i) => announced[i]);
  return { words, more: places - words.length, view: true };
}

/** What `changes` answers: the words said, how many more texts appeared, and whether the view changed whole. */
export interface ChangedWords {
  words: string[];
  more: number;
  view?: true;
}

/**
 * The words a changed text is said with: those of the nearest element around it laid out as a
 * block (its line on the page: "Total: £30.00"; a table's row), a link's (its words are its own),
 * or — where the block says much more — the largest element around it that says little (a
 * badge's "Cart (3)" in a long header). None for a button's or a field's words (what it does).
 */
function blockOf(text: Text, rules: UnseenRules): { el: Element; words: string } | undefined {
  const parent = text.parentElement;
  if (!parent || SKIPPED.has(parent.localName)) return undefined;
  let best: { el: Element; words: string } | undefined;
  let at: Element | null = parent;
  for (let i = 0; at && i < BLOCK_DEPTH; at = at.parentElement, i++) {
    // A button's or a field's words say what it does, not how an action ended.
    if (at.matches(DOES)) return undefined;
    const words = wordsAround(at, text, rules);
    // Its own element says nothing a person sees: neither does the text. A long one: the text alone.
    if (i === 0 && words === '') return undefined;
    if (words === undefined) break;
    best = { el: at, words };
    // A table's cell is said with its row (a mail's sender, subject and date: one line).
    if (at.matches(CELL)) continue;
    const display = rules.style(at).display;
    if (OWN_WORDS.has(at.localName) || at.hasAttribute('role') || (display !== 'inline' && display !== 'contents'))
      break;
  }
  return best ?? { el: parent, words: cap(squash(text.nodeValue ?? ''), WORDS_MAX) };
}

/**
 * What a person reads in `el` (up to WORDS_MAX + 1), leaving out what is acted on there (a row's
 * Delete, a card's links: not what the action changed) unless the changed text is in it.
 */
function wordsAround(el: Element, text: Text, rules: UnseenRules): string | undefined {
  let out = '';
  let long = false;
  const visit = (n: Node) => {
    // Read raw (indentation and all) up to a bound, then squashed: past WORDS_MAX it says too much.
    if (long || (long = out.length > WORDS_MAX * 4)) return;
    if (n.nodeType === Node.TEXT_NODE) {
      if (n.parentElement && !rules.textUnseen(n.parentElement)) out += n.nodeValue ?? '';
      return;
    }
    if (!(n instanceof Element) || SKIPPED.has(n.localName) || (n.matches(ACTED_ON) && !n.contains(text))) return;
    const display = rules.style(n).display;
    if (display === 'none') return;
    const block = display !== 'inline' && display !== 'contents';
    if (block) out += ' ';
    for (let c = n.firstChild; c; c = c.nextSibling) visit(c);
    if (block) out += ' ';
  };
  visit(el);
  const words = squash(out);
  return long || words.length > WORDS_MAX ? undefined : words;
}

/** Whether a person sees an element's own text. */
const shownText = (el: Element, rules: UnseenRules): boolean =>
  el.checkVisibility({ visibilityProperty: true }) && !rules.textUnseen(el);

/** What a page announces to a person who cannot see it: a status line, an alert, a live region. */
const ANNOUNCED = '[role="status"], [role="alert"], [aria-live]:not([aria-live="off"]), output';
const CELL = 'td, th, [role="cell"], [role="gridcell"]';
/** A line of a list or a table: what appeared in it is counted once. */
const LINE = 'tr, li, [role="row"], [role="listitem"]';
/** What does something when acted on, or is typed into (its words are no outcome); with links, what is acted on in a block. */
const DOES =
  'button, input, select, textarea, [contenteditable]:not([contenteditable="false"]), [role="button"], ' +
  '[role="checkbox"], [role="radio"], [role="switch"], [role="menuitem"], [role="tab"], [role="textbox"], ' +
  '[role="searchbox"], [role="combobox"]';
const ACTED_ON = `a[href], [role="link"], ${DOES}`;

/** Elements whose words are their own, said alone (a link's, a button's, a label's). */
const OWN_WORDS = new Set(['a', 'button', 'label', 'summary', 'option', 'li']);
