// Taking a screenshot for an agent: the viewport, the full page or one element (by ref or CSS
// selector), optionally with each ref of the last snapshot drawn on; and the policy for tabs
// behind another one. Headless Chromium commits no frames for a tab behind another in its
// window: its capture hangs (measured: about every other time). The agent's own browser brings
// the tab to the front first. A headed browser (the person's) paints a tab behind another only
// when something asks it for frames: a capture there waits for one that never comes (measured,
// Chromium 156 on Xvfb: >2 s every time), and takes 70–170 ms while a screencast of the tab runs.
// So a capture there runs inside a tiny screencast of its own and the person's front stays
// theirs; a capture that stalls all the same (no frame of the screencast came in 3 s) brings the
// tab forward only where the person lets agents (else 403 focus_refused), and the answer says when
// it did; one that paints but is slow (a long page on a slow machine) has the rest of its bound.

import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import { toAgentError } from '../agent-errors';
import type { ScreenshotRequest } from '../../operations/page-operations';
import { withLabels } from './capture';
import type { Page } from 'playwright-core';
import type { AgentPage } from '../tabs/page-finder';
import type { ActTarget, LabelBox } from '../snapshots/snapshot-engine';

const SCREENSHOT_TIMEOUT_MS = 20_000;
/** How long a capture on a user's browser may stall before its tab is brought to the front. */
const BACKGROUND_CAPTURE_MS = 3_000;
/** The screencast that keeps a background tab painting is set up within this (else the capture goes without). */
const PAINT_SETUP_MS = 2_000;

export interface Shot {
  buffer: Buffer;
  /** How many labels were drawn, when asked for. */
  labels?: number;
  broughtToFront: boolean;
}

/** What the shot needs from the snapshot side: the ref's element, the refs' boxes. */
export interface ShotRefs {
  resolve(ref: string): Promise<ActTarget>;
  labelBoxes(): Promise<LabelBox[]>;
}

export async function takeScreenshot(
  { page, driver }: AgentPage,
  request: ScreenshotRequest,
  refs: ShotRefs,
): Promise<Shot> {
  const capture = async (timeout: number) => {
    const options = {
      type: request.type,
      ...(request.type === 'jpeg' ? { quality: request.quality } : {}),
      timeout,
    } as const;
    if (request.ref) return (await refs.resolve(request.ref)).screenshot(options);
    if (request.element !== undefined) return page.locator(request.element).first().screenshot(options);
    return page.screenshot({ ...options, fullPage: request.fullPage });
  };
  let broughtToFront = false;
  const shoot = async () => {
    if (driver.pages.captureFront === 'always') {
      await page.bringToFront();
      return capture(SCREENSHOT_TIMEOUT_MS);
    }
    try {
      return await whilePainted(page, async (painting) => {
        try {
          return await capture(BACKGROUND_CAPTURE_MS);
        } catch (error) {
          // It paints (its screencast had a frame) but the capture is slow — a long page on a
          // slow machine took over 3 s — not a stall: the rest of the bound, from behind.
          if ((error as Error).name !== 'TimeoutError' || !painting()) throw error;
          return capture(SCREENSHOT_TIMEOUT_MS - BACKGROUND_CAPTURE_MS);
        }
      });
    } catch (error) {
      if ((error as Error).name !== 'TimeoutError') throw error;
      await page.bringToFront().catch((refused: Error) => {
        // The person's browser: their tab stays in front unless they let agents bring theirs.
        if (!/bring their tabs to the front/.test(refused.message)) throw refused;
        throw new ClawdError(
          'focus_refused',
          `the tab did not paint within ${seconds(BACKGROUND_CAPTURE_MS)} behind the tab the person is in, and ${refused.message.replace(/^.*?the person does not/, 'the person does not')}`,
        );
      });
      broughtToFront = true;
      return capture(SCREENSHOT_TIMEOUT_MS);
    }
  };
  try {
    if (!request.labels) return { buffer: await shoot(), broughtToFront };
    const { buffer, labels } = await withLabels(page, await refs.labelBoxes(), shoot);
    return { buffer, labels, broughtToFront };
  } catch (error) {
    throw toAgentError(error, { what: `screenshot${request.ref ? ` of ${request.ref}` : ''}` });
  }
}

/**
 * Runs `work` while a screencast of the page's own (64 px, acked) keeps its tab painting behind
 * another; `painting` tells whether a frame of it came (the tab paints).
 */
async function whilePainted<T>(page: Page, work: (painting: () => boolean) => Promise<T>): Promise<T> {
  const made = page.context().newCDPSession(page);
  const session = await within(made, PAINT_SETUP_MS, () => new Error('no session in time')).catch(() => {
    void made.then((late) => late.detach()).catch(() => {});
    return undefined;
  });
  if (!session) return work(() => false);
  let frames = 0;
  const ack = (frame: { sessionId: number }) => {
    frames += 1;
    void session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => {});
  };
  session.on('Page.screencastFrame', ack);
  try {
    const started = session.send('Page.startScreencast', { format: 'jpeg', quality: 1, maxWidth: 64, maxHeight: 64 });
    await within(started, PAINT_SETUP_MS, () => new Error('no screencast in time')).catch(() => {});
    return await work(() => frames > 0);
  } finally {
    session.off('Page.screencastFrame', ack);
    await session.detach().catch(() => {});
  }
}
