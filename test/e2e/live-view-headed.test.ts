// The live view of a tab behind another in the person's own, headed browser (on Xvfb): Chrome
// keeps a background tab hidden and unpainted, yet once the live view watches it through
// chrome.debugger it paints (the agent layer's Playwright connection turns on focus emulation,
// which keeps a tab visible), so the view shows it live and follows its changes, never a frozen
// picture of it.

import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame } from '../../shared/view-protocol';
import { TestBrowser } from '../helpers/chromium';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';
import { headedTestsRun, startXvfb, type Display } from '../helpers/xvfb';

describe.runIf(headedTestsRun())('the live view of a background tab in a headed browser', () => {
  let display: Display;
  let pages: PageServer;
  let server: TestServer;
  let browser: TestBrowser;
  beforeAll(async () => {
    display = await startXvfb();
    pages = await startPageServer();
    server = await startTestServer();
    browser = await TestBrowser.launch({ display: display.display });
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await pages?.close();
    await display?.close();
  });

  it('shows a tab hidden behind another live, and follows its changes', async () => {
    const tab = await browser.openTab(pages.url('/live'));
    await browser.clickToolbar(tab);
    await until('the tab to be attached', () =>
      server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
    );
    const front = await browser.openTab('about:blank');
    await browser.cdp.send('Target.activateTarget', { targetId: front.pageTargetId });
    const { sessionId } = await browser.cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: tab.pageTargetId,
      flatten: true,
    });
    const inTab = async <T>(expression: string) =>
      (
        await browser.cdp.send<{ result: { value: T } }>(
          'Runtime.evaluate',
          { expression, returnByValue: true },
          sessionId,
        )
      ).result.value;
    await until(
      'the tab to be hidden behind the other',
      async () => (await inTab<string>('document.visibilityState')) === 'hidden',
    );

    const frames: Buffer[] = [];
    const states: string[] = [];
    const viewer = new WebSocket(
      `${server.controlUrl.replace('http', 'ws')}/view/ws?profile=chrome&targetId=${tab.pageTargetId}`,
      { headers: { Authorization: `Bearer ${server.token}` } },
    );
    viewer.on('message', (data, binary) => {
      if (!binary) {
        const update = JSON.parse(data.toString());
        if (update.t === 'status') states.push(update.state);
        return;
      }
      frames.push(data as Buffer);
      viewer.send('{"t":"ack"}');
    });
    await new Promise((resolve, reject) => viewer.once('open', resolve).once('error', reject));
    try {
      await until('a first frame of the hidden tab', () => frames.length > 0, 10_000);
      expect(decodeFrame(frames[0]!).metadata.deviceWidth).toBeGreaterThan(0);
      expect(states.at(-1)).toBe('live');
      const seen = frames.length;
      const before = Buffer.from(decodeFrame(frames.at(-1)!).jpeg);
      await inTab('document.getElementById("block").style.background = "rgb(0, 0, 220)"');
      // A picture that is not the last one: the screencast started again on a still page (no
      // frame for a while, tab-screencast.ts) sends the same picture again, and that is not it.
      await until(
        'a frame of the change',
        () => frames.slice(seen).some((f) => !Buffer.from(decodeFrame(f).jpeg).equals(before)),
        5_000,
      );
    } finally {
      viewer.close();
    }
    await until('the screencast to stop with its viewer', () => server.server.control.views.viewerStats().length === 0);
  });
});
