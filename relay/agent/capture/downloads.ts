// Downloads an agent's pages cause, on every driver (Playwright's download events; on a
// person's tab the relay delivers them, see relay/cdp/download-relay.ts): each is saved under the
// home (downloads/<profile>/, a safe and unique name) and listed per tab (the last 100). Past
// the size limit, watched through the page's own Page.downloadProgress, Chrome cancels it; on the
// person's own browser (the driver says not to: a download there is theirs, whatever its size)
// only our copy is dropped. Where the person asked to be asked before downloads, one no
// document answer asked about (a link's `download` attribute, a `blob:` a script made) is judged
// as it begins, by the tab's watch (`judge`: actions/action-watch.ts): until the person allows it nothing is saved;
// refused, Chrome cancels it and nothing is kept (on the person's browser on their own Deny: the
// relay has it cancelled, its file removed if it had finished; else their browser's file stays).
// `next(page)` is what the download hook waits on.

import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CDPSession, Download, Page } from 'playwright-core';
import { deniedByPerson } from '../../consent/question-words';
import type { Logger } from '../../log';
import type { DownloadEntry } from '../../operations/hook-operations';

interface PageDownloads {
  /** May the browser be told to cancel (PagePolicy.cancelsDownloads)? */
  cancels: boolean;
  entries: DownloadEntry[];
  /** Hooks waiting for the next download of this page to finish. */
  waiting: Set<(entry: DownloadEntry) => void>;
  /** The page's own CDP session with Page events on, made at its first download. */
  session?: Promise<CDPSession | undefined>;
  /** Chrome's download guid → our entry, paired at its first progress event (oldest unpaired first). */
  byGuid: Map<string, DownloadEntry>;
}

const KEEP = 100;

/** A file name that is safe on every system and says what it was. */
function safeName(suggested: string): string {
  const cleaned = suggested
    .replace(/[\u0000-\u001f<>:"/\\|?*]+/g, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 150);
  return cleaned === '' ? 'download' : cleaned;
}

export class Downloads {
  readonly #pages = new WeakMap<Page, PageDownloads>();
  #counter = 0;

  constructor(
    private readonly home: string,
    private readonly limitBytes: () => number,
    private readonly log: Logger,
    /** The person's say on a download beginning on the page: undefined lets it go, a rejection refuses it. */
    private readonly judge: (page: Page, url: string) => Promise<void> | undefined = () => undefined,
  ) {}

  /** Starts saving the page's downloads (once per page). */
  watch(page: Page, profile: string, cancels: boolean): void {
    if (this.#pages.has(page)) return;
    const state: PageDownloads = { cancels, entries: [], waiting: new Set(), byGuid: new Map() };
    this.#pages.set(page, state);
    page.on('download', (download) => void this.#save(page, state, profile, download));
    // Watched from the start: a fast download must not finish before its size is looked at.
    void this.#watchSizes(page, state);
  }

  list(page: Page): DownloadEntry[] {
    return [...(this.#pages.get(page)?.entries ?? [])];
  }

  /** Resolves with the page's next download once it has finished, one way or another. */
  next(page: Page): { done: Promise<DownloadEntry>; cancel(): void } {
    const state = this.#pages.get(page);
    if (!state) throw new Error('downloads are not watched on this page');
    let resolve!: (entry: DownloadEntry) => void;
    const done = new Promise<DownloadEntry>((r) => (resolve = r));
    state.waiting.add(resolve);
    return { done, cancel: () => void state.waiting.delete(resolve) };
  }

  async #save(page: Page, state: PageDownloads, profile: string, download: Download): Promise<void> {
    const entry: DownloadEntry = {
      id: `d${++this.#counter}`,
      url: download.url(),
      suggestedFilename: download.suggestedFilename(),
      path: null,
      state: 'in_progress',
      bytes: null,
      startedAt: new Date().toISOString(),
    };
    state.entries.push(entry);
    if (state.entries.length > KEEP) state.entries.splice(0, state.entries.length - KEEP);
    await this.#watchSizes(page, state);
    const refused = await this.#judged(page, state, download, entry);
    try {
      if (refused) throw refused;
      const dir = path.join(this.home, 'downloads', profile);
      // The person's: no one else on the machine reads what agents downloaded (0700, 0600).
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `${entry.id}-${safeName(entry.suggestedFilename)}`);
      await download.saveAs(file);
      await chmod(file, 0o600).catch(() => {});
      if (entry.state === 'cancelled') {
        // Past the limit but finished before Chrome heard the cancel: it is not kept either.
        await rm(file, { force: true });
      } else {
        entry.path = file;
        entry.bytes = (await stat(file)).size;
        entry.state = 'complete';
      }
    } catch (error) {
      const failure = await download.failure().catch(() => null);
      if (entry.state !== 'cancelled') {
        entry.state = failure === 'canceled' ? 'cancelled' : 'failed';
        entry.error = failure ?? (error as Error).message.split('\n')[0]!;
      }
    } finally {
      void download.delete().catch(() => {}); // Playwright's temporary copy
    }
    for (const resolve of [...state.waiting]) resolve(entry);
    state.waiting.clear();
  }

  /** The person's answer about the download, when they are asked: a refusal cancels it (said in the entry). */
  async #judged(
    page: Page,
    state: PageDownloads,
    download: Download,
    entry: DownloadEntry,
  ): Promise<Error | undefined> {
    try {
      const judged = this.judge(page, entry.url);
      if (!judged) return undefined;
      await judged;
      return undefined;
    } catch (error) {
      entry.state = 'cancelled';
      entry.error = `cancelled: ${(error as Error).message.split('\n')[0]}`;
      // On the person's own browser only on their own Deny (the relay then has their Chrome cancel
      // it, its file removed: download-relay.ts): an agent can bring about any other refusal
      // (questions it leaves open), and the download may be one the person started themselves.
      if (state.cancels || deniedByPerson(error))
        await download.cancel().catch((e: Error) => this.log.debug(`cancelling a refused download: ${e.message}`));
      return error as Error;
    }
  }

  /** Watches the page's downloads' sizes (once per page): past the limit, Chrome cancels it. */
  #watchSizes(page: Page, state: PageDownloads): Promise<unknown> {
    state.session ??= page
      .context()
      .newCDPSession(page)
      .then(async (session) => {
        await session.send('Page.enable');
        session.on('Page.downloadProgress', (event) => this.#onProgress(page, state, event));
        return session;
      })
      .catch((error: Error) => {
        this.log.debug(`download size watch: ${error.message}`);
        return undefined;
      });
    return state.session;
  }

  #onProgress(
    page: Page,
    state: PageDownloads,
    event: { guid: string; totalBytes: number; receivedBytes: number },
  ): void {
    let entry = state.byGuid.get(event.guid);
    if (!entry) {
      const paired = new Set(state.byGuid.values());
      entry = state.entries.find((e) => e.state === 'in_progress' && !paired.has(e));
      if (!entry) return;
      state.byGuid.set(event.guid, entry);
    }
    const limit = this.limitBytes();
    if (entry.state !== 'in_progress' || Math.max(event.totalBytes, event.receivedBytes) <= limit) return;
    entry.state = 'cancelled';
    entry.error = `cancelled: larger than the download limit of ${Math.round(limit / 1024 / 1024)} MB (browser.downloadLimitMb in config.json)`;
    if (!state.cancels) return;
    const browser = page.context().browser();
    void browser
      ?.newBrowserCDPSession()
      .then(async (session) => {
        await session.send('Browser.cancelDownload', { guid: event.guid });
        await session.detach();
      })
      .catch((error: Error) => this.log.debug(`cancelling download ${event.guid}: ${error.message}`));
  }
}
