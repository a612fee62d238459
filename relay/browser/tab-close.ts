// Closing a managed browser's tab so that it goes. Chrome answers Target.closeTarget before the
// page has gone, and once in a while does not close it at all: measured on 156, a tab /json/new
// opened blank and then loaded on another site stayed listed, alive (it answered an evaluate),
// 10 s after closeTarget answered success — about half the runs of the asks file's managed part
// on a loaded two-core VM; the page's own Page.close closed it at once. So a close that has not
// taken within CLOSE_TAKES_MS is said again as Page.close on a session of the page's.

import type { OwnCall } from './client-new-tabs';

/** How long a closed tab may stay listed before it is closed from its own page. */
const CLOSE_TAKES_MS = 2_000;
const POLL_MS = 50;

/** Closes `targetId` and answers once the browser no longer lists it, or once Page.close was said. */
export async function closeTab(call: OwnCall, targetId: string): Promise<void> {
  await call('Target.closeTarget', { targetId });
  // A list that fails says nothing either way: the close was said and answered, so it stands.
  const listed = () =>
    call<{ targetInfos: Array<{ targetId: string }> }>('Target.getTargets', {}).then(
      ({ targetInfos }) => targetInfos.some((t) => t.targetId === targetId),
      () => false,
    );
  const until = Date.now() + CLOSE_TAKES_MS;
  while (Date.now() < until) {
    if (!(await listed())) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // (It may go meanwhile: then there is nothing to attach to, and nothing left to do.)
  await call<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }).then(
    ({ sessionId }) =>
      call('Page.close', {}, { sessionId })
        .catch(() => {})
        .finally(() => call('Target.detachFromTarget', { sessionId }).catch(() => {})),
    () => {},
  );
}
