// Taking a screenshot for an agent: the viewport, the full page or one element (by ref or CSS
// selector), optionally with each ref of the last snapshot drawn on; and the policy for tabs
// behind another one. Headless Chromium commits no frames for a tab behind another in its
// window: its capture hangs (measured: about every other time). The agent's own browser brings
// the tab to the front first. A user's browser is left as it is unless the capture stalls
// (headed Chrome captures background tabs), and the answer says when the tab was brought forward.

import { toAgentError } from '../agent-errors';
import type { ScreenshotRequest } from '../../operations/page-operations';
import { withLabels } from './capture';
import type { AgentPage } from '../tabs/page-finder';
import type { ActTarget, LabelBox } from '../snapshots/snapshot-engine';

const SCREENSHOT_TIMEOUT_MS = 20_000;
/** How long a capture on a user's browser may stall before its tab is brought to the front. */
const BACKGROUND_CAPTURE_MS = 3_000;

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
      return await capture(BACKGROUND_CAPTURE_MS);
    } catch (error) {
      if ((error as Error).name !== 'TimeoutError') throw error;
      await page.bringToFront();
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
