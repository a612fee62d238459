// Downloads for CDP clients of the person's tabs, as on a real Chrome. chrome.debugger refuses
// Browser.setDownloadBehavior, but a tab's page session still reports Page.downloadWillBegin and
// Page.downloadProgress. A client that asked for its downloads (Playwright does, with a folder of
// its own) gets them as Browser.downloadWillBegin/downloadProgress, and once a download is
// complete its file — saved by the browser where the person's downloads go, found through
// chrome.downloads — is copied to `<its folder>/<guid>`, as `allowAndName` would have named it.
// The person's own file stays where it is; a client that did not ask sees nothing.

import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log';
import type { CommandParams, EventParams } from './cdp-types';
import { say } from './client-events';
import type { ClientSession } from './client-session';

export interface DownloadBehavior {
  behavior: string;
  downloadPath?: string;
  eventsEnabled: boolean;
}

interface Begun {
  url: string;
}

export class DownloadRelay {
  // Clients that set a download behavior; removed when they leave.
  readonly #clients = new Map<ClientSession, DownloadBehavior>();
  // Download guid → what began, until it ends.
  readonly #begun = new Map<string, Begun>();

  constructor(
    /** Where the browser saved the newest download of a URL (the extension asks chrome.downloads). */
    private readonly locate: (url: string) => Promise<string | null>,
    private readonly log: Logger,
  ) {}

  /** Browser.setDownloadBehavior from a client. */
  setBehavior(client: ClientSession, params: Partial<CommandParams<'Browser.setDownloadBehavior'>>): void {
    const behavior = typeof params.behavior === 'string' ? params.behavior : 'default';
    if (behavior === 'default' || behavior === 'deny') {
      this.#clients.delete(client);
      return;
    }
    this.#clients.set(client, { behavior, ...(typeof params.downloadPath === 'string' ? { downloadPath: params.downloadPath } : {}), eventsEnabled: params.eventsEnabled === true });
  }

  forget(client: ClientSession): void {
    this.#clients.delete(client);
  }

  /** A tab's Page.downloadWillBegin / Page.downloadProgress. */
  tabEvent(method: string, params: Record<string, unknown>): void {
    if (this.#clients.size === 0) return;
    const guid = String(params.guid ?? '');
    if (method === 'Page.downloadWillBegin') {
      this.#begun.set(guid, { url: String(params.url ?? '') });
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
    const wanting = [...this.#clients].filter(([, b]) => b.downloadPath !== undefined);
    if (begun && wanting.length > 0) {
      const file = await this.locate(begun.url).catch((error: Error) => {
        this.log.debug(`download ${guid}: ${error.message}`);
        return null;
      });
      for (const [, behavior] of wanting) {
        if (!file) continue;
        const target = path.join(behavior.downloadPath!, behavior.behavior === 'allowAndName' ? guid : path.basename(file));
        await mkdir(behavior.downloadPath!, { recursive: true })
          .then(() => copyFile(file, target))
          .catch((error: Error) => this.log.debug(`download ${guid} to ${target}: ${error.message}`));
      }
    }
    this.#tell('Browser.downloadProgress', params);
  }

  /** Page.download* params are Browser.download*'s but for the frame id, which Browser's clients ignore. */
  #tell<E extends 'Browser.downloadWillBegin' | 'Browser.downloadProgress'>(method: E, params: Record<string, unknown>): void {
    for (const [client, behavior] of this.#clients) if (behavior.eventsEnabled) say(client, '', method, params as unknown as EventParams<E>);
  }
}
