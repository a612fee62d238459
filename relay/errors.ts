// Every failure a client can see has a stable code, listed here once and documented in
// docs/errors.md. Code elsewhere throws ClawdError(code, message); only this file decides how
// a code becomes an HTTP status or a CDP error object, so the mapping cannot drift per route.

import { PAGE_MARKS } from '../shared/page-marks';

const ERROR_CODES = {
  // HTTP and upgrade guards
  unauthorized: { http: 401, cdp: -32000 },
  host_not_allowed: { http: 403, cdp: -32000 },
  origin_not_allowed: { http: 403, cdp: -32000 },
  not_found: { http: 404, cdp: -32000 },
  method_not_allowed: { http: 405, cdp: -32000 },
  bad_request: { http: 400, cdp: -32602 },
  too_many_clients: { http: 503, cdp: -32000 },
  // CDP framing (JSON-RPC codes Chrome itself uses)
  parse_error: { http: 400, cdp: -32700 },
  invalid_request: { http: 400, cdp: -32600 },
  method_not_found: { http: 404, cdp: -32601 },
  invalid_params: { http: 400, cdp: -32602 },
  session_not_found: { http: 404, cdp: -32001 },
  // the relay's own conditions
  extension_not_connected: { http: 503, cdp: -32000 },
  target_not_found: { http: 404, cdp: -32000 },
  target_closed: { http: 410, cdp: -32000 },
  target_crashed: { http: 410, cdp: -32000 },
  browser_gone: { http: 410, cdp: -32000 },
  grid_busy: { http: 503, cdp: -32000 },
  too_many_browsers: { http: 429, cdp: -32000 },
  target_paused: { http: 409, cdp: -32000 },
  command_timeout: { http: 504, cdp: -32000 },
  extension_error: { http: 502, cdp: -32000 },
  unsupported: { http: 501, cdp: -32000 },
  // profiles and their browsers
  browser_disabled: { http: 503, cdp: -32000 },
  profile_not_found: { http: 404, cdp: -32000 },
  profile_exists: { http: 409, cdp: -32000 },
  recipe_exists: { http: 409, cdp: -32000 },
  invalid_profile: { http: 400, cdp: -32602 },
  target_ambiguous: { http: 409, cdp: -32000 },
  not_running: { http: 409, cdp: -32000 },
  attach_only: { http: 409, cdp: -32000 },
  launch_failed: { http: 500, cdp: -32000 },
  executable_not_found: { http: 503, cdp: -32000 },
  upstream_error: { http: 502, cdp: -32000 },
  // the agent layer (snapshots, refs, actions)
  ref_unknown: { http: 400, cdp: -32602 },
  snapshot_unknown: { http: 400, cdp: -32602 },
  request_unknown: { http: 404, cdp: -32000 },
  trace_running: { http: 409, cdp: -32000 },
  no_trace: { http: 409, cdp: -32000 },
  tab_held: { http: 423, cdp: -32000 },
  user_in_control: { http: 423, cdp: -32000 },
  ref_stale: { http: 409, cdp: -32000 },
  element_ambiguous: { http: 409, cdp: -32000 },
  not_interactable: { http: 409, cdp: -32000 },
  action_failed: { http: 422, cdp: -32000 },
  action_timeout: { http: 408, cdp: -32000 },
  caller_gone: { http: 499, cdp: -32000 },
  evaluate_disabled: { http: 403, cdp: -32000 },
  secret_refused: { http: 403, cdp: -32000 },
  totp_invalid: { http: 400, cdp: -32602 },
  origin_blocked: { http: 403, cdp: -32000 },
  policy_not_enforced: { http: 503, cdp: -32000 },
  // the person's say over their own browser
  person_declined: { http: 403, cdp: -32000 },
  person_only: { http: 403, cdp: -32000 },
  person_no_answer: { http: 408, cdp: -32000 },
  waiting_for_person: { http: 408, cdp: -32000 },
  too_many_questions: { http: 429, cdp: -32000 },
  person_active: { http: 423, cdp: -32000 },
  tab_open_refused: { http: 403, cdp: -32000 },
  focus_refused: { http: 403, cdp: -32000 },
  // process and configuration
  config_invalid: { http: 500, cdp: -32000 },
  port_in_use: { http: 500, cdp: -32000 },
  internal: { http: 500, cdp: -32000 },
} as const satisfies Record<string, { http: number; cdp: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface CdpErrorObject {
  code: number;
  message: string;
  data?: string;
}

export class ClawdError extends Error {
  readonly code: ErrorCode;
  /** Chrome's own protocol error, passed to CDP clients unchanged. */
  readonly cdp: CdpErrorObject | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; cdp?: CdpErrorObject } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClawdError';
    this.code = code;
    this.cdp = options.cdp;
  }
}

export function isClawdError(error: unknown): error is ClawdError {
  return error instanceof ClawdError;
}

/** Any thrown value as a ClawdError; unknown errors become `internal` with the original as cause. */
function asClawdError(error: unknown): ClawdError {
  if (error instanceof ClawdError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ClawdError('internal', message, { cause: error });
}

export function httpStatusOf(error: unknown): number {
  return ERROR_CODES[asClawdError(error).code]?.http ?? 500; // a code from a newer server is still an error
}

/**
 * The `{ error: { code, message } }` body every HTTP error response carries. A message quoting the
 * page (page-marks.ts) is said as is in `message`, and with its marks in `pageMarked`, for a
 * client that fences the page's words (the CLI does, as it fences an answer's).
 */
export function httpErrorBody(error: unknown): {
  error: { code: ErrorCode; message: string; pageMarked?: string };
} {
  const e = asClawdError(error);
  const message = e.message.replace(PAGE_MARKS, '');
  return { error: { code: e.code, message, ...(message !== e.message ? { pageMarked: e.message } : {}) } };
}

/** The `error` member of a CDP response. Chrome's own errors pass through untouched. */
export function cdpErrorOf(error: unknown): CdpErrorObject {
  const e = asClawdError(error);
  if (e.cdp) return e.cdp;
  return { code: ERROR_CODES[e.code]?.cdp ?? -32000, message: e.message.replace(PAGE_MARKS, '') };
}
