// Downloads an agent causes on a managed profile: saved under the home with their bytes intact,
// listed by GET /downloads, cancelled past the size limit with the limit in the message. On the
// person's own browser a CDP client that asks for its downloads gets them through the relay
// (Playwright's waitForEvent + saveAs), and so does the agent API.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { downloadBytes } from '../helpers/pages';
import { useTempDirs } from '../helpers/temp-dirs';

const temp = useTempDirs('clawd-downloads-');

const refOf = (snap: { refs: Record<string, { name: string }> }, name: string) =>
  Object.entries(snap.refs).find(([, r]) => r.name === name)![0];

describe('downloads on a managed profile', () => {
  const ctx = useAgentDriver((pages) => managedDriver(pages, { downloadLimitMb: 1 }));

  it(
    'saves a download by ref with its bytes, lists it, and cancels one past the limit',
    { timeout: 60_000 },
    async () => {
      await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/downloads'), targetId: ctx.d.targetId });
      const snap = (await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).body;
      const saved = await ctx.d.api('POST', '/hooks/download', {
        targetId: ctx.d.targetId,
        ref: refOf(snap, 'Report'),
        timeoutMs: 20_000,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const download = saved.body.download as { path: string; bytes: number; suggestedFilename: string; state: string };
      expect(download).toMatchObject({ suggestedFilename: 'report.bin', state: 'complete', bytes: 5000 });
      expect(path.dirname(download.path)).toBe(path.join(ctx.d.server.home, 'downloads', 'clawd'));
      expect(readFileSync(download.path).equals(downloadBytes(5000))).toBe(true);

      const big = await ctx.d.api('POST', '/hooks/download', {
        targetId: ctx.d.targetId,
        ref: refOf(snap, 'Big file'),
        timeoutMs: 20_000,
      });
      expect(big.status).toBe(422);
      expect(big.body.error.message).toMatch(/^download of big\.bin cancelled: larger than the download limit of 1 MB/);

      const listed = (await ctx.d.api('GET', `/downloads?targetId=${ctx.d.targetId}`)).body.downloads as Array<{
        suggestedFilename: string;
        state: string;
      }>;
      expect(listed.map((d) => [d.suggestedFilename, d.state])).toEqual([
        ['report.bin', 'complete'],
        ['big.bin', 'cancelled'],
      ]);
      const printed = await ctx.d.server.cli(['downloads', '--profile', 'clawd', '--target', ctx.d.targetId]);
      expect(printed.stdout).toMatch(/d\d+ +complete +.*report\.bin/);

      // A plain link the server answers as an attachment, through the CLI.
      const cli = await ctx.d.server.cli(
        ['download', '--ref', refOf(snap, 'Attachment'), '--profile', 'clawd', '--target', ctx.d.targetId],
        30_000,
      );
      expect(cli.code, cli.stderr).toBe(0);
      const [, bytes, file] = cli.stdout.trim().match(/^saved .* \((\d+) bytes\) to (\S+)$/)!;
      expect(bytes).toBe('2048');
      expect(readFileSync(file!).equals(downloadBytes(2048))).toBe(true);
    },
  );
});

describe("downloads on the person's own browser", () => {
  const ctx = useAgentDriver(extensionDriver);

  it(
    "reach a CDP client that asks for them: Playwright's waitForEvent(download) and saveAs, same bytes",
    { timeout: 60_000 },
    async () => {
      const playwright = await chromium.connectOverCDP(`${ctx.d.server.server.relay.url}/?token=${ctx.d.server.token}`);
      try {
        await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/downloads'), targetId: ctx.d.targetId });
        const page = playwright
          .contexts()[0]!
          .pages()
          .find((p) => p.url() === ctx.pages.url('/downloads'))!;
        const [download] = await Promise.all([
          page.waitForEvent('download', { timeout: 10_000 }),
          page.getByRole('link', { name: 'Report' }).click(),
        ]);
        expect(download.suggestedFilename()).toBe('report.bin');
        const file = path.join(path.dirname(temp.home()), 'report.bin');
        await download.saveAs(file);
        expect(readFileSync(file).equals(downloadBytes(5000))).toBe(true);
      } finally {
        await playwright.close();
      }
    },
  );

  it('reach the agent API too: the hook by ref saves a copy under the home', { timeout: 60_000 }, async () => {
    await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/downloads'), targetId: ctx.d.targetId });
    const snap = (await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).body;
    const saved = await ctx.d.api('POST', '/hooks/download', {
      targetId: ctx.d.targetId,
      ref: refOf(snap, 'Report'),
      timeoutMs: 20_000,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(path.dirname(saved.body.download.path)).toBe(path.join(ctx.d.server.home, 'downloads', 'chrome'));
    expect(readFileSync(saved.body.download.path).equals(downloadBytes(5000))).toBe(true);
    expect((await ctx.d.api('GET', `/downloads?targetId=${ctx.d.targetId}`)).body.downloads.at(-1)).toMatchObject({
      suggestedFilename: 'report.bin',
      state: 'complete',
    });
  });
});
