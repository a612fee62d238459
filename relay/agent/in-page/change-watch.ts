/// <reference lib="dom" />
// What an action changed on the page, in a person's words (part of the walker bundle): a watch
// started just before the action keeps what the page added, took out and rewrote; read after it,
// the words that appeared and were not there before — each said with its block's words (a total
// with its label, a count with its badge's), so an answer says how the action ended wherever on
// the page that is. A re-render that writes the same words again says nothing.

import { SKIPPED, cap, squash } from './walker-words';
import type { UnseenRules } from './unseen-rules';

/** The watch one frame's registry holds between an action's start and its answer. */
export interface ChangeWatch {
  observer: MutationObserver;
  records: MutationRecord[];
  /** The page changed more than is kept: what came is read from what is kept. */
  over: boolean;
}

/** Records kept at most (a page rebuilt whole writes one per element). */
const RECORDS_MAX = 50_000;
/** Blocks an answer names at most, and the words of each. */
const BLOCKS_MAX = 3;
const WORDS_MAX = 100;
/** More texts appeared than this: the view changed, and none of them is said (their count is). */
const VIEW_MIN = 8;
/** How far up a changed text's block is looked for (a text in a long inline run says itself). */
const BLOCK_DEPTH = 6;

/** Starts watching the document (a watch left by an earlier action is dropped). */
export function startWatch(previous: ChangeWatch | undefined): ChangeWatch {
  previous?.observer.disconnect();
  const watch: ChangeWatch = { observer: undefined as unknown as MutationObserver, records: [], over: false };
  watch.observer = new MutationObserver((batch) => keep(watch, batch));
  watch.observer.observe(document, {
    subtree: true,
    childList: true,
    characterData: true,
    characterDataOldValue: true,
  });
  return watch;
}

function keep(watch: ChangeWatch, batch: MutationRecord[]): void {
  if (watch.records.length + batch.length > RECORDS_MAX) watch.over = true;
  else watch.records.push(...batch);
}

/** Each text node in `node` (itself, or in its subtree), scripts and styles left out. */
function eachText(node: Node, seen: (text: Text) => void): void {
  if (node.nodeType === Node.TEXT_NODE) return seen(node as Text);
  if (node instanceof Element && SKIPPED.has(node.localName)) return;
  for (let c = node.firstChild; c; c = c.nextSibling) eachText(c, seen);
}

/**
 * Ends the watch and says what appeared: the words of each block (up to BLOCKS_MAX) holding a
 * text that is in the page now, shown, and not one of the texts that went (a re-render writes the
 * same words again).
 */
export function changedWords(watch: ChangeWatch, rules: UnseenRules): ChangedWords {
  keep(watch, watch.observer.takeRecords());
  watch.observer.disconnect();
  const went = new Map<string, number>();
  const gone = (text: string | null) => {
    const words = squash(text ?? '');
    if (words) went.set(words, (went.get(words) ?? 0) + 1);
  };
  const came = new Set<Text>();
  for (const record of watch.records) {
    if (record.type === 'characterData') {
      gone(record.oldValue);
      if (record.target.nodeType === Node.TEXT_NODE) came.add(record.target as Text);
      continue;
    }
    record.removedNodes.forEach((node) => eachText(node, (text) => gone(text.nodeValue)));
    record.addedNodes.forEach((node) => eachText(node, (text) => came.add(text)));
  }
  const out: string[] = [];
  const blocks: Element[] = [];
  // Texts that appeared past the blocks said: the answer counts them, so an agent knows it did not see all.
  let more = 0;
  for (const text of came) {
    const words = squash(text.nodeValue ?? '');
    if (!words || !text.isConnected) continue;
    const again = went.get(words);
    if (again) {
      went.set(words, again - 1);
      continue;
    }
    if (out.length >= BLOCKS_MAX) {
      if (!blocks.some((b) => b.contains(text))) more++;
      continue;
    }
    const block = blockOf(text, rules);
    if (!block || blocks.some((b) => b.contains(block.el) || block.el.contains(b))) continue;
    if (!block.el.checkVisibility({ visibilityProperty: true })) continue;
    blocks.push(block.el);
    out.push(block.words);
  }
  if (watch.over) more = Math.max(more, VIEW_MIN);
  // That many: the action switched the view (an inbox back, another tab's panel): a look says it, not a few of its words.
  return out.length + more > VIEW_MIN ? { words: [], more: out.length + more } : { words: out, more };
}

/** What `changes` answers: the words said, and how many more texts appeared. */
export interface ChangedWords {
  words: string[];
  more: number;
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
    if (i === 0 && !words) return undefined;
    if (words.length > WORDS_MAX) break;
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
function wordsAround(el: Element, text: Text, rules: UnseenRules): string {
  let out = '';
  const visit = (n: Node) => {
    if (out.length > WORDS_MAX) return;
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
  return squash(out);
}

const CELL = 'td, th, [role="cell"], [role="gridcell"]';
/** What does something when acted on (its words are no outcome); with links, what is acted on in a block. */
const DOES = 'button, input, select, textarea, [role="button"], [role="checkbox"], [role="menuitem"], [role="tab"]';
const ACTED_ON = `a[href], [role="link"], ${DOES}`;

/** Elements whose words are their own, said alone (a link's, a button's, a label's). */
const OWN_WORDS = new Set(['a', 'button', 'label', 'summary', 'option', 'li']);
