// Downloads for CDP clients of the person's tabs, as on a real Chrome. chrome.debugger refuses
// Browser.setDownloadBehavior, but a tab's page session still reports Page.downloadWillBegin and
// Page.downloadProgress. A client that asked for its downloads (Playwright does, with a folder of
// its own) gets them as Browser.downloadWillBegin/downloadProgress, and once a download is
// complete its file — saved by the browser where the person's downloads go, found through
// chrome.downloads — is copied to `<its folder>/<guid>`, as `allowAndName` would have named it.
// The person's own file stays where it is; a client that did not ask sees nothing. When the
// person asked to be asked before downloads, a raw client's copy waits for their Allow from the
// moment the download begins; refused (or unanswered), it gets `canceled` and no file — and on
// the person's own Deny their Chrome cancels the download too, or removes its file (no other end
// does: an agent can bring those about). Browser.cancelDownload of a download the relay saw
// begin has their Chrome cancel it (chrome.downloads); a finished one's file is removed only for
// clawd's own connection, which says it only on the person's Deny (agent/capture/downloads.ts).

import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { deniedByPerson } from '../consent/question-words';
import type { Logger } from '../log';
import type { CommandParams, EventParams } from './cdp-types';
import { say } from './client-events';
import type { ClientSession } from './client-session';
import type { ExtensionLink } from './extension-link';

/** The extension's requests downloads need. */
export type DownloadsLink = Pick<ExtensionLink, 'request'>;

export interface DownloadBehavior {
  behavior: string;
  downloadPath?: string;
  eventsEnabled: boolean;
}

interface Begun {
  url: string;
  /** When the relay heard it begin (ms since the epoch). */
  at: number;
  /** Per client: may it have the file (the person's answer, when they asked to be asked). */
  allowed: Map<ClientSession, Promise<boolean>>;
}

/** How many downloads' guids are kept for Browser.cancelDownload (a refusal comes soon after). */
const HEARD_KEPT = 64;

export class DownloadRelay {
  // Clients that set a download behavior; removed when they leave.
  readonly #clients = new Map<ClientSession, DownloadBehavior>();
  // Download guid → what began, until it ends.
  readonly #begun = new Map<string, Begun>();
  /** Downloads heard of lately, ended or not (guid → URL, when): what Browser.cancelDownload can name. */
  readonly #heard = new Map<string, { url: string; at: number }>();

  constructor(
    /** The extension, when it is connected: it finds and cancels downloads (chrome.downloads). */
    private readonly extension: () => DownloadsLink | undefined,
    private readonly log: Logger,
    /** What a client must wait for before it has a download (the person's answer), or undefined. */
    private readonly ask: (client: ClientSession, url: string) => Promise<void> | undefined = () => undefined,
  ) {}

  /** Where the browser saved the newest download of a URL. */
  async #locate(url: string): Promise<string | null> {
    const link = this.extension();
    if (!link) return null;
    return (await link.request({ op: 'downloadedFile', url }, 'locating a download')).filename;
  }

  /**
   * Has the person's Chrome cancel the newest download of a URL begun since then; `removeFile`:
   * finished already, its file goes too (only on the person's refusal).
   */
  async #cancelAt(url: string, since: number, removeFile: boolean): Promise<boolean> {
    const link = this.extension();
    if (!link) return false;
    return (await link.request({ op: 'cancelDownload', url, since, removeFile }, 'cancelling a download')).found;
  }

  /**
   * Browser.cancelDownload: the person's Chrome cancels a download an attached tab began. A
   * finished one's file is removed only for clawd's own connection, which says it only on the
   * person's own Deny: a raw client cancels as on any Chrome, and never takes a file away.
   */
  async cancel(client: ClientSession, guid: unknown): Promise<Record<string, never>> {
    const heard = typeof guid === 'string' ? this.#heard.get(guid) : undefined;
    if (!heard) throw new Error(`No download with guid ${String(guid)} began on an attached tab`);
    await this.#cancelAt(heard.url, heard.at, client.internal);
    return {};
  }

  /** Browser.setDownloadBehavior from a client. */
  setBehavior(client: ClientSession, params: Partial<CommandParams<'Browser.setDownloadBehavior'>>): void {
    const behavior = typeof params.behavior === 'string' ? params.behavior : 'default';
    if (behavior === 'default' || behavior === 'deny') {
      this.#clients.delete(client);
      return;
    }
    this.#clients.set(client, {
      behavior,
      ...(typeof params.downloadPath === 'string' ? { downloadPath: params.downloadPath } : {}),
      eventsEnabled: params.eventsEnabled === true,
    });
  }

  forget(client: ClientSession): void {
    this.#clients.delete(client);
  }

  /** A tab's Page.downloadWillBegin / Page.downloadProgress. */
  tabEvent(method: string, params: Record<string, unknown>): void {
    if (this.#clients.size === 0) return;
    const guid = String(params.guid ?? '');
    if (method === 'Page.downloadWillBegin') {
      const url = String(params.url ?? '');
      const at = Date.now();
      this.#heard.set(guid, { url, at });
      if (this.#heard.size > HEARD_KEPT) this.#heard.delete(this.#heard.keys().next().value!);
      const allowed = new Map<ClientSession, Promise<boolean>>();
      for (const client of this.#clients.keys()) {
        const asked = this.ask(client, url);
        if (asked)
          allowed.set(
            client,
            asked.then(
              () => true,
              (error: unknown) => {
                // The person's own Deny: their Chrome keeps no file of it either. Unanswered, or a
                // question the client could not ask, it stays theirs.
                if (deniedByPerson(error))
                  void this.#cancelAt(url, at, true).catch((error: Error) =>
                    this.log.debug(`cancel ${guid}: ${error.message}`),
                  );
                return false;
              },
            ),
          );
      }
      this.#begun.set(guid, { url, at, allowed });
      this.#tell('Browser.downloadWillBegin', params);
      return;
    }
    if (method !== 'Page.downloadProgress') return;
    if (params.state === 'completed') return void this.#complete(guid, params);
    if (params.state === 'canceled') this.#begun.delete(guid);
    this.#tell('Browser.downloadProgress', params);
  }

  async #complete(guid: string, params: Record<string, unknown>): Promise<void> {
    const begun = this.#begun.get(guid);
    this.#begun.delete(guid);
    let file: Promise<string | null> | undefined;
    await Promise.all(
      [...this.#clients].map(async ([client, behavior]) => {
        const allowed = (await begun?.allowed.get(client)) ?? true;
        if (allowed && begun && behavior.downloadPath !== undefined) {
          file ??= this.#locate(begun.url).catch((error: Error) => {
            this.log.debug(`download ${guid}: ${error.message}`);
            return null;
          });
          const found = await file;
          const target =
            found &&
            path.join(behavior.downloadPath, behavior.behavior === 'allowAndName' ? guid : path.basename(found));
          if (found && target) {
            await mkdir(behavior.downloadPath, { recursive: true })
              .then(() => copyFile(found, target))
              .catch((error: Error) => this.log.debug(`download ${guid} to ${target}: ${error.message}`));
          }
        }
        if (behavior.eventsEnabled)
          say(client, '', 'Browser.downloadProgress', {
            ...params,
            ...(allowed ? {} : { state: 'canceled' }),
          } as unknown as EventParams<'Browser.downloadProgress'>);
      }),
    );
  }

  /** Page.download* params are Browser.download*'s but for the frame id, which Browser's clients ignore. */
  #tell<E extends 'Browser.downloadWillBegin' | 'Browser.downloadProgress'>(
    method: E,
    params: Record<string, unknown>,
  ): void {
    for (const [client, behavior] of this.#clients)
      if (behavior.eventsEnabled) say(client, '', method, params as unknown as EventParams<E>);
  }
}
