// What an action answers (ActResult) and the line it is said in, shared by the element actions
// (act-operations.ts) and the page's own (page-act-operations.ts): the action's line, where it
// led when it loaded another page, then the page when a snapshot was asked for.

import { flagged } from './instruction-lines';
import { pageTitle, pageWords } from './page-fence';
import { pageName, snapshotText, type SnapshotResult } from './page-operations';

export interface ScrollPosition {
  x: number;
  y: number;
  maxX: number;
  maxY: number;
  /** Reached the end in the direction scrolled. */
  atEnd: boolean;
}

export interface ActResult {
  ok: true;
  kind: string;
  targetId: string;
  /** null when the action closed the page. */
  url: string | null;
  /** With `snapshot`, or when the action loaded another page: the page's title then. */
  title?: string;
  /** The action loaded another document in the tab (a submit, a link). */
  navigated?: true;
  /** With navigated: the URL the tab was on before. */
  from?: string;
  /** With navigated and no `snapshot`: what the new page says (status and alert messages, refused fields), as snapshot lines. */
  messages?: string[];
  /**
   * On the same document, with no view or a brief one: the words the action made appear on the
   * page (a total with its label, a count, a status line), each with its block's words, up to three.
   */
  changed?: string[];
  /** How many more texts appeared than `changed` says. */
  changedMore?: number;
  /**
   * The action switched the view (so many texts appeared, or one view went for another): none of
   * its words is said but what the page announced (a status, an alert); look to see what it shows.
   */
  changedView?: true;
  /** The bound the action ran under (after clamping). */
  timeoutMs: number;
  /** With `snapshot`: the page as the action left it. */
  snapshot?: Omit<SnapshotResult, 'targetId' | 'url' | 'title'>;
  scroll?: ScrollPosition;
  selected?: string[];
  filled?: number;
  viewport?: { width: number; height: number };
  /** evaluate: what the function returned. */
  result?: unknown;
}

/** The line an action answers, then the page after it when asked for. */
export const answer =
  <I>(line: (result: ActResult, input: I) => string) =>
  (result: ActResult, input: I): string => {
    // Where the action led, in a line, when it loaded another page; then the view asked for.
    const said = [line(result, input)];
    if (result.navigated)
      said.push(
        `now on: ${pageTitle(pageName(result.title, result.url && result.from ? urlFrom(result.from, result.url) : result.url) || (result.url ?? ''))}`,
        ...(result.messages?.length ? [pageWords(result.messages.join('\n'))] : []),
      );
    // What appeared, said as a diff says text that came.
    // A line that reads as an instruction to an AI is flagged, as a snapshot's is (instruction-lines.ts).
    const changed = (result.changed ?? []).map((words) => flagged(`+ ${JSON.stringify(words)}`));
    if (result.changedMore && !result.changedView) changed.push(`+ … and ${result.changedMore} more`);
    if (changed.length) said.push(pageWords(changed.join('\n')));
    // Our own words, no page's: outside the fence.
    if (result.changedMore && result.changedView)
      said.push(`~ ${result.changedMore}${changed.length ? ' more' : ''} texts changed: another view`);
    if (result.snapshot) said.push(snapshotText(result.snapshot, false));
    return said.join('\n');
  };

/**
 * Where a page is, said from where the agent was: nothing when it is the same URL (a form posted
 * back), its path on the same site, the whole URL elsewhere.
 */
export function urlFrom(from: string, to: string): string {
  if (from === to) return '';
  try {
    const [a, b] = [new URL(from), new URL(to)];
    return a.origin === b.origin && a.origin !== 'null' ? `${b.pathname}${b.search}${b.hash}` : to;
  } catch {
    return to;
  }
}

/** A positional argument that takes a ref. */
export const on = (field: string, value = 'REF') => ({ field, value });
