// Browser.cancelDownload on the person's tabs (relay/cdp/download-relay.ts): a download an
// attached tab began is cancelled in their Chrome; a finished one's file is removed only when
// clawd's own connection says it (the person refused it), never for a raw client; a guid the relay
// did not see begin is refused; a raw client's download the person denied is cancelled there too,
// and one refused any other way is left theirs.

import { describe, expect, it } from 'vitest';
import type { ClientSession } from '../../relay/cdp/client-session';
import { DownloadRelay, type DownloadsLink } from '../../relay/cdp/download-relay';
import { PersonQuestions } from '../../relay/consent/person-questions';
import { silentLogger } from '../../relay/log';

const client = (internal: boolean) => ({ internal }) as unknown as ClientSession;

/** The extension's side: what it was asked to cancel (URL, whether a finished file goes too). */
function extension() {
  const cancelled: Array<[string, boolean]> = [];
  const link = {
    request: async (op: { op: string; url: string; removeFile?: boolean }) => {
      if (op.op === 'cancelDownload') cancelled.push([op.url, op.removeFile === true]);
      return { found: true, filename: null };
    },
  } as unknown as DownloadsLink;
  return { cancelled, link: () => link };
}

describe('the relay’s Browser.cancelDownload', () => {
  it('has the person’s Chrome cancel what a tab began, removing a finished file only for clawd’s own connection', async () => {
    const { cancelled, link } = extension();
    const relay = new DownloadRelay(link, silentLogger);
    relay.setBehavior(client(true), { behavior: 'allowAndName', downloadPath: '/tmp/x', eventsEnabled: false });
    relay.tabEvent('Page.downloadWillBegin', { guid: 'g1', url: 'http://here/file' });
    await relay.cancel(client(false), 'g1');
    await relay.cancel(client(true), 'g1');
    expect(cancelled).toEqual([
      ['http://here/file', false],
      ['http://here/file', true],
    ]);
    await expect(relay.cancel(client(true), 'unknown')).rejects.toThrow(/No download with guid unknown/);
    await expect(relay.cancel(client(true), 42)).rejects.toThrow(/No download with guid 42/);
  });

  it('has the person’s Chrome cancel a download they denied a raw client, its file too; no other refusal does', async () => {
    const { cancelled, link } = extension();
    const questions = new PersonQuestions();
    const relay = new DownloadRelay(link, silentLogger, (_client, url) =>
      questions.ask({ profile: 'chrome', kinds: ['download'], session: 'cdp-1', what: `download ${url}`, url }, 5_000),
    );
    relay.setBehavior(client(false), { behavior: 'allow', downloadPath: '/tmp/x', eventsEnabled: false });
    relay.tabEvent('Page.downloadWillBegin', { guid: 'g2', url: 'http://here/denied' });
    relay.tabEvent('Page.downloadWillBegin', { guid: 'g3', url: 'http://here/stopped' });
    const [denied, stopped] = questions.pending();
    questions.answer(denied!.id, false, 'side panel');
    // The person's Stop declines every question: an agent can bring that about, so nothing of theirs goes.
    questions.declineAll('chrome', 'stop');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBeDefined();
    expect(cancelled).toEqual([['http://here/denied', true]]);
    questions.close();
  });
});
