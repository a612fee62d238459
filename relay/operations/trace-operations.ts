// A Playwright trace of what happened in a profile's browser while it ran: each agent call as a
// named action ("click e12 button \"Save\""), DOM snapshots, screenshots, network and console —
// opened with `npx playwright show-trace PATH`. Off until started; one trace per profile at a time.

import { z } from 'zod';
import { operation } from './operation';
import { tabFields } from './shared-fields';

export interface TraceResult {
  action: 'start' | 'stop';
  targetId: string;
  /** stop: the zip, under the home's traces/ (mode 0600: it holds the pages' contents). */
  path?: string;
  bytes?: number;
  /** stop: the agent calls the trace names. */
  actions?: number;
}

export const trace = operation<TraceResult>()({
  name: 'trace',
  summary: 'start or stop a Playwright trace of the tab (your calls by name, DOM snapshots, network, console)',
  details:
    "One trace per profile at a time, of the browser context the tab is in (its other tabs too). stop saves it under the home's traces/ (mode 0600: it holds what the pages showed); open it with npx playwright show-trace PATH. Nothing is recorded until start.",
  input: z.object({
    ...tabFields,
    action: z.enum(['start', 'stop']),
    screenshots: z.boolean().default(true).describe('a screencast (default true)'),
    snapshots: z.boolean().default(true).describe('DOM snapshots (default true)'),
  }),
  http: { method: 'POST', path: '/trace/:action' },
  cli: {
    group: 'agent',
    args: [{ field: 'action', value: 'start|stop' }],
    // On by default: the flags that matter on the command line are the ones that turn them off.
    extra: {
      'no-screenshots': { help: 'no screencast', apply: (values) => void (values.screenshots = false) },
      'no-snapshots': { help: 'no DOM snapshots', apply: (values) => void (values.snapshots = false) },
    },
  },
  mcp: { tool: 'trace' },
  example: { action: 'start' },
  text: (r) =>
    r.action === 'start'
      ? `tracing tab ${r.targetId}: stop it to save the trace`
      : `saved the trace (${r.actions} calls, ${r.bytes} bytes) to ${r.path}: npx playwright show-trace ${r.path}`,
  clientTimeoutMs: () => 90_000,
});

export type TraceRequest = z.output<typeof trace.input>;
