// Downloads an attached tab began, as the relay asks about them (relay/cdp/download-relay.ts):
// where the browser saved one (a client gets a copy), and one cancelled — the person refused it,
// or a client said Browser.cancelDownload. Each is found by its URL (the one asked for, or where
// its redirects led) among those begun since the relay heard of it, so the person's own earlier
// download of the same URL is never touched; one of theirs begun meanwhile may be.

import type { RequestOp, RequestResults } from '../../shared/protocol';

/** How long a cancelled download may take to say how it ended (a cancel as it finished leaves it finished). */
const ENDING_MS = 3_000;

export async function downloadedFile(url: string): Promise<RequestResults['downloadedFile']> {
  const [item] = await chrome.downloads.search({ url, orderBy: ['-startTime'], limit: 1 });
  return item ? { filename: item.filename, bytes: item.bytesReceived, state: item.state } : { filename: null };
}

/** Cancels it; finished already, its file is removed only when `removeFile` (the person refused it). */
export async function cancelDownload(
  op: Extract<RequestOp, { op: 'cancelDownload' }>,
): Promise<RequestResults['cancelDownload']> {
  const since: chrome.downloads.DownloadQuery = {
    startedAfter: new Date(op.since - 1_000).toISOString(),
    orderBy: ['-startTime'],
    limit: 1,
  };
  const [item] = [
    ...(await chrome.downloads.search({ url: op.url, ...since })),
    ...(await chrome.downloads.search({ finalUrl: op.url, ...since })),
  ];
  if (!item) return { found: false };
  if (item.state === 'in_progress') await chrome.downloads.cancel(item.id);
  const ended = await endOf(item.id);
  if (ended?.state === 'complete') {
    if (!op.removeFile) return { found: true };
    if (ended.exists) await chrome.downloads.removeFile(item.id);
  }
  // Out of the person's list too: it was never theirs to keep. One still going is left listed (erasing it would not stop it).
  if (ended?.state !== 'in_progress') await chrome.downloads.erase({ id: item.id });
  return { found: true };
}

/** The download once it is no longer in progress (within ENDING_MS), or as it is then. */
async function endOf(id: number): Promise<chrome.downloads.DownloadItem | undefined> {
  const until = Date.now() + ENDING_MS;
  for (;;) {
    const [now] = await chrome.downloads.search({ id });
    if (now?.state !== 'in_progress' || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
