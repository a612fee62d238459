// The person's questions in words: what a question is about, why a call that asked it did not go
// on (declined, given up, unanswered), and whose standing yes let one by. Kept apart from
// person-questions.ts, which keeps the questions themselves.

import { ClawdError } from '../errors';
import { ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';
import type { Approval } from './person-approvals';

/** What of a question its words need (person-questions.ts Question). */
interface Asked {
  kinds: AskKind[];
  what: string;
  expires: string;
  terminal?: true;
  code?: string;
}
type Ended = 'allowed' | 'declined' | 'unanswered' | 'withdrawn';

/** The kinds in words, for a message: `sending a form and downloading a file`. */
export function kindsText(kinds: readonly AskKind[]): string {
  return kinds.map((kind) => ASK_KIND_TEXT[kind]).join(' and ');
}

export function about(question: Asked): string {
  return question.terminal
    ? `the change of your rules (${question.what})`
    : question.code !== undefined
      ? `typing the code the site sent them (${question.code}): ${question.what}`
      : `${kindsText(question.kinds)}: ${question.what}`;
}

/** The refusals that are the person's own Deny of the question asked: not their Stop, nor an earlier answer. */
const denials = new WeakSet<Error>();

/**
 * Whether a refusal is the person's own Deny of that very question: what may undo something of
 * theirs (a refused download's file in their Downloads folder) — never a Stop, an earlier answer,
 * a question that could not be asked (an agent can bring those about) or one unanswered.
 */
export function deniedByPerson(error: unknown): boolean {
  return error instanceof Error && denials.has(error);
}

/** `denied`: the person pressed Deny on this question (deniedByPerson). */
export function endError(end: Ended, question: Asked, denied = false): ClawdError {
  if (end === 'declined') {
    const error = new ClawdError('person_declined', `the person declined ${about(question)}; nothing was done`);
    if (denied) denials.add(error);
    return error;
  }
  return end === 'withdrawn'
    ? new ClawdError(
        'person_no_answer',
        `the call that asked whether to allow ${about(question)} was given up before the person answered; nothing was done`,
      )
    : new ClawdError(
        'person_no_answer',
        `the person did not answer whether to allow ${about(question)} by ${new Date(question.expires).toLocaleTimeString()}; nothing was done. Ask them, or try again`,
      );
}

export function standingWords(approval: Approval): string {
  return approval.until
    ? `your yes on ${approval.origin} until ${new Date(approval.until).toLocaleTimeString()}`
    : `your yes on ${approval.origin} in this tab`;
}

/** The call answers before the person did: the question stays open, and says how to wait for it. */
export function waitingError(question: Asked & { id: string }): ClawdError {
  return new ClawdError(
    'waiting_for_person',
    `the person has not answered yet whether to allow ${about(question)} (question ${question.id}); nothing was done. Wait for their answer (ask-wait ${question.id}, in the same session; GET /asks/${question.id}/wait; MCP handoff action ask), then make the same call again (the same element, address or script, in the same tab): it is not asked twice`,
  );
}
