// A profile's log-in state (cookies and local storage) taken out and put back, as Playwright's
// storageState JSON: an agent that logged in once can reuse it in another profile or another run.

import path from 'node:path';
import { z } from 'zod';
import { bad } from './fields';
import { operation } from './operation';
import { tabFields } from './shared-fields';

export interface StorageExportResult {
  /** The file written under the home (mode 0600: it holds log-in secrets). */
  path: string;
  cookies: number;
  /** Origins whose local storage is in it (those a tab showed). */
  origins: string[];
  /** The state itself, as Playwright's storageState. */
  state: {
    cookies: unknown[];
    origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
  };
}

export interface StorageImportResult {
  cookies: number;
  /** Origins whose local storage was set. */
  origins: string[];
  /** Origins no tab showed: their local storage was not set. */
  skipped: string[];
}

export const storageExport = operation<StorageExportResult>()({
  name: 'storageExport',
  summary:
    "save the profile's cookies and the local storage of the sites its tabs show, as Playwright's storageState JSON",
  details:
    "Written under the home's storage-states/ (mode 0600: it holds log-in secrets); the HTTP answer carries the state too, the CLI and MCP only say where it is. Local storage is read from the tabs that are open (clawd never opens a tab to read it).",
  input: z.object({ ...tabFields }),
  http: { method: 'GET', path: '/storage-state' },
  gate: { changes: false, asks: ['storage'] },
  cli: { group: 'profiles', name: 'storage-export' },
  mcp: { tool: 'storage', as: 'export' },
  example: {},
  text: (r) =>
    `saved ${r.cookies} cookies${r.origins.length ? ` and the local storage of ${r.origins.join(', ')}` : ''} to ${r.path} (it holds log-in secrets: keep it private)`,
});

export const storageImport = operation<StorageImportResult>()({
  name: 'storageImport',
  summary: 'put cookies and local storage back from a storageState JSON file (or object)',
  details:
    'Cookies are added for every site; local storage is set on the origins a tab of the profile shows, and the answer names the others (open a tab there and import again).',
  input: z.object({
    ...tabFields,
    // Resolved where the request is made (the CLI's folder), never the server's.
    path: z
      .string()
      .min(1)
      .transform((p) => path.resolve(p))
      .optional()
      .describe('a storageState JSON file, as storage-export writes it'),
    state: z.record(z.unknown()).optional().describe('the storageState itself (HTTP and MCP)'),
  }),
  check(input) {
    if ((input.path === undefined) === (input.state === undefined))
      throw bad('give path (a storageState file) or state (the storageState itself), one of them');
  },
  http: { method: 'POST', path: '/storage-state' },
  logged: true,
  gate: { changes: true, asks: ['storage'] },
  cli: { group: 'profiles', name: 'storage-import', args: [{ field: 'path', value: 'FILE', optional: true }] },
  mcp: { tool: 'storage', as: 'import' },
  example: { path: '/home/me/.clawd/storage-states/clawd-20261125-101500-1.json' },
  text: (r) =>
    `added ${r.cookies} cookies${r.origins.length ? `; local storage set for ${r.origins.join(', ')}` : ''}${r.skipped.length ? `; not open in a tab, so local storage not set: ${r.skipped.join(', ')} (open a tab there and import again)` : ''}`,
});
