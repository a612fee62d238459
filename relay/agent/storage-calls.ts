// The agent's storage-export and storage-import: the profile's cookies and the local storage its
// tabs show, as Playwright's storageState — never a cookie of a host the profile's policy blocks.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ClawdError } from '../errors';
import type { TabRequest } from '../operations/page-operations';
import type { StorageExportResult, StorageImportResult } from '../operations/storage-operations';
import type { ProfileService } from '../profiles/profile-service';
import { within } from '../time-limit';
import type { AgentCall, AgentCalls } from './agent-calls';
import { saveCapture } from './capture/capture';
import { checkStorageState, readStorageState, writeStorageState } from './storage-state';

export class StorageCalls {
  constructor(
    private readonly calls: AgentCalls,
    private readonly profiles: ProfileService,
    private readonly home: string,
  ) {}

  /** The profile's cookies and the local storage its tabs show, saved as storageState JSON (0600). */
  async export(call: AgentCall): Promise<StorageExportResult> {
    const { profile } = call;
    const { page } = await this.calls.page(call);
    const read = await within(
      readStorageState(page.context()),
      30_000,
      () => new ClawdError('action_timeout', 'storage export: the browser did not answer within 30 s'),
    );
    // Cookies of hosts the profile's policy blocks are never handed out (the relay hides them from
    // the person's tabs already; a managed or remote browser's are left out here).
    const policy = this.profiles.policies.policy(profile);
    const state = { ...read, cookies: read.cookies.filter((cookie) => policy.cookieVerdict(cookie).allowed) };
    const file = await saveCapture(
      path.join(this.home, 'storage-states'),
      profile,
      'json',
      Buffer.from(`${JSON.stringify(state, null, 2)}\n`),
    );
    return { path: file, cookies: state.cookies.length, origins: state.origins.map((o) => o.origin), state };
  }

  /** Puts a storageState back: every cookie, and local storage where a tab shows its origin. */
  async import(
    call: AgentCall,
    request: TabRequest & { path?: string; state?: Record<string, unknown> },
  ): Promise<StorageImportResult> {
    const { profile } = call;
    const { page } = await this.calls.page(call);
    let raw: unknown = request.state;
    if (request.path !== undefined) {
      const text = await fs
        .readFile(request.path, 'utf8')
        .catch((error: Error) =>
          Promise.reject(
            new ClawdError('bad_request', `path ${JSON.stringify(request.path)} cannot be read: ${error.message}`),
          ),
        );
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ClawdError(
          'bad_request',
          `path ${JSON.stringify(request.path)} is not JSON: give a file storage-export wrote`,
        );
      }
    }
    const state = checkStorageState(raw);
    const policy = this.profiles.policies.policy(profile);
    for (const cookie of state.cookies) {
      const verdict = policy.cookieVerdict(cookie);
      if (!verdict.allowed)
        throw new ClawdError(
          'origin_blocked',
          `storage import: ${verdict.reason} (the origin policy of profile ${profile}); nothing was imported`,
        );
    }
    return within(
      writeStorageState(page.context(), state),
      30_000,
      () => new ClawdError('action_timeout', 'storage import: the browser did not answer within 30 s'),
    );
  }
}
