// Questions for the person: a call that does something the person asked to be asked about (a
// form sent, a file downloaded, a new site…) waits here until they allow or deny it in the side
// panel or the live view, within the call's own bound. Deny answers 403 `person_declined` and no
// answer within the bound `person_no_answer`: nothing happened either way. Each question and its
// answer is told to whoever listens (the action log, /events, the side panel). Every wait owns
// one timer, ended by the answer or by close().

import { randomBytes } from 'node:crypto';
import { ClawdError } from '../errors';
import { seconds } from '../time-limit';
import { ASK_KIND_TEXT, type AskKind } from '../../shared/ask-kinds';

export interface QuestionInput {
  profile: string;
  /** The tab it would happen in; none for a tab not open yet. */
  targetId?: string;
  /** What the call would do that the person asked about (one question may be several). */
  kinds: AskKind[];
  /** Who asks: the agent session, a raw CDP client (`cdp-3`), or nobody named. */
  session?: string;
  /** The call as the action log says it: `click e12 button "Buy now"`, `navigate https://…`. */
  what: string;
  /** Where: the page it happens on, or the address it would load. */
  url?: string;
  /**
   * The person's own terminal asks to loosen their rules (`what` says how): answered in the side
   * panel only, never in a live view (a view the terminal opened would be the terminal's word again).
   */
  terminal?: true;
}

export interface Question extends QuestionInput {
  id: string;
  /** When it was asked (ISO). */
  asked: string;
  /** When the asking call gives up (ISO). */
  expires: string;
}

/** `withdrawn`: the call that asked went away (its caller left) before the person answered. */
export type QuestionEnd = 'allowed' | 'declined' | 'unanswered' | 'withdrawn';

export type QuestionChange =
  { state: 'asked'; question: Question } | { state: QuestionEnd; question: Question; by?: string };

interface Waiting {
  question: Question;
  settle(end: QuestionEnd, by?: string): void;
}

/** Who answered in the person's own browser: the only one who may answer what their terminal asks. */
export const SIDE_PANEL = 'side panel';

/** The kinds in words, for a message: `sending a form and downloading a file`. */
export function kindsText(kinds: readonly AskKind[]): string {
  return kinds.map((kind) => ASK_KIND_TEXT[kind]).join(' and ');
}

export class PersonQuestions {
  // Added by ask(), removed when answered, timed out or closed.
  readonly #waiting = new Map<string, Waiting>();
  // Added by onChange, removed by the function it returns or by close().
  readonly #listeners = new Set<(change: QuestionChange) => void>();
  #closed = false;

  /**
   * Resolves when the person allows it; rejects person_declined, or person_no_answer after
   * `timeoutMs`, or at once once `signal` aborts (the caller left: the question is withdrawn).
   */
  ask(input: QuestionInput, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || signal?.aborted)
      return Promise.reject(
        new ClawdError(
          'person_no_answer',
          `${kindsText(input.kinds)}: ${input.what}: nobody can answer now (${this.#closed ? 'the server is stopping' : 'the call was given up'}); nothing was done`,
        ),
      );
    const now = Date.now();
    const question: Question = {
      ...input,
      id: `q${randomBytes(6).toString('hex')}`,
      asked: new Date(now).toISOString(),
      expires: new Date(now + timeoutMs).toISOString(),
    };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => waiting.settle('unanswered'), Math.max(0, timeoutMs));
      const withdraw = () => waiting.settle('withdrawn');
      signal?.addEventListener('abort', withdraw, { once: true });
      const waiting: Waiting = {
        question,
        settle: (end, by) => {
          if (this.#waiting.get(question.id) !== waiting) return;
          this.#waiting.delete(question.id);
          clearTimeout(timer);
          signal?.removeEventListener('abort', withdraw);
          this.#tell({ state: end, question, ...(by ? { by } : {}) });
          if (end === 'allowed') return resolve();
          const about = question.terminal
            ? `the change of your rules (${question.what})`
            : `${kindsText(question.kinds)}: ${question.what}`;
          reject(
            end === 'declined'
              ? new ClawdError('person_declined', `the person declined ${about}; nothing was done`)
              : end === 'withdrawn'
                ? new ClawdError(
                    'person_no_answer',
                    `the call that asked whether to allow ${about} was given up before the person answered; nothing was done`,
                  )
                : new ClawdError(
                    'person_no_answer',
                    `the person did not answer within ${seconds(timeoutMs)} whether to allow ${about}; nothing was done. Ask them, or try again with a longer timeoutMs`,
                  ),
          );
        },
      };
      this.#waiting.set(question.id, waiting);
      this.#tell({ state: 'asked', question });
    });
  }

  /**
   * The person's answer; false when the question is no longer waiting (answered, or its call gave
   * up), or when `by` may not answer it (the terminal's questions are the side panel's).
   */
  answer(id: string, allow: boolean, by: string): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    if (waiting.question.terminal && by !== SIDE_PANEL) return false;
    waiting.settle(allow ? 'allowed' : 'declined', by);
    return true;
  }

  /** Every question still waiting, oldest first (of one profile, when named). */
  pending(profile?: string): Question[] {
    return [...this.#waiting.values()]
      .map((w) => w.question)
      .filter((q) => profile === undefined || q.profile === profile);
  }

  /** Declines every question of the profile (the person pressed Stop). */
  declineAll(profile: string, by: string): void {
    for (const waiting of [...this.#waiting.values()])
      if (waiting.question.profile === profile) waiting.settle('declined', by);
  }

  onChange(listener: (change: QuestionChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The server is stopping: every waiting call hears that nobody answered, and nothing more is asked. */
  close(): void {
    this.#closed = true;
    for (const waiting of [...this.#waiting.values()]) waiting.settle('unanswered');
    this.#listeners.clear();
  }

  #tell(change: QuestionChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}
