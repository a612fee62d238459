// The fields many operations share, defined once: which tab, which agent session, how long it
// may take, and what of the page an action answers with. The MCP tool list describes them once
// (in the server's instructions) instead of on every tool; the CLI offers them as --target,
// --session and --timeout on every agent command.

import { z } from 'zod';
import { actionTimeout, session } from './fields';

export const targetId = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .describe('the tab: an id or a unique prefix of one (default: the tab last used)');

/** Which tab, and who asks. */
export const tabFields = {
  targetId: targetId(),
  session: session().describe('your agent session name: a tab you change is held for you'),
};

/**
 * What of the page an action (or a load) answers with: nothing (an action that loads another
 * page still says where it led, one that stays the words it made appear), a brief view (title, headings, what can be acted on, the site's
 * chrome outside main folded, cut at ~2,000 characters), what changed since the tab's last
 * snapshot (on another page — always so for a load — its brief view), or all of it.
 */
export const PAGE_VIEWS = ['none', 'brief', 'diff', 'full'] as const;
export type PageView = (typeof PAGE_VIEWS)[number];

/** Every action's own fields: its tab, session, bound and what of the page it answers with. */
export const actFields = {
  ...tabFields,
  timeoutMs: actionTimeout().describe('the whole call’s bound in ms (0.5–60 s, default 8 s; out of range is clamped)'),
  snapshot: z
    .enum(PAGE_VIEWS)
    .optional()
    .describe('answer with the page after it: none, brief, diff (what changed) or full'),
};

/** The names of the shared fields: described once, not on every MCP tool. */
export const SHARED_FIELDS = ['profile', 'targetId', 'session', 'timeoutMs', 'snapshot'] as const;

/** The profile is not a field of any input: HTTP takes it as `?profile=`, the CLI as `--profile`, MCP as an argument of every tool. */
export const PROFILE_HELP = "the clawd profile (default: the config's defaultProfile)";
