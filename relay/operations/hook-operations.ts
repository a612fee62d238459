// Operations that answer what a page asks for later: the next file chooser (upload), dialog or
// download. Each is armed for a while; with `ref` it also clicks the element that opens it and
// answers once that happened. And the list of a tab's downloads.

import path from 'node:path';
import { z } from 'zod';
import { actionTimeout, clampedMs, ref } from './fields';
import { operation } from './operation';
import { pageTitle, pageWords } from './page-fence';
import { tabFields } from './shared-fields';

/** How long a hook stays armed: 2 minutes by default and at most, half a second at least. */
const MAX_ARM_MS = 120_000;

const hookFields = {
  ...tabFields,
  ref: ref().optional().describe('click this to open it, and answer once done'),
  timeoutMs: clampedMs(500, MAX_ARM_MS, MAX_ARM_MS).describe(
    'how long it stays armed in ms (default and at most 2 minutes)',
  ),
  clickTimeoutMs: actionTimeout().describe('the click’s bound in ms (default 8 s)'),
};
const hookInput = z.object(hookFields);
export type HookRequest = z.output<typeof hookInput>;

export interface ArmedResult {
  armed: 'file-chooser' | 'dialog' | 'download';
  targetId: string;
  /** Armed, not yet answered: for how long. */
  timeoutMs?: number;
  /** Answered (the ref was clicked): what happened. */
  ok?: true;
  files?: string[];
  dialog?: { type: string; message: string };
  download?: DownloadEntry;
}

export const upload = operation<ArmedResult>()({
  name: 'upload',
  summary: 'arm the next file chooser with these files; with ref, also click the element that opens it',
  details:
    "Armed for timeoutMs (default and at most 2 minutes; the last arm wins). With ref it clicks the element and answers once the chooser got the files, or, when that click opens nothing within 5 s (or timeoutMs, when shorter), disarms and says so (422). No native dialog opens, on a person's tab either.",
  input: z.object({
    ...hookFields,
    // Resolved where the request is made (the CLI's folder), never the server's.
    paths: z
      .array(
        z
          .string()
          .min(1)
          .transform((p) => path.resolve(p)),
      )
      .min(1, 'must list at least one file')
      .describe('file paths'),
  }),
  http: { method: 'POST', path: '/hooks/file-chooser' },
  logged: true,
  gate: { changes: true, asks: ['upload'], touches: (i) => (i.ref ? { sends: 'click' } : {}) },
  cli: { group: 'agent', args: [{ field: 'paths', value: 'PATH', rest: true }], flags: { ref: { value: 'REF' } } },
  mcp: { tool: 'upload' },
  // The server may wait for the hook (and for the person's answer) up to its timeoutMs: the client waits longer.
  clientTimeoutMs: (i) => i.timeoutMs + 70_000,
  example: { paths: ['/tmp/cv.pdf'], ref: 'e9' },
  text: (r, i) =>
    r.files
      ? `uploaded ${r.files.join(', ')}${i.ref ? ` via ${i.ref}` : ''}`
      : `armed: the next file chooser gets ${i.paths.join(', ')}`,
});

export const dialog = operation<ArmedResult>()({
  name: 'dialog',
  summary: 'arm the answer to the next alert, confirm or prompt; with ref, also click the element that opens it',
  details:
    "Armed for timeoutMs (default and at most 2 minutes; the last arm wins). With ref it clicks the element and answers with the dialog's type and message, or, when that click opens nothing within 5 s (or timeoutMs, when shorter), disarms and says so (422). Dialogs nobody armed for are dismissed in clawd's own browser and left to the person in theirs.",
  input: z.object({
    ...hookFields,
    accept: z
      .boolean({ required_error: 'is required: true to accept, false to dismiss' })
      .describe('accept (or dismiss) it'),
    promptText: z.string().optional().describe("a prompt's answer"),
  }),
  http: { method: 'POST', path: '/hooks/dialog' },
  logged: true,
  gate: { changes: true, touches: (i) => (i.ref ? { sends: 'click' } : {}) },
  cli: {
    group: 'agent',
    flags: { promptText: { value: 'TEXT' }, ref: { value: 'REF' } },
    extra: { dismiss: { help: 'dismiss it (--accept accepts it)', apply: (values) => void (values.accept ??= false) } },
  },
  mcp: { tool: 'dialog' },
  // The server may wait for the hook (and for the person's answer) up to its timeoutMs: the client waits longer.
  clientTimeoutMs: (i) => i.timeoutMs + 70_000,
  example: { accept: true, ref: 'e4' },
  text: (r, i) =>
    r.dialog
      ? `${i.accept ? 'accepted' : 'dismissed'} ${r.dialog.type}, which said:\n${pageWords(r.dialog.message)}`
      : `armed: the next dialog is ${i.accept ? 'accepted' : 'dismissed'}`,
});

export type DownloadState = 'in_progress' | 'complete' | 'failed' | 'cancelled';

export interface DownloadEntry {
  id: string;
  url: string;
  suggestedFilename: string;
  path: string | null;
  state: DownloadState;
  bytes: number | null;
  startedAt: string;
  error?: string;
}

export const download = operation<ArmedResult & { download: DownloadEntry }>()({
  name: 'download',
  summary: "wait for the tab's next download (with ref, click what starts it) and answer where the file was saved",
  details:
    "Every download a tab causes is saved under the home's downloads/<profile>/ (a safe, unique name). Past browser.downloadLimitMb (default 500) clawd's own or a remote browser cancels it, with the limit in the message; a person's browser cannot be told to, and there only clawd's copy is dropped. On a person's tab their file stays where their browser put it; clawd keeps a copy.",
  input: hookInput,
  http: { method: 'POST', path: '/hooks/download' },
  logged: true,
  gate: { changes: true, asks: ['download'], touches: (i) => (i.ref ? { sends: 'click' } : {}) },
  cli: { group: 'agent', flags: { ref: { value: 'REF' } } },
  mcp: { tool: 'download', as: 'wait' },
  example: { ref: 'e14' },
  text: (r) => `saved ${pageTitle(r.download.suggestedFilename)} (${r.download.bytes} bytes) to ${r.download.path}`,
  clientTimeoutMs: (i) => i.timeoutMs + 70_000,
});

export const downloads = operation<{ targetId: string; downloads: DownloadEntry[] }>()({
  name: 'downloads',
  summary: "the tab's downloads (the last 100): saved, failed or cancelled",
  input: z.object({ ...tabFields }),
  http: { method: 'GET', path: '/downloads' },
  cli: { group: 'agent' },
  mcp: { tool: 'download', as: 'list' },
  example: {},
  text: (r) =>
    r.downloads.length
      ? r.downloads
          .map(
            (d) => `${d.id}  ${d.state.padEnd(11)} ${d.path ?? d.suggestedFilename}${d.error ? `  (${d.error})` : ''}`,
          )
          .join('\n')
      : 'no downloads',
});

export type FileChooserRequest = z.output<typeof upload.input>;
export type DialogRequest = z.output<typeof dialog.input>;
