// snapshot-corpus: on the six corpus pages (real news and reference pages), our default snapshot
// (GET /snapshot on a managed profile) against Playwright MCP's browser_snapshot, side by side in
// the same browser: Playwright MCP runs as its own process, attached to the profile's CDP port,
// each side with its own tab on the same page. Time is each side's round trip for one snapshot
// (median of rounds taken A B A B); size is the characters an agent receives (MCP: the tool's
// whole text answer; ours: the snapshot text, unbudgeted so the whole page is compared). Ours is
// also taken on `before`, a server whose walk leaves out the rules of what a person cannot see
// (CLAWD_BENCH_SEE_ALL=1), in the same turns: what the rules cost (target: no more than 10%).
// Targets (#50): all pages' time ≤ 0.25× Playwright MCP's, size ≤ 0.10× its characters.

import { CORPUS_PAGES, startCorpusServer } from '../../../test/helpers/corpus';
import { controlApi, type RelayProcess } from '../fixture';
import { startPlaywrightMcp } from '../playwright-mcp';
import { alternateSides, median, round, type CaseResult } from '../stats';

export async function snapshotCorpus(relay: RelayProcess, before: RelayProcess, quick: boolean): Promise<CaseResult> {
  const [onOurs, onBefore] = [controlApi(relay), controlApi(before)];
  const api = (method: string, route: string, body?: unknown, server = relay) =>
    (server === relay ? onOurs : onBefore)(method, route, body);
  const corpus = await startCorpusServer();
  const status = await api('POST', '/start');
  const { targetId } = await api('POST', '/tabs/open', { url: 'about:blank' });
  await api('POST', '/start', undefined, before);
  const beforeTab = (await api('POST', '/tabs/open', { url: 'about:blank' }, before)).targetId as string;
  const mcp = await startPlaywrightMcp(`${status.cdpUrl}/?token=${relay.token}`); // the port is clawd's
  const call = mcp.call;
  // The quick run (a smoke test) takes one page whose frames all load (cnet's hold MCP 30 s).
  const pages = quick ? (['qq'] as const) : CORPUS_PAGES;
  const rounds = quick ? 1 : 5;
  const details: Record<string, number | string> = {};
  let ours = { ms: 0, chars: 0 };
  let theirs = { ms: 0, chars: 0 };
  let beforeMs = 0;
  const pageRatios: number[] = [];
  try {
    for (const page of pages) {
      await api('POST', '/navigate', { url: corpus.url(page), targetId, timeoutMs: 30_000 });
      await call('browser_navigate', { url: corpus.url(page) });
      await api('POST', '/navigate', { url: corpus.url(page), targetId: beforeTab, timeoutMs: 30_000 }, before);
      let oursChars = 0;
      let theirsChars = 0;
      const snapshot = (server: RelayProcess, tab: string) =>
        api('GET', `/snapshot?targetId=${tab}&maxChars=10000000`, undefined, server);
      const times = await alternateSides(rounds, 1, {
        ours: async () => (oursChars = (await snapshot(relay, targetId)).snapshot.length),
        before: () => snapshot(before, beforeTab),
        mcp: async () => (theirsChars = (await call('browser_snapshot', {})).length),
      });
      const [a, b] = [median(times.ours), median(times.mcp)];
      beforeMs += median(times.before);
      details[`${page}Ms`] = `${round(a, 0)}/${round(b, 0)}`;
      details[`${page}Chars`] = `${oursChars}/${theirsChars}`;
      pageRatios.push(a / b);
      ours = { ms: ours.ms + a, chars: ours.chars + oursChars };
      theirs = { ms: theirs.ms + b, chars: theirs.chars + theirsChars };
    }
  } finally {
    await mcp.close();
    await api('POST', '/stop').catch(() => {});
    await api('POST', '/stop', undefined, before).catch(() => {});
    await corpus.close();
  }
  const timeRatio = ours.ms / theirs.ms;
  const sizeRatio = ours.chars / theirs.chars;
  // A page whose frame never loads holds Playwright's snapshot for its whole timeout (30 s on
  // cnet): the total alone would flatter us, so the median page and the slower pages are shown.
  details.medianPageRatio = round(median(pageRatios), 2);
  const rulesCost = ours.ms / beforeMs;
  details.beforeMs = round(beforeMs, 0);
  details.rulesCost = round(rulesCost, 2);
  details.slowerPages = pageRatios.filter((r) => r >= 1).length;
  details.sizeRatio = round(sizeRatio, 2);
  details.oursChars = ours.chars;
  details.mcpChars = theirs.chars;
  return {
    name: 'snapshot-corpus',
    unit: 'ms (all pages, ours)',
    value: round(ours.ms, 0),
    baseline: round(theirs.ms, 0),
    ratio: round(timeRatio, 2),
    target: 'time ≤ 0.25× MCP, size ≤ 0.10× MCP, hiding rules ≤ +10%',
    ok: timeRatio <= 0.25 && sizeRatio <= 0.1 && rulesCost <= 1.1,
    details,
  };
}
