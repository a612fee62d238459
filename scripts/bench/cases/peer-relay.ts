// peer-relay: clawd's relay beside the peer relay (Playwriter, from its npm package: its relay and
// its extension, a tab handed over by its toolbar button), same page, same run, turn about: a raw
// client's Runtime.evaluate("1"), Playwright's page.evaluate(() => 1) and a raw 1920×1080
// Page.captureScreenshot of the noisy canvas, each through either relay. Target (#50): clawd's
// median ≤ 0.65× the peer's on each.

import { chromium, type Page } from 'playwright-core';
import { within } from '../../../relay/time-limit';
import { CdpClient } from '../../../test/helpers/cdp-client';
import { TestBrowser } from '../../../test/helpers/chromium';
import { until } from '../../../test/helpers/waits';
import { ROOT, pageAt, type BenchTab } from '../fixture';
import { PLAYWRITER_EXTENSION_ID, startPlaywriter, type PeerRelay } from '../peer-playwriter';
import { step } from '../case-steps';
import { alternate, median, round, type CaseResult } from '../stats';

const TARGET = 0.65;
/** One call through either relay (its median is a few milliseconds). */
const CALL_MS = 20_000;
/** The peer's first evaluate on a fresh connection (see peerPlaywright). */
const FIRST_CALL_MS = 10_000;

/** `url`: the page clawd's bench tab is on (the noisy canvas): the peer's tab loads it too. */
export async function peerRelay(ours: BenchTab, url: string, quick: boolean): Promise<CaseResult> {
  step('starting Playwriter’s relay');
  const peer = await startPlaywriter(ROOT);
  const closers: Array<() => Promise<unknown>> = [() => peer.close()];
  try {
    step('launching the browser with Playwriter’s extension');
    const browser = await TestBrowser.launch({
      extensionDir: peer.extensionDir,
      extensionId: PLAYWRITER_EXTENSION_ID,
      args: ['--window-size=1920,1080'],
    });
    closers.unshift(() => browser.close());
    await until('Playwriter’s extension to connect', () => peer.extensionConnected(), 20_000);
    step('handing a tab to Playwriter');
    const tab = await browser.openTab(url);
    await browser.clickToolbar(tab);
    await until('the tab handed to Playwriter', () => peer.lists(tab.pageTargetId), 15_000);

    // A raw client through each relay.
    step('a raw client through each relay');
    const client = await CdpClient.connect(peer.cdpUrl(`bench-raw-${process.pid}`));
    closers.unshift(() => client.close());
    const { sessionId } = await client.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true });
    const theirs = { client, sessionId };
    const evaluate = (side: BenchTab['direct']) => () =>
      side.client.send('Runtime.evaluate', { expression: '1', returnByValue: true }, side.sessionId);
    const rtt = await alternate(quick ? 50 : 500, quick ? 5 : 50, evaluate(ours.viaRelay), evaluate(theirs));

    // Playwright through each relay.
    step('Playwright connecting through each relay');
    const pwOurs = await chromium.connectOverCDP(`${ours.relay.url}/?token=${ours.relay.token}`);
    closers.unshift(() => pwOurs.close());
    const pageOurs = await pageAt(pwOurs, url);
    const peerPage = await peerPlaywright(peer, url, closers);
    step('Playwright’s evaluate through each relay');
    const pw = await alternate(
      quick ? 30 : 300,
      quick ? 5 : 30,
      bounded(pageOurs, 'clawd’s relay', CALL_MS),
      bounded(peerPage.page, 'Playwriter’s relay', CALL_MS),
    );

    // A raw capture through each relay (the frames' sizes said: both must be the same picture).
    step('a raw capture through each relay');
    const bytes = { ours: 0, theirs: 0 };
    const shoot = (side: BenchTab['direct'], key: keyof typeof bytes) => async () => {
      const { data } = await side.client.send('Page.captureScreenshot', { format: 'png' }, side.sessionId);
      bytes[key] = data.length;
      side.client.raw.length = 0;
    };
    const shots = await alternate(quick ? 2 : 20, 1, shoot(ours.viaRelay, 'ours'), shoot(theirs, 'theirs'));

    const ratio = (t: { a: number[]; b: number[] }) => median(t.a) / median(t.b);
    const ratios = { cdpRtt: ratio(rtt), pwEvaluate: ratio(pw), screenshot: ratio(shots) };
    const worst = Math.max(...Object.values(ratios));
    return {
      name: 'peer-relay',
      unit: '× Playwriter (worst of three)',
      value: round(worst, 2),
      target: `each ≤ ${TARGET}× Playwriter ${peer.version}`,
      ok: worst <= TARGET,
      details: {
        cdpRttRatio: round(ratios.cdpRtt, 2),
        cdpRttMs: round(median(rtt.a)),
        playwriterCdpRttMs: round(median(rtt.b)),
        pwEvaluateRatio: round(ratios.pwEvaluate, 2),
        pwEvaluateMs: round(median(pw.a)),
        playwriterPwEvaluateMs: round(median(pw.b)),
        playwriterPwConnects: peerPage.connects,
        screenshotRatio: round(ratios.screenshot, 2),
        screenshotMs: round(median(shots.a), 1),
        playwriterScreenshotMs: round(median(shots.b), 1),
        frameMB: round(bytes.ours / 1024 / 1024, 1),
        playwriterFrameMB: round(bytes.theirs / 1024 / 1024, 1),
      },
    };
  } finally {
    step('closing its browser, relay and clients');
    for (const close of closers) await close().catch(() => {});
  }
}

// Playwright's evaluate has no bound of its own: each side's call is given one, the same, so a
// side that never answers says which it is rather than holding the case to its bound.
const bounded = (page: Page, side: string, ms: number) => () =>
  within(
    page.evaluate(() => 1),
    ms,
    () => new Error(`Playwright’s evaluate through ${side} did not answer within ${ms / 1000} s`),
  );

/**
 * Playwright connected through the peer's relay, its page answering. Once, in a clean-clone CI run
 * beside the other test files, the peer's page never answered Playwright's first evaluate: a page whose
 * execution context Playwright was never told of through the peer's relay waits for ever (it did
 * not happen in 8 runs of this case alone). That is the peer's, not what the case measures, so
 * such a connection is dropped and made again (at most three times; the count is reported);
 * clawd's side gets no second try.
 */
async function peerPlaywright(
  peer: PeerRelay,
  url: string,
  closers: Array<() => Promise<unknown>>,
): Promise<{ page: Page; connects: number }> {
  for (let connects = 1; ; connects++) {
    const browser = await chromium.connectOverCDP(peer.cdpUrl(`bench-pw-${process.pid}-${connects}`));
    closers.unshift(() => browser.close());
    try {
      const page = await pageAt(browser, url);
      await bounded(page, 'Playwriter’s relay', FIRST_CALL_MS)();
      return { page, connects };
    } catch (error) {
      if (connects === 3) throw error;
      step(`Playwright through Playwriter’s relay: ${(error as Error).message}; connecting again`);
      await browser.close().catch(() => {});
    }
  }
}
