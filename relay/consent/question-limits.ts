// How long the person's questions and answers live, and how many an agent session may have open:
// the bounds person-questions.ts keeps them to, apart so each reads as one line of the rule.

/** How long a question waits for the person once its call has answered `waiting_for_person`. */
export const QUESTION_LIFE_MS = 10 * 60_000;
/** How long an answer is kept for ask-wait, and a No for the same call again, after its question ended. */
export const ANSWER_KEPT_MS = 10 * 60_000;
/** How long a Yes that came after its call had gone waits for that same call again (once). */
export const YES_KEPT_MS = 2 * 60_000;
/** The most questions one agent session may have open at once: more would be the person's nuisance. */
export const MAX_OPEN_PER_SESSION = 3;
/** How long a call waits when nowhere the person looks shows the question: an answer on its way. */
export const UNSEEN_WAIT_MS = 1_000;
