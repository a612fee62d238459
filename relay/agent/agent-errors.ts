// Playwright's errors, rewritten as what an agent should do next. Playwright puts the reason an
// action could not happen in its call log ("element is not visible", "<div> intercepts pointer
// events", …); that reason decides the code and the advice. One mapping, here.

import { ClawdError, isClawdError } from '../errors';
import { seconds as inSeconds } from '../time-limit';
import { flagged } from '../operations/instruction-lines';
import { pageTitle } from '../operations/page-fence';

export interface AgentErrorContext {
  /** What was being done, e.g. "click e12". */
  what: string;
  timeoutMs?: number;
}

export function toAgentError(error: unknown, context: AgentErrorContext): ClawdError {
  if (isClawdError(error)) return error;
  // Playwright colours its call log for terminals; an agent gets plain text.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
  const first = message.split('\n')[0]!.replace(/^\w+(\.\w+)*: /, '');
  const log = message.toLowerCase();
  // The caller's bound, when the call has one: Playwright is given what is left of it, less a reserve.
  const limit = Number(context.timeoutMs ?? message.match(/Timeout (\d+)ms exceeded/)?.[1] ?? NaN);
  const seconds = Number.isFinite(limit) ? inSeconds(limit) : 'its time limit';
  const fail = (code: ConstructorParameters<typeof ClawdError>[0], text: string) =>
    new ClawdError(code, text, { cause: error });

  const many = message.match(/resolved to (\d+) elements/);
  if (many) return fail('element_ambiguous', `${context.what}: matched ${many[1]} elements; take a new snapshot`);
  if (/target page, context or browser has been closed|target closed|page has been closed/i.test(message)) {
    return fail('target_closed', `${context.what}: the tab was closed`);
  }
  const covered = message.match(/(<[^>]+>[^\n]*?) intercepts pointer events/);
  if (covered)
    return fail(
      'not_interactable',
      // The covering element as Playwright quotes it: the page's words, said inline like a title.
      `${context.what}: not visible or covered (by ${pageTitle(covered[1]!)}): scroll it into view or close the overlay`,
    );
  if (log.includes('element is not visible') || log.includes('outside of the viewport')) {
    return fail(
      'not_interactable',
      `${context.what}: not visible or covered: scroll it into view or close the overlay`,
    );
  }
  if (log.includes('element is not enabled') || log.includes('element is disabled'))
    return fail('not_interactable', `${context.what}: the element is disabled`);
  if (log.includes('element is not editable'))
    return fail('not_interactable', `${context.what}: the element is read-only`);
  if (/is not an <input>|not an input element|does not have a role allowing/i.test(message))
    return fail('action_failed', `${context.what}: it is not a text field; type into a textbox ref`);
  if (/not a checkbox or radio/i.test(message))
    return fail('action_failed', `${context.what}: it is not a checkbox or radio button`);
  if (/not a <select> element/i.test(message))
    return fail('action_failed', `${context.what}: it is not a <select>; click its options instead`);
  if (/did not find some options/i.test(message))
    return fail('action_failed', `${context.what}: no option has that value or label`);
  if (/Not allowed/.test(message) && /setInputFiles|setFiles|setFileInputFiles/i.test(message)) {
    return fail(
      'action_failed',
      `${context.what}: Chrome refused to hand files to the page: in chrome://extensions, turn on "Allow access to file URLs" for clawd-browser`,
    );
  }
  if (/Timeout \d+ms exceeded/.test(message)) {
    const waiting = message.match(/waiting for ([^\n]+)/)?.[1];
    return fail(
      'action_timeout',
      `${context.what}: timed out after ${seconds}${waiting ? ` waiting for ${waiting.slice(0, 160)}` : ''}`,
    );
  }
  if (/printToPDF|PrintToPDF is not implemented/i.test(message)) {
    return fail('unsupported', 'PDF needs a headless browser: Chromium prints to PDF only in headless mode');
  }
  // What else failed may quote the page (an error it threw): flagged when it talks to an AI.
  return fail('action_failed', `${context.what}: ${flagged(first.slice(0, 300))}`);
}

/**
 * `pdf` on a browser that cannot print while it shows windows, said with the setting that helps.
 * Chromium 150 and 156 print headed too (measured on Linux, under Xvfb); a browser that cannot
 * answers in these words.
 */
export function headedPdfError(error: unknown, profile: string): ClawdError | undefined {
  if (!/printToPDF is not implemented|not supported in headful/i.test((error as Error)?.message ?? ''))
    return undefined;
  return new ClawdError(
    'unsupported',
    `the browser of profile ${profile} cannot print a PDF while it shows windows: for a managed profile, "headless": true in the browser section of config.json (the default; restart clawd serve after the edit)`,
  );
}
