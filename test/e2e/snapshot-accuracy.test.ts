// How often a snapshot's actionable elements carry the role and accessible name Chromium itself
// gives them (Accessibility.getFullAXTree), on the corpus of real pages: for the `agent` engine
// and for the Playwright-based one it replaced. The new one must agree at least as often; both
// rates are printed. The pages are served as static documents (helpers/corpus.ts).

import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotRequest } from '../../relay/operations/page-operations';
import { tabKey } from '../../relay/agent/tabs/tab-key';
import { AgentEngine } from '../../relay/agent/snapshots/agent-engine';
import { PlaywrightEngine } from '../../relay/agent/snapshots/playwright-engine';
import type { RefIndex, SnapshotEngine } from '../../relay/agent/snapshots/snapshot-engine';
import { CHROMIUM_FLAGS, chromiumPath } from '../helpers/chromium';
import { CORPUS_PAGES, startCorpusServer, type CorpusServer } from '../helpers/corpus';

/** Actionable roles both engines and Chromium name the same way. */
const ACTIONABLE = new Set([
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
  'slider',
  'spinbutton',
  'switch',
  'tab',
]);
/** Elements compared per page and engine (the first ones in the page). */
const SAMPLE = 80;

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
/** A name cut with … agrees when Chromium's begins with it. */
const sameName = (ours: string, chromes: string) =>
  ours.endsWith('…') ? squash(chromes).startsWith(ours.slice(0, -1)) : ours === squash(chromes);

interface Tally {
  compared: number;
  agreed: number;
}

/** The data-k of every element in the document, by backend node id: one read of the whole tree. */
async function keysByNode(session: CDPSession): Promise<Map<number, string>> {
  const { root } = await session.send('DOM.getDocument', { depth: -1, pierce: true });
  const keys = new Map<number, string>();
  const walk = (node: typeof root) => {
    const attributes = node.attributes ?? [];
    const at = attributes.indexOf('data-k');
    if (at >= 0 && at % 2 === 0) keys.set(node.backendNodeId, attributes[at + 1]!);
    for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? [])]) walk(child);
    if (node.contentDocument) walk(node.contentDocument);
  };
  walk(root);
  return keys;
}

/** Chromium's role and name for each element, keyed by the data-k the test gave every element. */
async function chromiumView(session: CDPSession): Promise<Map<string, { role: string; name: string }>> {
  const keys = await keysByNode(session);
  const { nodes } = await session.send('Accessibility.getFullAXTree');
  const view = new Map<string, { role: string; name: string }>();
  for (const node of nodes) {
    const role = String(node.role?.value ?? '');
    if (node.ignored || node.backendDOMNodeId === undefined || !ACTIONABLE.has(role)) continue;
    const k = keys.get(node.backendDOMNodeId);
    if (k) view.set(k, { role, name: String(node.name?.value ?? '') });
  }
  return view;
}

async function measure(
  page: Page,
  engine: SnapshotEngine,
  request: SnapshotRequest,
  view: Map<string, { role: string; name: string }>,
): Promise<Tally> {
  const taken = await engine.take(page, request, { tab: tabKey('accuracy', request.format), previous: undefined });
  const refs = taken.refs as RefIndex;
  const tally: Tally = { compared: 0, agreed: 0 };
  // One at a time: the Playwright engine's check of a ref queries the whole page by role and name,
  // and many at once outlast its bound on a large page.
  for (const [ref, info] of refs.entries()) {
    if (!ACTIONABLE.has(info.role)) continue;
    if (tally.compared >= SAMPLE) break;
    const target = await refs.resolve(page, ref).catch(() => undefined);
    const readable = target as unknown as
      { evaluate(fn: (el: Element) => string | null): Promise<string | null> } | undefined;
    const k = readable ? await readable.evaluate((el) => el.getAttribute('data-k')).catch(() => null) : null;
    const chromes = k ? view.get(k) : undefined;
    tally.compared++;
    if (chromes && chromes.role === info.role && sameName(info.name, chromes.name)) tally.agreed++;
  }
  return tally;
}

describe('snapshot accuracy against Chromium’s accessibility tree, on the corpus', () => {
  let corpus: CorpusServer;
  let browser: Browser;

  beforeAll(async () => {
    corpus = await startCorpusServer();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await corpus?.close();
  });

  it(
    'agrees with Chromium on actionable elements at least as often as the Playwright-based snapshot',
    { timeout: 180_000 },
    async () => {
      const totals = { agent: { compared: 0, agreed: 0 }, playwright: { compared: 0, agreed: 0 } };
      const page = await browser.newPage();
      const session = await page.context().newCDPSession(page);
      const rows: string[] = [];
      for (const name of CORPUS_PAGES) {
        await page.goto(corpus.url(name), { waitUntil: 'load' });
        // The join key between the engines' elements and Chromium's nodes (a test-only attribute).
        await page.evaluate(() =>
          document.querySelectorAll('*').forEach((el, i) => el.setAttribute('data-k', String(i))),
        );
        const view = await chromiumView(session);
        const agent = await measure(
          page,
          new AgentEngine(),
          { format: 'agent', interactive: false, compact: false, timeoutMs: 30_000 },
          view,
        );
        const playwright = await measure(
          page,
          new PlaywrightEngine(),
          { format: 'ai', interactive: false, compact: false, timeoutMs: 30_000 },
          view,
        );
        for (const [key, tally] of [
          ['agent', agent],
          ['playwright', playwright],
        ] as const) {
          totals[key].compared += tally.compared;
          totals[key].agreed += tally.agreed;
        }
        rows.push(
          `${name.padEnd(10)} agent ${agent.agreed}/${agent.compared}  playwright ${playwright.agreed}/${playwright.compared}`,
        );
      }
      const rate = (t: Tally) => t.agreed / t.compared;
      console.log(
        `role and name as Chromium has them, actionable elements, first ${SAMPLE} per page:\n${rows.join('\n')}\n` +
          `agent ${(rate(totals.agent) * 100).toFixed(1)}% (${totals.agent.agreed}/${totals.agent.compared}), playwright ${(rate(totals.playwright) * 100).toFixed(1)}% (${totals.playwright.agreed}/${totals.playwright.compared})`,
      );
      expect(totals.agent.compared).toBeGreaterThan(300);
      expect(rate(totals.agent)).toBeGreaterThanOrEqual(rate(totals.playwright));
    },
  );
});
