import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseAskKinds } from '../../shared/ask-kinds';
import { PersonActivity } from '../../relay/consent/person-activity';
import { STANDING_MS } from '../../relay/consent/person-approvals';
import {
  PersonQuestions,
  QUESTION_LIFE_MS,
  SIDE_PANEL,
  UNSEEN_WAIT_MS,
  type QuestionChange,
} from '../../relay/consent/person-questions';
import { deniedByPerson } from '../../relay/consent/question-words';

afterEach(() => void vi.useRealTimers());

describe('questions for the person', () => {
  const input = {
    profile: 'chrome',
    targetId: 'T1',
    kinds: ['submit' as const],
    session: 'shop',
    what: 'click e12 button "Buy now"',
    url: 'https://shop.test/cart',
  };

  it('let the call go when the person allows it, and say the question and its answer', async () => {
    const questions = new PersonQuestions();
    const told: QuestionChange[] = [];
    questions.onChange((change) => told.push(change));
    const asked = questions.ask(input, 5_000);
    const [question] = questions.pending('chrome');
    expect(question).toMatchObject({ kinds: ['submit'], what: 'click e12 button "Buy now"' });
    expect(questions.answer(question!.id, true, 'side panel')).toBe(true);
    await expect(asked).resolves.toBeUndefined();
    expect(told.map((c) => c.state)).toEqual(['asked', 'allowed']);
    expect(told[1]).toMatchObject({ by: 'side panel' });
    expect(questions.pending()).toEqual([]);
    expect(questions.answer(question!.id, true, 'side panel')).toBe(false); // answered already
  });

  it("take the answer to the person's terminal from the side panel only, never a live view", async () => {
    const questions = new PersonQuestions();
    const asked = questions.ask(
      { profile: 'chrome', kinds: [], what: 'chrome: stop asking before sending a form', terminal: true },
      5_000,
    );
    const [question] = questions.pending();
    expect(questions.answer(question!.id, true, 'live view')).toBe(false);
    expect(questions.pending()).toHaveLength(1);
    expect(questions.answer(question!.id, false, SIDE_PANEL)).toBe(true);
    await expect(asked).rejects.toMatchObject({
      code: 'person_declined',
      message:
        'the person declined the change of your rules (chrome: stop asking before sending a form); nothing was done',
    });
  });

  it('refuse with person_declined on Deny; when the bound runs out, answer waiting_for_person and keep the question', async () => {
    vi.useFakeTimers();
    const questions = new PersonQuestions();
    const denied = questions.ask(input, 5_000);
    questions.answer(questions.pending()[0]!.id, false, 'live view');
    await expect(denied).rejects.toMatchObject({
      code: 'person_declined',
      message: expect.stringContaining(
        'sending a form (a submit button, Enter in a form field): click e12 button "Buy now"',
      ),
    });
    // Heard by the call that waited: the same call again is asked afresh.
    const unanswered = questions.ask(input, 5_000);
    const caught = unanswered.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5_000);
    const [open] = questions.pending();
    expect(await caught).toMatchObject({
      code: 'waiting_for_person',
      message: expect.stringContaining(
        `(question ${open!.id}); nothing was done. Wait for their answer (ask-wait ${open!.id}`,
      ),
    });
    // It stays for the person (QUESTION_LIFE_MS), then goes unanswered.
    await vi.advanceTimersByTimeAsync(QUESTION_LIFE_MS - 5_001);
    expect(questions.pending()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(questions.pending()).toEqual([]);
    expect(await questions.wait(open!.id, { profile: 'chrome', session: 'shop' }, 1_000)).toMatchObject({
      answer: 'unanswered',
    });
  });

  it('ask the same call once: a retry joins the open question, one call at a time, and takes the answer given after the call left (once)', async () => {
    vi.useFakeTimers();
    const questions = new PersonQuestions();
    const told: QuestionChange[] = [];
    questions.onChange((change) => told.push(change));
    const first = questions.ask(input, 1_000).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await first).toMatchObject({ code: 'waiting_for_person' });
    const [open] = questions.pending();
    // ask-wait hears the answer; it does not use it.
    const waited = questions.wait(open!.id, { profile: 'chrome', session: 'shop' }, 60_000);
    // The same call again joins it: no second question; a second one at once is not let wait on it
    // too (one Yes, one call).
    const again = questions.ask(input, 1_000).catch((error: unknown) => error);
    expect(questions.pending()).toHaveLength(1);
    await expect(questions.ask(input, 1_000)).rejects.toMatchObject({ code: 'waiting_for_person' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await again).toMatchObject({ code: 'waiting_for_person' });
    // Another call on the same site (another element, another tab) is a question of its own.
    void questions.ask({ ...input, what: 'click e15 button "Send money"' }, 1_000).catch(() => {});
    void questions.ask({ ...input, targetId: 'T2' }, 1_000).catch(() => {});
    expect(questions.pending()).toHaveLength(3);
    // And an agent session has at most three open: the next is refused, not asked.
    await expect(questions.ask({ ...input, what: 'click e16 button "Other"' }, 1_000)).rejects.toMatchObject({
      code: 'too_many_questions',
    });
    expect(questions.pending()).toHaveLength(3);
    questions.answer(open!.id, true, 'side panel');
    expect(await waited).toMatchObject({ answer: 'allowed', question: { id: open!.id } });
    await expect(questions.wait(open!.id, { profile: 'other', session: 'shop' }, 10)).rejects.toMatchObject({
      code: 'not_found',
    });
    // Another agent session does not read it.
    await expect(questions.wait(open!.id, { profile: 'chrome', session: 'x' }, 10)).rejects.toMatchObject({
      code: 'not_found',
    });
    // The next same call is let through by that yes, once; another session's is asked.
    await expect(questions.ask(input, 1_000)).resolves.toBeUndefined();
    expect(questions.pending()).toHaveLength(2);
    void questions.ask({ ...input, session: 'other' }, 1_000).catch(() => {});
    expect(questions.pending()).toHaveLength(3);
    void questions.ask(input, 1_000).catch(() => {});
    expect(questions.pending()).toHaveLength(4); // the shop session's third, asked afresh
    expect(told.filter((c) => c.state === 'asked')).toHaveLength(5);
    questions.close();
  });

  it('answer at once when nowhere the person looks shows the question, after a moment for an answer on its way', async () => {
    vi.useFakeTimers();
    const questions = new PersonQuestions({ looking: (profile) => profile === 'work' });
    const unseen = questions.ask(input, 20_000, undefined, true).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(UNSEEN_WAIT_MS);
    expect(await unseen).toMatchObject({ code: 'waiting_for_person' });
    const seen = questions.ask({ ...input, profile: 'work' }, 20_000, undefined, true);
    await vi.advanceTimersByTimeAsync(UNSEEN_WAIT_MS * 5);
    questions.answer(questions.pending('work')[0]!.id, true, 'live view');
    await expect(seen).resolves.toBeUndefined();
    questions.close();
  });

  it('take a code question’s answer from the side panel only, with the code; the same call again gets it once', async () => {
    vi.useFakeTimers();
    const questions = new PersonQuestions();
    const code = { ...input, kinds: [], what: 'type e5 textbox "Code"', code: 'sms' };
    const asked = questions.askCode(code, 1_000).catch((error: unknown) => error);
    const [open] = questions.pending();
    expect(questions.answer(open!.id, true, 'live view', undefined, '1234')).toBe(false);
    expect(questions.answer(open!.id, true, SIDE_PANEL)).toBe(false); // no code: no answer
    expect(questions.answer(open!.id, true, SIDE_PANEL, 'minutes', 'x'.repeat(65))).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await asked).toMatchObject({ code: 'waiting_for_person' });
    expect(questions.answer(open!.id, true, SIDE_PANEL, 'minutes', '864209')).toBe(true);
    expect(questions.approvals.list('chrome')).toEqual([]); // never a standing yes
    expect(questions.codesGiven('chrome')).toEqual(['864209']);
    expect(questions.codesGiven('work')).toEqual([]);
    await expect(questions.askCode(code, 1_000)).resolves.toBe('864209');
    void questions.askCode(code, 1_000).catch(() => {});
    expect(questions.pending()).toHaveLength(1); // used once: asked afresh
    questions.close();
  });

  it('let calls by unasked under a standing yes, on that site (and tab) only, until it is taken back or ends', async () => {
    vi.useFakeTimers();
    const questions = new PersonQuestions();
    const asked = questions.ask(input, 5_000);
    questions.answer(questions.pending()[0]!.id, true, 'side panel', 'minutes');
    await asked;
    const [approval] = questions.approvals.list('chrome');
    expect(approval).toMatchObject({ kinds: ['submit'], origin: 'https://shop.test' });
    // That session's calls on that site, in any tab; another session's is asked.
    await expect(questions.ask({ ...input, targetId: 'T9', what: 'click e3' }, 5_000)).resolves.toBeUndefined();
    void questions.ask({ ...input, url: 'https://bank.test/' }, 5_000).catch(() => {});
    void questions.ask({ ...input, kinds: ['submit', 'download'] }, 5_000).catch(() => {});
    void questions.ask({ ...input, session: 'other' }, 5_000).catch(() => {});
    expect(questions.pending().map((q) => q.url)).toEqual([
      'https://bank.test/',
      'https://shop.test/cart',
      'https://shop.test/cart',
    ]);
    await vi.advanceTimersByTimeAsync(STANDING_MS);
    expect(questions.pending()).toEqual([]); // unanswered by now
    expect(questions.approvals.list('chrome')).toEqual([]);
    void questions.ask(input, 5_000).catch(() => {});
    expect(questions.pending()).toHaveLength(1);
    questions.close();

    const tabbed = new PersonQuestions();
    const once = tabbed.ask(input, 5_000);
    tabbed.answer(tabbed.pending()[0]!.id, true, 'side panel', 'tab');
    await once;
    await expect(tabbed.ask({ ...input, what: 'click e3' }, 5_000)).resolves.toBeUndefined();
    void tabbed.ask({ ...input, targetId: 'T2' }, 5_000).catch(() => {});
    expect(tabbed.pending()).toHaveLength(1);
    tabbed.forgetTab('T1');
    void tabbed.ask({ ...input, what: 'click e4' }, 5_000).catch(() => {});
    expect(tabbed.pending()).toHaveLength(2);
    tabbed.close();
  });

  it('withdraw a question when the caller leaves, and ask nothing once closed', async () => {
    const questions = new PersonQuestions();
    const told: QuestionChange[] = [];
    questions.onChange((change) => told.push(change));
    const caller = new AbortController();
    const asking = questions.ask(input, 5_000, caller.signal);
    caller.abort();
    await expect(asking).rejects.toMatchObject({
      code: 'person_no_answer',
      message: expect.stringContaining('given up'),
    });
    expect(told.map((c) => c.state)).toEqual(['asked', 'withdrawn']);
    questions.close();
    await expect(questions.ask(input, 5_000)).rejects.toMatchObject({
      code: 'person_no_answer',
      message: expect.stringContaining('server is stopping'),
    });
    expect(questions.pending()).toEqual([]);
  });

  it('decline every question of a profile when the person presses Stop, and none of another', async () => {
    const questions = new PersonQuestions();
    const mine = questions.ask(input, 5_000);
    const other = questions.ask({ ...input, profile: 'work' }, 5_000);
    questions.declineAll('chrome', 'stop');
    await expect(mine).rejects.toMatchObject({ code: 'person_declined' });
    expect(questions.pending().map((q) => q.profile)).toEqual(['work']);
    questions.close();
    await expect(other).rejects.toMatchObject({ code: 'person_no_answer' });
  });

  it('tell the person’s own Deny of the question from every other refusal (what may undo something of theirs)', async () => {
    const questions = new PersonQuestions();
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    const denied = refusal(questions.ask(input, 5_000));
    questions.answer(questions.pending()[0]!.id, false, 'side panel');
    expect(deniedByPerson(await denied)).toBe(true);
    // The same question again, refused from the earlier answer: not a Deny of this one.
    expect(deniedByPerson(await refusal(questions.ask(input, 5_000)))).toBe(false);
    // Stop, no answer, too many questions open: none is the person's Deny.
    const stopped = refusal(questions.ask({ ...input, what: 'another' }, 5_000));
    questions.declineAll('chrome', 'stop');
    expect(deniedByPerson(await stopped)).toBe(false);
    expect(deniedByPerson(await refusal(questions.ask({ ...input, what: 'unanswered' }, 10)))).toBe(false);
    const open = [1, 2, 3].map((n) => refusal(questions.ask({ ...input, what: `open ${n}` }, 5_000)));
    const crowded = await refusal(questions.ask({ ...input, what: 'one more' }, 5_000));
    expect(crowded).toMatchObject({ code: 'too_many_questions' });
    expect(deniedByPerson(crowded)).toBe(false);
    questions.close();
    for (const error of await Promise.all(open)) expect(deniedByPerson(error)).toBe(false);
  });
});

describe("the person's hands on a tab", () => {
  it('hold a waiting call until the person has been idle long enough, then let it go', async () => {
    vi.useFakeTimers();
    const changes: string[] = [];
    const activity = new PersonActivity(
      () => 3_000,
      (id, state) => changes.push(`${id} ${state}`),
    );
    activity.input('T1');
    let done = false;
    const waited = activity.waitIdle('T1', 10_000, 'click e1').then(() => (done = true));
    await vi.advanceTimersByTimeAsync(2_000);
    activity.input('T1'); // a key 2 s in: idle only 3 s after it
    await vi.advanceTimersByTimeAsync(2_500);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(600);
    await waited;
    expect(done).toBe(true);
    expect(changes).toEqual(['T1 active', 'T1 idle']);
    expect(activity.busyFor('T1')).toBe(0);
  });

  it('refuse with person_active when the bound runs out first, and let an idle tab through at once', async () => {
    vi.useFakeTimers();
    const activity = new PersonActivity(() => 3_000);
    await expect(activity.waitIdle('T2', 1_000, 'click e1')).resolves.toBeUndefined();
    activity.input('T2');
    const refused = activity.waitIdle('T2', 1_000, 'click e1').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await refused).toMatchObject({
      code: 'person_active',
      message: expect.stringMatching(/^click e1: the person is using this tab/),
    });
    activity.close();
  });
});

describe('ask kinds', () => {
  it('are checked, naming the one that is not a kind', () => {
    expect(parseAskKinds(['submit', 'storage', 'submit'])).toEqual(['submit', 'storage']);
    expect(parseAskKinds(['submit', 'buy'])).toMatch(/"buy" is not something clawd asks about/);
    expect(parseAskKinds('submit')).toMatch(/must be a list/);
  });
});
