// The agent's calls that wait for what the page asks of a person — a file chooser, a dialog, a
// download — armed before the click that causes it (hooks.ts, downloads.ts), and a PDF of the page.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type {
  ArmedResult,
  DialogRequest,
  DownloadEntry,
  FileChooserRequest,
  HookRequest,
} from '../operations/hook-operations';
import type { SavedFile } from '../operations/page-operations';
import { seconds, within } from '../time-limit';
import { headedPdfError, toAgentError } from './agent-errors';
import type { AgentCall, AgentCalls } from './agent-calls';
import { saveCapture } from './capture/capture';
import type { Downloads } from './capture/downloads';
import type { HookKind, Hooks } from './hooks';
import type { AgentPage } from './tabs/page-finder';
import type { Snapshots } from './snapshots/snapshots';

export class HookCalls {
  constructor(
    private readonly calls: AgentCalls,
    private readonly snapshots: Snapshots,
    private readonly hooks: Hooks,
    private readonly saved: Downloads,
    private readonly home: string,
    private readonly log: Logger,
  ) {}

  async pdf(call: AgentCall): Promise<SavedFile> {
    const { page, targetId } = await this.calls.page(call);
    let buffer: Buffer;
    try {
      buffer = await page.pdf();
    } catch (error) {
      throw headedPdfError(error, call.profile) ?? toAgentError(error, { what: 'pdf' });
    }
    const file = await saveCapture(path.join(this.home, 'pdfs'), call.profile, 'pdf', buffer);
    return { path: file, bytes: buffer.length, targetId };
  }

  async fileChooser(call: AgentCall, request: FileChooserRequest): Promise<ArmedResult> {
    for (const [i, file] of request.paths.entries()) {
      const stat = await fs.stat(file).catch(() => undefined);
      if (!stat?.isFile())
        throw new ClawdError('bad_request', `paths[${i}] ${JSON.stringify(file)} does not exist or is not a file`);
    }
    return this.#arm(call, request, 'file-chooser', ({ page }) =>
      this.hooks.armFileChooser(page, request.paths, request.timeoutMs).then((files) => ({ files })),
    );
  }

  async dialog(call: AgentCall, request: DialogRequest): Promise<ArmedResult> {
    return this.#arm(call, request, 'dialog', ({ page, state }) =>
      this.hooks
        .armDialog(page, state, request.accept, request.promptText, request.timeoutMs)
        .then((dialog) => ({ dialog })),
    );
  }

  /** What downloads the tab's page caused, saved under the home. */
  async downloads(call: AgentCall): Promise<{ targetId: string; downloads: DownloadEntry[] }> {
    const { page, targetId } = await this.calls.page(call);
    return { targetId, downloads: this.saved.list(page) };
  }

  /**
   * The download hook: waits for the tab's next download to be saved (with `ref`, clicks it
   * first) and answers its path; a download that fails or is cancelled (past the size limit)
   * says so.
   */
  async download(call: AgentCall, request: HookRequest): Promise<ArmedResult & { download: DownloadEntry }> {
    const { page, tab, targetId } = await this.calls.page(call);
    const target = request.ref ? await this.snapshots.resolve(page, tab, request.ref) : undefined;
    const next = this.saved.next(page);
    try {
      if (target)
        await target
          .click({ timeout: request.clickTimeoutMs })
          .catch((error: unknown) =>
            Promise.reject(toAgentError(error, { what: `download hook, clicking ${request.ref}` })),
          );
      const entry = await within(
        next.done,
        request.timeoutMs,
        () =>
          new ClawdError(
            'action_timeout',
            `download hook: no download finished within ${seconds(request.timeoutMs)}${request.ref ? `; did ${request.ref} start one?` : ''}`,
          ),
      );
      if (entry.state !== 'complete')
        throw new ClawdError('action_failed', `download of ${entry.suggestedFilename} ${entry.error ?? entry.state}`);
      return { ok: true, armed: 'download', targetId, download: entry };
    } finally {
      next.cancel();
    }
  }

  /** Arms a hook; with `ref`, clicks it and waits for the hook to be answered. */
  async #arm(
    call: AgentCall,
    request: HookRequest,
    kind: HookKind,
    arm: (found: AgentPage) => Promise<Partial<ArmedResult>>,
  ): Promise<ArmedResult> {
    const found = await this.calls.page(call);
    const { page, tab, targetId } = found;
    const target = request.ref ? await this.snapshots.resolve(page, tab, request.ref) : undefined;
    const deadline = Date.now() + request.timeoutMs;
    const answered = arm(found);
    if (!target || !request.ref) {
      answered.catch((error: Error) => this.log.debug(`${kind} hook: ${error.message}`));
      return { armed: kind, targetId, timeoutMs: request.timeoutMs };
    }
    const answer = await this.hooks.clickAndAwait(
      page,
      kind,
      answered,
      target,
      request.ref,
      request.clickTimeoutMs,
      deadline,
    );
    return { ok: true, armed: kind, targetId, ...answer };
  }
}
