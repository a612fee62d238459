import { describe, expect, it } from 'vitest';
import { PERSONS_VIEW, ViewAuth, WATCH_ONLY } from '../../relay/view/view-auth';

describe('live view sessions', () => {
  const cookieOf = (auth: ViewAuth, code: string) => `clawd_view_18791=${auth.redeem(code)!.session}`;

  it("let only a session from the person's own link answer questions, never one from a hand-over's link", () => {
    const auth = new ViewAuth();
    const handoff = cookieOf(
      auth,
      auth.code({ ...WATCH_ONLY, tab: { profile: 'clawd', targetId: 'T1' } }, 60_000).code,
    );
    const person = cookieOf(auth, auth.code(PERSONS_VIEW, 60_000).code);
    expect(auth.hasSession(handoff, 18791)).toBe(true);
    expect(auth.mayAnswer(handoff, 18791)).toBe(false);
    expect(auth.mayAnswer(person, 18791)).toBe(true);
    expect(auth.mayAnswer(undefined, 18791)).toBe(false);
  });

  it('forget the right to answer with the session', () => {
    let now = 0;
    const auth = new ViewAuth(() => now);
    const person = cookieOf(auth, auth.code(PERSONS_VIEW, 60_000).code);
    now += 13 * 60 * 60_000;
    expect(auth.mayAnswer(person, 18791)).toBe(false);
    expect(auth.hasSession(person, 18791)).toBe(false);
  });
});
