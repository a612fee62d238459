// Questions for the person: a call that does something the person asked to be asked about (a
// form sent, a file downloaded, a new site…) waits here until they allow or deny it — in the side
// panel, a notification of their browser, or the live view. A question outlives the call that
// asked it: when the call's bound runs out (at once when nowhere the person looks shows it: no
// side panel, no answering live view), the call answers `waiting_for_person` with the question's
// id, the question stays open (QUESTION_LIFE_MS), `wait` (ask-wait) hears its answer, and the
// same call again (keyOf: the same session, tab, element or address) takes its answer, one call
// at a time: a Yes lets one call through. A standing yes (person-approvals.ts) lets calls by
// unasked. Every question and answer is told to whoever listens (the action log, /events, the
// side panel, notifications). Every timer is owned by a question or a wait, ended by close().
// Kept whole (under the 400-line cap): a question's life, its joins, its remembered answer and its
// waits share one table of open questions; its words, bounds and codes are apart already.

import { randomBytes } from 'node:crypto';
import { ClawdError } from '../errors';
import type { AskKind } from '../../shared/ask-kinds';
import { PersonApprovals, type StandingScope } from './person-approvals';
import { GivenCodes, MAX_CODE_CHARS, MIN_CODE_CHARS } from './given-codes';
import { ANSWER_KEPT_MS, MAX_OPEN_PER_SESSION, QUESTION_LIFE_MS, UNSEEN_WAIT_MS, YES_KEPT_MS } from './question-limits';
import { about, endError, kindsText, standingWords, waitingError } from './question-words';

export { kindsText };
export { QUESTION_LIFE_MS, UNSEEN_WAIT_MS };

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
  /**
   * The site asks for a code it sent the person (e-mail, SMS): the name the agent gave it
   * (`{{code:NAME}}`). The person types it in the side panel; it never passes through the agent.
   */
  code?: string;
}

export interface Question extends QuestionInput {
  id: string;
  /** When it was asked (ISO). */
  asked: string;
  /** When it goes unanswered, if the person says nothing (ISO). */
  expires: string;
}

/** `withdrawn`: every call that asked went away (its caller left) before the person answered. */
export type QuestionEnd = 'allowed' | 'declined' | 'unanswered' | 'withdrawn';

export type QuestionChange =
  { state: 'asked'; question: Question } | { state: QuestionEnd; question: Question; by?: string };

/** What ask-wait hears: the question's end, or `waiting` when the wait ran out first. */
export type QuestionAnswer = QuestionEnd | 'waiting';

interface Waiter {
  /** A call waiting (a yes it hears is used), or ask-wait (it only listens). */
  call: boolean;
  settle(end: QuestionEnd, value?: string, denied?: boolean): void;
}

interface Open {
  question: Question;
  key: string;
  waiters: Set<Waiter>;
  /** Its own life: unanswered when it runs out. */
  timer: NodeJS.Timeout;
  /** The code the person typed (a code question's answer). */
  value?: string;
}

interface Ended {
  question: Question;
  key: string;
  end: QuestionEnd;
  at: number;
  /** A yes a call has used (or a No Stop made old): the same call again is asked afresh. */
  taken: boolean;
  value?: string;
}

/** Who answered in the person's own browser: the only one who may answer what their terminal asks. */
export const SIDE_PANEL = 'side panel';

export class PersonQuestions {
  readonly approvals: PersonApprovals;
  readonly #codes: GivenCodes;
  // Added by ask(), removed when answered, unanswered, withdrawn or closed.
  readonly #open = new Map<string, Open>();
  // Question id → how it ended, kept ANSWER_KEPT_MS (looked at on use) for the same call again and ask-wait.
  readonly #ended = new Map<string, Ended>();
  // Added by onChange, removed by the function it returns or by close().
  readonly #listeners = new Set<(change: QuestionChange) => void>();
  #closed = false;

  constructor(
    private readonly options: {
      /** Whether a place the person looks shows the profile's questions now (default: yes). */
      looking?: (profile: string) => boolean;
      now?: () => number;
    } = {},
  ) {
    this.approvals = new PersonApprovals(options.now);
    this.#codes = new GivenCodes(options.now);
  }

  /**
   * Resolves when the person allows it (or allowed it already: a standing yes, or their answer to
   * the same call asked before); rejects person_declined, `waiting_for_person` once the call's
   * part of the wait is over (the question stays open), or at once once `signal` aborts.
   */
  async ask(
    input: QuestionInput,
    timeoutMs: number,
    signal?: AbortSignal,
    /** The caller can wait for the answer apart (ask-wait): nowhere showing it, it hears at once. */
    waitsApart = false,
  ): Promise<void> {
    await this.#request(input, timeoutMs, signal, waitsApart);
  }

  /** The code the person types for the site (`input.code` names it), as ask() waits for a yes. */
  async askCode(input: QuestionInput & { code: string }, timeoutMs: number, signal?: AbortSignal): Promise<string> {
    return (await this.#request(input, timeoutMs, signal, true))!;
  }

  #request(
    input: QuestionInput,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    waitsApart: boolean,
  ): Promise<string | undefined> {
    if (this.#closed || signal?.aborted)
      return Promise.reject(
        new ClawdError(
          'person_no_answer',
          `${kindsText(input.kinds)}: ${input.what}: nobody can answer now (${this.#closed ? 'the server is stopping' : 'the call was given up'}); nothing was done`,
        ),
      );
    if (input.terminal) return this.#join(this.#ask(input, timeoutMs), timeoutMs, signal);
    const standing = input.code === undefined ? this.approvals.covering(input) : undefined;
    if (standing) {
      this.#tell({ state: 'allowed', question: this.#question(input, 0), by: standingWords(standing) });
      return Promise.resolve(undefined);
    }
    const key = keyOf(input);
    const answered = this.#answeredFor(key);
    if (answered?.end === 'allowed') {
      answered.taken = true;
      return Promise.resolve(answered.value);
    }
    if (answered?.end === 'declined')
      return Promise.reject(
        new ClawdError(
          'person_declined',
          `the person declined ${about(answered.question)} at ${new Date(answered.at).toLocaleTimeString()}; nothing was done`,
        ),
      );
    const same = [...this.#open.values()].find((o) => o.key === key);
    // One call waits on a question at a time: one Yes lets one call through, never a crowd.
    if (same && [...same.waiters].some((w) => w.call)) return Promise.reject(waitingError(same.question));
    if (!same && this.#openOf(input).length >= MAX_OPEN_PER_SESSION)
      return Promise.reject(
        new ClawdError(
          'too_many_questions',
          `${MAX_OPEN_PER_SESSION} questions of yours wait for the person already (${this.#openOf(input)
            .map((o) => o.question.id)
            .join(', ')}): wait for their answers (ask-wait ID) before asking more; nothing was done`,
        ),
      );
    const open = same ?? this.#ask(input, Math.max(timeoutMs, QUESTION_LIFE_MS));
    const unseen = waitsApart && this.options.looking?.(input.profile) === false;
    return this.#join(open, unseen ? Math.min(timeoutMs, UNSEEN_WAIT_MS) : timeoutMs, signal);
  }

  /**
   * The person's answer (`standing`: and the same on this site for a while, or in this tab until
   * it closes); false when the question is no longer open, or when `by` may not answer it (the
   * terminal's questions are the side panel's).
   */
  answer(id: string, allow: boolean, by: string, standing?: StandingScope, value?: string): boolean {
    const open = this.#open.get(id);
    if (!open) return false;
    if ((open.question.terminal || open.question.code !== undefined) && by !== SIDE_PANEL) return false;
    // A code question is answered with the code the person typed, and never for a while.
    if (open.question.code !== undefined && allow) {
      if (!value || value.length < MIN_CODE_CHARS || value.length > MAX_CODE_CHARS) return false;
      open.value = value;
      this.#codes.add(open.question.profile, value);
    } else if (allow && standing && !open.question.terminal) this.approvals.add(standing, open.question);
    this.#settle(open, allow ? 'allowed' : 'declined', by, !allow);
    return true;
  }

  /**
   * ask-wait: the question's answer once it comes (`waiting` when `timeoutMs` runs out first), or
   * how it ended; not_found for another profile's or agent session's question, or none kept.
   */
  wait(
    id: string,
    asker: { profile: string; session?: string | undefined },
    timeoutMs: number,
  ): Promise<{ question: Question; answer: QuestionAnswer }> {
    const { profile } = asker;
    const open = this.#open.get(id);
    const ended = this.#ended.get(id);
    const question = open?.question ?? (ended && this.#now() - ended.at < ANSWER_KEPT_MS ? ended.question : undefined);
    if (!question || question.profile !== profile || question.session !== asker.session)
      return Promise.reject(
        new ClawdError(
          'not_found',
          `no question ${JSON.stringify(id)} of this agent session on ${profile} (name the session that asked it; an answer is kept ${ANSWER_KEPT_MS / 60_000} minutes)`,
        ),
      );
    if (!open) return Promise.resolve({ question, answer: ended!.end });
    return new Promise((resolve) => {
      const waiter: Waiter = {
        call: false,
        settle: (end) => {
          clearTimeout(timer);
          resolve({ question, answer: end });
        },
      };
      const timer = setTimeout(() => {
        open.waiters.delete(waiter);
        resolve({ question, answer: 'waiting' });
      }, timeoutMs);
      open.waiters.add(waiter);
    });
  }

  /** Every question still open, oldest first (of one profile, when named). */
  pending(profile?: string): Question[] {
    return [...this.#open.values()]
      .map((o) => o.question)
      .filter((q) => profile === undefined || q.profile === profile);
  }

  /** The person pressed Stop: every question of the profile is declined, every yes of theirs there ends. */
  declineAll(profile: string, by: string): void {
    for (const open of [...this.#open.values()])
      if (open.question.profile === profile) this.#settle(open, 'declined', by);
    for (const ended of this.#ended.values()) if (ended.question.profile === profile) ended.taken = true;
    this.approvals.revokeAll(profile);
  }

  /** The tab closed: a yes until its end ends. */
  forgetTab(targetId: string): void {
    this.approvals.forgetTab(targetId);
  }

  onChange(listener: (change: QuestionChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The server is stopping: every waiting call hears that nobody answered, and nothing more is asked. */
  close(): void {
    this.#closed = true;
    for (const open of [...this.#open.values()]) this.#settle(open, 'unanswered');
    this.#listeners.clear();
  }

  #now(): number {
    return (this.options.now ?? Date.now)();
  }

  #question(input: QuestionInput, lifeMs: number): Question {
    const now = this.#now();
    return {
      ...input,
      id: `q${randomBytes(6).toString('hex')}`,
      asked: new Date(now).toISOString(),
      expires: new Date(now + lifeMs).toISOString(),
    };
  }

  /** A new open question, unanswered after `lifeMs`. */
  #ask(input: QuestionInput, lifeMs: number): Open {
    const open: Open = {
      question: this.#question(input, lifeMs),
      key: keyOf(input),
      waiters: new Set(),
      timer: setTimeout(() => this.#settle(open, 'unanswered'), Math.max(0, lifeMs)),
    };
    this.#open.set(open.question.id, open);
    this.#tell({ state: 'asked', question: open.question });
    return open;
  }

  /** The call waits on the question for `waitMs`; its caller leaving withdraws it when nobody else waits. */
  #join(open: Open, waitMs: number, signal: AbortSignal | undefined): Promise<string | undefined> {
    const { question } = open;
    return new Promise<string | undefined>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        open.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        call: true,
        settle: (end, value, denied) => {
          leave();
          if (end === 'allowed') resolve(value);
          else reject(endError(end, question, denied));
        },
      };
      const timer = setTimeout(() => {
        // The terminal's question ends with its call; an agent's stays for the person.
        if (question.terminal) return this.#settle(open, 'unanswered');
        leave();
        reject(waitingError(question));
      }, waitMs);
      const abort = () => {
        leave();
        if (![...open.waiters].some((w) => w.call)) this.#settle(open, 'withdrawn');
        reject(endError('withdrawn', question));
      };
      signal?.addEventListener('abort', abort, { once: true });
      open.waiters.add(waiter);
    });
  }

  #settle(open: Open, end: QuestionEnd, by?: string, denied = false): void {
    if (this.#open.get(open.question.id) !== open) return;
    this.#open.delete(open.question.id);
    clearTimeout(open.timer);
    const calls = [...open.waiters].some((w) => w.call);
    for (const waiter of [...open.waiters]) waiter.settle(end, open.value, denied);
    open.waiters.clear();
    // A yes a waiting call took is used; one that came after every call had gone waits for the same call again.
    this.#ended.set(open.question.id, {
      question: open.question,
      key: open.key,
      end,
      at: this.#now(),
      taken: calls,
      ...(open.value !== undefined ? { value: open.value } : {}),
    });
    this.#tell({ state: end, question: open.question, ...(by ? { by } : {}) });
  }

  /** The codes the person typed for the profile's sites lately: masked in every answer, as secrets are. */
  codesGiven(profile: string): string[] {
    return this.#codes.of(profile);
  }

  /** The open questions of the same agent session (on the same profile). */
  #openOf(input: QuestionInput): Open[] {
    return [...this.#open.values()].filter(
      (o) => !o.question.terminal && o.question.profile === input.profile && o.question.session === input.session,
    );
  }

  /** The answer the same call asked before got, while it is kept and not yet taken. */
  #answeredFor(key: string): Ended | undefined {
    const now = this.#now();
    let found: Ended | undefined;
    for (const [id, ended] of this.#ended) {
      if (now - ended.at >= ANSWER_KEPT_MS) this.#ended.delete(id);
      else if (ended.key !== key || ended.taken) continue;
      else if (ended.end === 'declined' || (ended.end === 'allowed' && now - ended.at < YES_KEPT_MS)) found = ended;
    }
    return found;
  }

  #tell(change: QuestionChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}

/**
 * One question as the same call again finds it: who asks, in which tab, what kinds, the call
 * itself as the log says it (its element, its address, its script) and where — a Yes is for that
 * call, never another on the same site.
 */
function keyOf(input: QuestionInput): string {
  return JSON.stringify([
    input.profile,
    input.session ?? '',
    input.targetId ?? '',
    [...input.kinds].sort(),
    input.what,
    input.url ?? '',
    input.code ?? '',
  ]);
}
