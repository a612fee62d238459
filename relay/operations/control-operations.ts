// Who controls a tab: hand it to the person (a log-in, a CAPTCHA) and wait for it back, end a
// hand-over from the agent's side, release an agent session's hold.

import { z } from 'zod';
import { intIn, text } from './fields';
import { operation } from './operation';
import { tabFields, targetId } from './shared-fields';

/** A hand-over ends by itself, and a wait for it gives up, after this long at most. */
export const MAX_HANDOFF_WAIT_MS = 10 * 60_000;

export type HandoffEnd = 'person' | 'agent' | 'timeout';

/** Who holds a tab, as `GET /tabs` shows it. */
export type HolderView =
  { kind: 'agent'; session: string } | { kind: 'person'; reason: string; since: string; takenOver?: true };

export interface HandoffResult {
  handedOff: true;
  targetId: string;
  reason: string;
  timeoutMs?: number;
  /** A signed-in live view link that watches the tab: one use, valid as long as the hand-over. */
  viewUrl: string;
}

export interface HandbackResult {
  targetId: string;
  /**
   * Who ended it; when the wait began after the end, who ended the last hand-over (until an agent
   * changes the tab again); `none` when there was none.
   */
  returned: HandoffEnd | 'none';
  url: string | null;
  title: string | null;
}

export const handoffWait = operation<HandbackResult>()({
  name: 'handoffWait',
  summary: 'wait until the person gives the tab back after a hand-over (at most 10 minutes); then take a new snapshot',
  input: z.object({
    ...tabFields,
    timeoutMs: intIn(0, MAX_HANDOFF_WAIT_MS)
      .default(MAX_HANDOFF_WAIT_MS)
      .describe('how long to wait in ms (default and at most 10 minutes)'),
  }),
  http: { method: 'GET', path: '/handoff/wait' },
  cli: { group: 'agent', name: 'handoff-wait', exitCode: (r) => (r.returned === 'timeout' ? 1 : 0) },
  mcp: { tool: 'handoff', as: 'wait' },
  example: {},
  text: (r) =>
    r.returned === 'timeout'
      ? 'the person did not give the tab back in time'
      : `the tab is back${r.returned === 'none' ? ' (it was not handed over)' : ` (${r.returned})`}: ${[r.title, r.url].filter(Boolean).join(' ')}`.trim(),
  clientTimeoutMs: (i) => i.timeoutMs + 10_000,
});

export const handoff = operation<HandoffResult>()({
  name: 'handoff',
  summary:
    'give the tab to the person when you cannot go on (a log-in, a CAPTCHA, a payment): answers a live view link to pass on to them',
  details:
    'The answer\'s viewUrl is a signed-in live view link that watches the tab (one use, valid as long as the hand-over, at most 10 minutes): the person acts in it from their own live view (the side panel\'s "Open the live view" in Chrome, or `clawd view` in their terminal), never from a link an agent holds. Until the tab comes back every agent call that would change it answers 423 user_in_control with the reason. The person gives it back with the live view\'s "Done — give it back" button, or, on a tab of their own browser, with the toolbar button (its badge reads YOU meanwhile). With wait (CLI, MCP) the answer comes when it is back; the CLI exits 1 when the wait runs out.',
  input: z.object({
    ...tabFields,
    reason: text().describe('what the person should do, e.g. "Log in, then press Done"'),
    timeoutMs: intIn(1_000, MAX_HANDOFF_WAIT_MS)
      .optional()
      .describe('end the hand-over by itself after this long (ms)'),
    wait: z.boolean().default(false).describe('then wait until it is given back (over HTTP: GET /handoff/wait)'),
  }),
  http: { method: 'POST', path: '/handoff' },
  logged: true,
  cli: { group: 'agent', args: [{ field: 'reason', value: 'REASON', rest: true }] },
  mcp: { tool: 'handoff', as: 'give' },
  example: { reason: 'Log in, then press Done', wait: true },
  text: (r) =>
    `handed ${r.targetId} to the person: "${r.reason}". This link lets them watch the tab (it works once): ${r.viewUrl} — they act in it from their own live view (clawd's side panel, or \`clawd view\`)`,
  followUp: {
    field: 'wait',
    operation: 'handoffWait',
    input: (r, i) => ({
      targetId: r.targetId,
      ...(i.session ? { session: i.session } : {}),
      ...(i.timeoutMs !== undefined ? { timeoutMs: i.timeoutMs } : {}),
    }),
  },
});

export const handoffEnd = operation<{ targetId: string; ended: boolean }>()({
  name: 'handoffEnd',
  summary: "end a hand-over from the agent's side: the tab is the agents' again",
  input: z.object({ ...tabFields }),
  http: { method: 'DELETE', path: '/handoff' },
  logged: true,
  cli: { group: 'agent', name: 'handoff-end' },
  mcp: { tool: 'handoff', as: 'end' },
  example: {},
  text: (r) => (r.ended ? `${r.targetId} is back with the agents` : `${r.targetId} was not handed over`),
});

/** What ask-wait answers: the question's end, or `waiting` (the wait ran out first). */
export interface AskWaitResult {
  id: string;
  answer: 'allowed' | 'declined' | 'unanswered' | 'withdrawn' | 'waiting';
  /** The call it asked about, as the log says it. */
  what: string;
}

export const askWait = operation<AskWaitResult>()({
  name: 'askWait',
  summary:
    'wait for the person’s answer to a question a call of yours raised (its id is in the waiting_for_person answer); then make the same call again',
  details:
    'A call the person asked to be asked about waits for their answer within its bound; past it (at once when no side panel or live view of theirs shows it — their browser notifies them) it answers 408 waiting_for_person with the question’s id and the question stays open for 10 minutes. The same call again (same session, kind and site) joins that question instead of asking again, and takes the person’s Allow once. Declined: the same call is refused (person_declined) for 10 minutes.',
  input: z.object({
    ...tabFields,
    id: z
      .string()
      .regex(/^q[0-9a-f]{12}$/, 'must be a question id, like q1a2b3c4d5e6f')
      .describe('the question’s id (q…)'),
    timeoutMs: intIn(0, MAX_HANDOFF_WAIT_MS).default(60_000).describe('how long to wait in ms (default 1 minute)'),
  }),
  http: { method: 'GET', path: '/asks/:id/wait' },
  cli: {
    group: 'agent',
    name: 'ask-wait',
    args: [{ field: 'id', value: 'ID' }],
    exitCode: (r) => (r.answer === 'allowed' ? 0 : 1),
  },
  mcp: { tool: 'handoff', as: 'ask' },
  example: { id: 'q1a2b3c4d5e6f' },
  text: (r) =>
    r.answer === 'allowed'
      ? `the person allowed ${r.what}: make the same call again (it is not asked twice)`
      : r.answer === 'waiting'
        ? `the person has not answered yet (${r.what}): wait again, or do something else meanwhile`
        : r.answer === 'declined'
          ? `the person declined ${r.what}: do not do it`
          : `no answer (${r.answer}): ${r.what} was not done`,
  clientTimeoutMs: (i) => i.timeoutMs + 10_000,
});

export const release = operation<{ targetId: string; released: boolean }>()({
  name: 'release',
  summary: "release an agent session's hold on a tab, so other sessions may change it",
  input: z.object({ ...tabFields, targetId: targetId().unwrap().describe('the tab: an id or a unique prefix of one') }),
  http: { method: 'DELETE', path: '/tabs/:targetId/hold' },
  cli: { group: 'agent', args: [{ field: 'targetId', value: 'ID' }] },
  mcp: { tool: 'tabs', as: 'release' },
  example: { targetId: '6A1F' },
  text: (r) => (r.released ? `released ${r.targetId}` : `${r.targetId} was not held`),
});

export type HandoffRequest = z.output<typeof handoff.input>;
export type HandoffWaitRequest = z.output<typeof handoffWait.input>;
