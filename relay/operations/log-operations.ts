// The action log read back: what agents did on a profile's tabs, newest last, one line each.

import { z } from 'zod';
import { elementLine } from '../../shared/element-line';
import type { ActionEntry } from '../events/event-bus';
import { intIn } from './fields';
import { operation } from './operation';
import { tabFields } from './shared-fields';

/** One entry as a line: time, tab, session, what, the element, the page, the outcome. */
export function actionLine(e: ActionEntry): string {
  const element = e.element ? ` ${elementLine(e.element)}` : '';
  const text = e.text
    ? ` (${e.text.value !== undefined ? JSON.stringify(e.text.value) : `${e.text.length} characters`})`
    : '';
  const who = [e.targetId?.slice(0, 8), e.session].filter(Boolean).join(' ');
  return `${e.time.slice(11, 19)} ${who ? `${who} ` : ''}${e.kind}${element}${text}${e.url ? ` ${e.url}` : ''} → ${e.outcome}${e.detail ? ` (${e.detail})` : ''} ${e.durationMs} ms`;
}

export const log = operation<{ profile: string; entries: ActionEntry[] }>()({
  name: 'log',
  summary: "what agents did on the profile's tabs: actions, navigations, tabs opened and closed, hand-overs, refusals",
  details:
    "Recorded as JSON lines under the home's log/ (a file a day, the last 14 kept, mode 0600). Typed text is kept as its length only, unless browser.logText is true; a password field's value never. --follow prints new entries as they come.",
  input: z.object({
    targetId: tabFields.targetId,
    session: tabFields.session,
    since: z
      .string()
      .datetime({ offset: true, message: 'must be a time like 2026-11-25T10:00:00Z' })
      .optional()
      .describe('only entries after this time'),
    limit: intIn(1, 1_000).default(100).describe('the newest this many (default 100)'),
    waitMs: intIn(0, 60_000).default(0).describe('wait this long for a next entry'),
  }),
  http: { method: 'GET', path: '/log' },
  cli: {
    group: 'agent',
    flags: { since: { value: 'TIME' }, waitMs: { flag: 'wait', value: 'MS' } },
    repeat: {
      flag: 'follow',
      help: 'keep printing new entries as they come (Ctrl+C ends it)',
      next: (r, i) => ({ ...i, waitMs: 30_000, ...(r.entries.length ? { since: r.entries.at(-1)!.time } : {}) }),
    },
  },
  mcp: { tool: 'browser', as: 'log' },
  example: { limit: 20 },
  text: (r) => (r.entries.length ? r.entries.map(actionLine).join('\n') : 'nothing recorded'),
  clientTimeoutMs: (i) => i.waitMs + 30_000,
});
