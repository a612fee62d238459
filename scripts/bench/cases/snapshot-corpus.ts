// snapshot-corpus: on the six corpus pages (real news and reference pages), our default snapshot
// (GET /snapshot on a managed profile) against Playwright MCP's browser_snapshot, side by side in
// the same browser: Playwright MCP runs as its own process, attached to the profile's CDP port,
// each side with its own tab on the same page. Time is each side's round trip for one snapshot
// (median of rounds taken A B A B); size is the characters an agent receives (MCP: the tool's
// whole text answer; ours: the snapshot text, unbudgeted so the whole page is compared).

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CORPUS_PAGES, startCorpusServer } from '../../../test/helpers/corpus';
import type { RelayProcess } from '../fixture';
import { alternate, median, round, type CaseResult } from '../stats';

interface ToolText {
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

const textOf = (result: ToolText) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

export async function snapshotCorpus(relay: RelayProcess, quick: boolean): Promise<CaseResult> {
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(relay.controlUrl + route, {
      method,
      headers: { Authorization: `Bearer ${relay.token}`, 'Content-Type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const corpus = await startCorpusServer();
  const status = await api('POST', '/start');
  const { targetId } = await api('POST', '/tabs/open', { url: 'about:blank' });
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  // Playwright MCP writes snapshots of navigations to files: into a temp dir, not the checkout.
  const outputDir = mkdtempSync(path.join(os.tmpdir(), 'clawd-bench-mcp-'));
  const mcp = new Client({ name: 'clawd-bench', version: '1' });
  // Its temp files too (it leaves a pw-… folder behind when its client goes): removed with outputDir.
  const env = { ...(process.env as Record<string, string>), TMPDIR: outputDir };
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, '--cdp-endpoint', status.cdpUrl, '--output-dir', outputDir],
      cwd: outputDir,
      env,
      stderr: 'ignore',
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await mcp.callTool({ name, arguments: args })) as ToolText;
    if (result.isError) throw new Error(`Playwright MCP ${name}: ${textOf(result).slice(0, 300)}`);
    return textOf(result);
  };
  // The quick run (a smoke test) takes two pages whose frames all load (cnet's hold MCP 30 s).
  const pages = quick ? (['medium-3', 'qq'] as const) : CORPUS_PAGES;
  const rounds = quick ? 1 : 5;
  const details: Record<string, number | string> = {};
  let ours = { ms: 0, chars: 0 };
  let theirs = { ms: 0, chars: 0 };
  const pageRatios: number[] = [];
  try {
    for (const page of pages) {
      await api('POST', '/navigate', { url: corpus.url(page), targetId, timeoutMs: 30_000 });
      await call('browser_navigate', { url: corpus.url(page) });
      let oursChars = 0;
      let theirsChars = 0;
      const times = await alternate(
        rounds,
        1,
        async () =>
          (oursChars = (await api('GET', `/snapshot?targetId=${targetId}&maxChars=10000000`)).snapshot.length),
        async () => (theirsChars = (await call('browser_snapshot', {})).length),
      );
      const [a, b] = [median(times.a), median(times.b)];
      details[`${page}Ms`] = `${round(a, 0)}/${round(b, 0)}`;
      details[`${page}Chars`] = `${oursChars}/${theirsChars}`;
      pageRatios.push(a / b);
      ours = { ms: ours.ms + a, chars: ours.chars + oursChars };
      theirs = { ms: theirs.ms + b, chars: theirs.chars + theirsChars };
    }
  } finally {
    await mcp.close().catch(() => {});
    await api('POST', '/stop').catch(() => {});
    await corpus.close();
    rmSync(outputDir, { recursive: true, force: true });
  }
  const timeRatio = ours.ms / theirs.ms;
  const sizeRatio = ours.chars / theirs.chars;
  // A page whose frame never loads holds Playwright's snapshot for its whole timeout (30 s on
  // cnet): the total alone would flatter us, so the median page and the slower pages are shown.
  details.medianPageRatio = round(median(pageRatios), 2);
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
    target: 'every page < 1× MCP, size ≤ 0.5× MCP',
    ok: pageRatios.every((r) => r < 1) && sizeRatio <= 0.5,
    details,
  };
}
