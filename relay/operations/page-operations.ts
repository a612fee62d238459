// Operations that read the page or load one: snapshot, navigate, screenshot, content, console,
// pdf. Each entry is the whole definition of its operation (operation.ts says what the parts are).
// Long because each definition holds its own help text, kept beside its schema on purpose.
// Kept whole (under the 400-line cap): the page operations are one group of the MCP tools.

import { z } from 'zod';
import { bad, intIn, openUrl, ref } from './fields';
import { pageTitle, pageWords } from './page-fence';
import { operation } from './operation';
import { actFields, tabFields, type PageView } from './shared-fields';

const SNAPSHOT_FORMATS = ['agent', 'ai', 'role', 'aria'] as const;
export type SnapshotFormat = (typeof SNAPSHOT_FORMATS)[number];
/** A snapshot's bound unless the request sets one: generous, a long article takes a while. */
export const SNAPSHOT_TIMEOUT_MS = 30_000;
/** What a ref stood for when its snapshot was taken. */
export interface RefShown {
  role: string;
  name: string;
  /** The k-th element with the same role and name (left out for the first). */
  nth?: number;
}

export interface SnapshotResult {
  format: SnapshotFormat;
  targetId: string;
  url: string;
  title: string;
  snapshot: string;
  refs: Record<string, RefShown>;
  stats: { chars: number; lines: number; refs: number };
  truncated: boolean;
  /** When cut: the ref to pass as `after` for the rest. */
  next?: string;
  /** `agent` format: this snapshot's id, for a later `since`. */
  id?: string;
  /** With `since`: what changed, counted (the lines are the snapshot text). */
  diff?: { since: string; added: number; removed: number; changed: number };
  /** A brief view: headings and what can be acted on, not the whole page. */
  brief?: true;
}

/**
 * A snapshot as an agent reads it: a line on the page, then the snapshot. `page: false` when the
 * agent knows where it is already (an action that stayed on the page, a load it just asked for).
 */
export function snapshotText(
  snap: Omit<SnapshotResult, 'targetId' | 'url' | 'title'> & { url?: string; title?: string },
  page = true,
): string {
  const head: string[] = [];
  if (page) head.push(`page: ${pageTitle(pageName(snap.title, snap.url))}`);
  // A diff's lines say what changed; its counts only matter when the lines are cut. After an
  // action it is since the agent's last look, whatever that was; asked for, since the id given.
  const since = snap.diff ? `changes${page ? ` since ${snap.diff.since}` : ''}` : '';
  if (snap.diff && snap.snapshot === '') return [...head, `${since}: none`].join(' · ');
  // After an action the +, - and ~ of the lines say they are changes: a header only for counts of a cut diff.
  if (snap.diff) {
    if (page || snap.truncated) head.push(`${since}:${snap.truncated ? ` ${counted(snap.diff)}` : ''}`);
  } else if (snap.brief) head.push('brief view');
  else if (snap.id) head.push(`snapshot ${snap.id}`);
  const body = snap.snapshot === '' ? '(nothing to show)' : pageWords(snap.snapshot);
  const cut =
    snap.truncated && !snap.next && snap.format !== 'agent' ? `\n(cut at ${snap.stats.chars} characters)` : '';
  return `${head.length ? `${head.join(' · ')}\n` : ''}${body}${cut}`;
}

/** A page in a line: its title and URL (either may be missing). */
export function pageName(title: string | undefined, url: string | undefined | null): string {
  return [title, url].filter(Boolean).join(' — ');
}

/** A diff's counts, the zero ones left out. */
function counted(diff: { added: number; removed: number; changed: number }): string {
  return [
    diff.changed && `${diff.changed} changed`,
    diff.added && `${diff.added} added`,
    diff.removed && `${diff.removed} removed`,
  ]
    .filter(Boolean)
    .join(', ');
}

export const snapshot = operation<SnapshotResult>()({
  name: 'snapshot',
  summary: 'read the page: every actionable element with a ref (e1, e2, …), headings, landmarks and condensed text',
  details:
    'The default format, agent: every visible actionable element with its ref, role, name, value and states (a field the page refuses: [invalid="why"]); headings, landmarks, dialogs, table rows and labelled groups for orientation; status and alert messages (role status/alert, aria-live, output) as one line each; visible text condensed, each line of it in quotes (cut at 100 characters); nothing unnamed and structural; open shadow roots and every iframe (same- and cross-origin) nested below its iframe. ' +
    'maxChars (default 40,000) cuts on a line and says so in the text ("… cut at 40000 characters: N more lines, M more refs; continue with after=e812") and in next; after=<ref> answers what follows that ref, so no ref is dropped unseen. ' +
    'Each agent snapshot has an id (s1, s2, … per tab; the last three of the ten most recent tabs are kept): since=<id> answers only what changed — ~ a line whose element kept its ref but shows something new, + a new line, - a gone one, = a status, alert or refused field said again though unchanged, a list whose rows only moved one ~ line (reordered: N of M rows moved) — with diff: { since, added, removed, changed }; an id no longer kept is snapshot_unknown (400). ' +
    "Other formats: ai (Playwright's AI snapshot, a ref on every element), role (refs only on interactive and named content elements, [nth=k] marks repeats), aria (Chromium's accessibility tree, for debugging). frame=<ref of an iframe> answers its contents alone, with the page's numbering.",
  input: z.object({
    ...tabFields,
    format: z.enum(SNAPSHOT_FORMATS).default('agent').describe('default agent'),
    interactive: z.boolean().default(false).describe('only the elements with refs, flat'),
    compact: z.boolean().default(false).describe('ai/role: lift the children of unnamed structure'),
    depth: intIn(0, 1_000).optional().describe('cut the tree below this depth'),
    limit: intIn(1, 100_000).optional().describe('at most this many lines'),
    maxChars: intIn(100, 10_000_000).optional().describe('cut here (agent: default 40000)'),
    selector: z.string().min(1).optional().describe('only under this CSS selector'),
    frame: ref().optional().describe("only this iframe's contents (its ref)"),
    ref: ref().optional().describe("only this element's subtree"),
    after: ref().optional().describe('the rest of a cut snapshot, after this ref'),
    since: z
      .string()
      .regex(/^s\d+$/, 'must be the id of an earlier snapshot, like s12')
      .optional()
      .describe('only what changed since that snapshot (its id, s12)'),
    timeoutMs: intIn(500, 60_000)
      .default(SNAPSHOT_TIMEOUT_MS)
      .describe('the whole snapshot’s bound in ms (default 30 s)'),
  }),
  check(input) {
    if (input.after !== undefined && input.format !== 'agent')
      throw bad('after works with the agent format (the default)');
    if (input.since !== undefined && input.format !== 'agent')
      throw bad('since works with the agent format (the default)');
    if (input.ref !== undefined && input.format !== 'agent') throw bad('ref works with the agent format (the default)');
    if (input.ref !== undefined && (input.since ?? input.after ?? input.frame ?? input.selector) !== undefined)
      throw bad('ref shows one element: leave out since, after, frame and selector');
  },
  http: { method: 'GET', path: '/snapshot' },
  cli: {
    group: 'agent',
    flags: {
      maxChars: { value: 'N' },
      depth: { value: 'N' },
      limit: { value: 'N' },
      selector: { value: 'CSS' },
      frame: { value: 'REF' },
      ref: { value: 'REF' },
      after: { value: 'REF' },
      since: { value: 'ID' },
      format: { value: 'F' },
    },
  },
  mcp: { tool: 'snapshot' },
  example: {},
  text: (r) => snapshotText(r),
});

export interface NavigateResult {
  ok: true;
  targetId: string;
  url: string;
  title: string;
  status: number | null;
  /** Without `snapshot`: what the page says as it loaded (status and alert messages, refused fields), as snapshot lines. */
  messages?: string[];
  /** With `snapshot`: the page as it loaded. */
  snapshot?: Omit<SnapshotResult, 'targetId' | 'url' | 'title'>;
}

export const navigate = operation<NavigateResult>()({
  name: 'navigate',
  summary: 'load a URL (http, https or about:blank) in the tab and wait for it',
  details:
    'snapshot answers the page as it loaded, as after an action; over MCP a brief view unless told (none, brief, diff or full).',
  input: z.object({
    ...tabFields,
    url: openUrl().describe('the address to load'),
    timeoutMs: actFields.timeoutMs.describe('how long the load may take in ms (default 20 s)'),
    snapshot: actFields.snapshot,
  }),
  http: { method: 'POST', path: '/navigate' },
  logged: true,
  gate: { changes: true, touches: (i) => ({ url: i.url }) },
  cli: { group: 'agent', args: [{ field: 'url', value: 'URL' }] },
  mcp: { tool: 'navigate', defaults: { snapshot: 'brief' satisfies PageView } },
  example: { url: 'https://example.com' },
  text: (r, i) => {
    // What the agent did not ask for: the URL when it landed elsewhere (a redirect), a status
    // other than success. The view follows without a second page line.
    const status = r.status !== null && (r.status < 200 || r.status > 299) ? ` (HTTP ${r.status})` : '';
    const line = `loaded: ${pageTitle(pageName(r.title, sameUrl(i.url, r.url) ? undefined : r.url) || r.url)}${status}`;
    return r.snapshot
      ? `${line} · ${snapshotText(r.snapshot, false)}`
      : [line, ...(r.messages?.length ? [pageWords(r.messages.join('\n'))] : [])].join('\n');
  },
});

/** Whether a page's URL is the one asked for (as the browser writes it: a trailing slash, case). */
function sameUrl(asked: string, landed: string): boolean {
  try {
    return new URL(asked).href === landed;
  } catch {
    return asked === landed;
  }
}

export interface FindResult {
  targetId: string;
  url: string;
  title: string;
  /** The matching lines with their context, indented as on the page. */
  text: string;
  /** How many lines matched, and how many of them are shown (at most `limit`). */
  matches: number;
  shown: number;
  /** The refs in the text. */
  refs: Record<string, RefShown>;
  /** The id of the snapshot the search read (for a later `since`). */
  id: string;
}

export const find = operation<FindResult>()({
  name: 'find',
  summary:
    'search the page for text (names and values too): the matching lines with refs, in their row, list item or dialog',
  details:
    "Case-insensitive; every frame and open shadow root. Each match comes with what frames it: its row, list item, dialog or group, else the heading before it, and the first few refs inside it (a matching row's buttons). The refs are the snapshot's own, so act on them at once.",
  input: z.object({
    ...tabFields,
    q: z.string().min(1, 'must not be empty').describe('the text to look for'),
    role: z
      .string()
      .regex(/^[a-z]+$/, 'must be a role, like button, link, row or textbox')
      .optional()
      .describe('only lines of this role (button, link, row, textbox, …)'),
    limit: intIn(1, 200).default(10).describe('at most this many matches'),
    timeoutMs: intIn(500, 60_000).default(SNAPSHOT_TIMEOUT_MS).describe('the bound in ms (default 30 s)'),
  }),
  http: { method: 'GET', path: '/find' },
  cli: {
    group: 'agent',
    args: [{ field: 'q', value: 'TEXT', rest: true }],
    flags: { role: { value: 'ROLE' }, limit: { value: 'N' } },
  },
  mcp: { tool: 'find' },
  example: { q: 'Checkout' },
  text: (r) => {
    // Nothing found says on which page it looked (the title, or the URL when there is none): the
    // word may be on another. Matches say where they are themselves.
    if (r.matches === 0) return `no match on ${pageTitle(r.title || r.url)}: try other words, a role, or a snapshot`;
    // Every match shown: the lines say them. Cut: how many the agent does not see.
    if (r.matches === r.shown) return pageWords(r.text);
    return `${r.shown} of ${r.matches} matches\n${pageWords(r.text)}`;
  },
});

export interface ScreenshotResult {
  path: string;
  type: 'png' | 'jpeg';
  width: number;
  height: number;
  bytes: number;
  targetId: string;
  /** How many labels were drawn, when asked. */
  labels?: number;
  /** A person's tab whose capture stalled was brought to the front. */
  broughtToFront?: true;
}

export const screenshot = operation<ScreenshotResult>()({
  name: 'screenshot',
  summary: 'a picture of the viewport, the full page or one element, saved under the home',
  details:
    "Saved under the home's screenshots/. Headless Chromium cannot capture a tab behind another one: clawd's own browser brings the tab to the front first. A person's tab is captured behind theirs; one whose capture stalls for 3 s with no frame painted is brought forward only if they let agents (then broughtToFront: true), else 403 focus_refused; one that paints but is slow (a long page) has the rest of the 20 s bound.",
  input: z.object({
    ...tabFields,
    fullPage: z.boolean().default(false).describe('the whole page, not just the viewport'),
    ref: ref().optional().describe('one element, by its ref'),
    element: z.string().min(1).optional().describe('one element, by CSS selector'),
    type: z.enum(['png', 'jpeg']).default('png').describe('default png'),
    quality: intIn(1, 100).default(80).describe('jpeg: the quality, 1–100 (default 80)'),
    labels: z.boolean().default(false).describe("draw the last snapshot's refs on it (150 at most)"),
  }),
  http: { method: 'POST', path: '/screenshot' },
  cli: { group: 'agent', flags: { ref: { value: 'REF' }, element: { value: 'CSS' } } },
  mcp: { tool: 'screenshot' },
  example: { fullPage: true },
  text: (r) =>
    `saved ${r.path} (${r.width}×${r.height}${r.labels !== undefined ? `, ${r.labels} labels` : ''}${r.broughtToFront ? '; the tab was brought to the front' : ''})`,
  image: (r) => ({ path: r.path, mimeType: r.type === 'jpeg' ? 'image/jpeg' : 'image/png' }),
  clientTimeoutMs: () => 60_000,
});

const CONTENT_FORMATS = ['markdown', 'text', 'html'] as const;

export interface ContentResult {
  targetId: string;
  url: string;
  format: (typeof CONTENT_FORMATS)[number];
  content: string;
  title: string;
  byline?: string;
  /** What was read: the extracted article, the element the selector named, or the whole body. */
  source: 'article' | 'selector' | 'body';
  chars: number;
  truncated: boolean;
  /** With `match`: how many paragraphs hold the text. */
  matches?: number;
}

export const content = operation<ContentResult>()({
  name: 'content',
  summary:
    "the page's main content as Markdown (its article, links kept), text or HTML; cheaper than a snapshot for reading",
  details:
    "The article is found as Firefox's reader view finds it (Mozilla's Readability) and written as Markdown by Turndown, links kept as Markdown links; selector reads a part instead (no extraction). Cut at maxChars on a line, the cut said in the text.",
  input: z.object({
    ...tabFields,
    format: z.enum(CONTENT_FORMATS).default('markdown').describe('default markdown'),
    selector: z.string().min(1).optional().describe('only under this CSS selector'),
    heading: z
      .string()
      .min(1, 'must not be empty')
      .optional()
      .describe('only the section under a heading holding this'),
    match: z.string().min(1, 'must not be empty').optional().describe('only the paragraphs holding this'),
    maxChars: intIn(100, 10_000_000).default(40_000).describe('cut here (default 40000)'),
    timeoutMs: intIn(500, 60_000).default(SNAPSHOT_TIMEOUT_MS).describe('the bound in ms (default 30 s)'),
  }),
  check(input) {
    if (input.heading !== undefined && input.format !== 'markdown')
      throw bad('heading works with the markdown format (the default)');
    if (input.match !== undefined && input.format === 'html')
      throw bad('match works with the markdown and text formats');
  },
  http: { method: 'GET', path: '/content' },
  cli: {
    group: 'agent',
    flags: {
      format: { value: 'F' },
      selector: { value: 'CSS' },
      heading: { value: 'TEXT' },
      match: { value: 'TEXT' },
      maxChars: { value: 'N' },
    },
  },
  mcp: { tool: 'content' },
  example: { format: 'markdown' },
  text: (r) => pageWords(r.content),
  clientTimeoutMs: () => 70_000,
});

const CONSOLE_LEVELS = ['debug', 'info', 'log', 'warning', 'error'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

export interface ConsoleEntry {
  type: string;
  text: string;
  url?: string;
  line?: number;
  time: string;
}

export interface ConsoleResult {
  targetId: string;
  level: ConsoleLevel;
  messages: ConsoleEntry[];
  errors: ConsoleEntry[];
}

export const consoleMessages = operation<ConsoleResult>()({
  name: 'console',
  summary: "the tab's console messages (the last 500) and page errors, at or above a level",
  input: z.object({
    ...tabFields,
    level: z.enum(CONSOLE_LEVELS).default('debug').describe('the least level shown (default debug)'),
  }),
  http: { method: 'GET', path: '/console' },
  cli: { group: 'agent', flags: { level: { value: 'L' } } },
  mcp: { tool: 'console' },
  example: { level: 'error' },
  text: (r) => {
    const lines = [...r.messages.map((m) => `[${m.type}] ${m.text}`), ...r.errors.map((e) => `[pageerror] ${e.text}`)];
    return lines.length ? pageWords(lines.join('\n')) : '(no messages)';
  },
});

export interface SavedFile {
  path: string;
  bytes: number;
  targetId: string;
}

export const pdf = operation<SavedFile>()({
  name: 'pdf',
  summary: 'print the page to a PDF, saved under the home (managed profiles: Chromium prints in headless mode only)',
  input: z.object({ ...tabFields }),
  http: { method: 'POST', path: '/pdf' },
  cli: { group: 'agent' },
  mcp: { tool: 'pdf' },
  example: {},
  text: (r) => `saved ${r.path}`,
  clientTimeoutMs: () => 60_000,
});

export type SnapshotRequest = z.output<typeof snapshot.input>;
export type NavigateRequest = z.output<typeof navigate.input>;
export type FindRequest = z.output<typeof find.input>;
export type ScreenshotRequest = z.output<typeof screenshot.input>;
export type ContentRequest = z.output<typeof content.input>;
export type ConsoleRequest = z.output<typeof consoleMessages.input>;
/** Which tab, and which agent session asks: what every tab operation carries. */
export type TabRequest = z.output<typeof pdf.input>;
