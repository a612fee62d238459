// The sites the person was asked about and has not allowed since (relay/consent/unallowed-sites.ts):
// a tab whose load of one was refused, still waits or was given up shows its error page there.

import { afterEach, describe, expect, it } from 'vitest';
import { PersonQuestions } from '../../relay/consent/person-questions';
import { UnallowedSites } from '../../relay/consent/unallowed-sites';

describe('UnallowedSites', () => {
  const questions = new PersonQuestions();
  const sites = new UnallowedSites(questions);
  afterEach(() => {
    for (const q of questions.pending()) questions.answer(q.id, false, 'side panel');
  });

  const ask = (session: string, url = 'https://evil.test/x', profile = 'chrome') =>
    questions.ask({ profile, kinds: ['new-site'], session, what: 'navigate', url }, 50).catch(() => {});
  const pending = (session: string) => questions.pending().find((q) => q.session === session)!;

  it('holds a site from its question on, whatever its end but an Allow, per profile', async () => {
    await ask('a'); // the caller gave up waiting: the question stays open
    expect(sites.has('chrome', 'https://evil.test')).toBe(true);
    expect(sites.has('other', 'https://evil.test')).toBe(false);
    questions.answer(pending('a').id, true, 'side panel');
    expect(sites.has('chrome', 'https://evil.test')).toBe(false);
    await ask('b');
    questions.answer(pending('b').id, false, 'side panel');
    expect(sites.has('chrome', 'https://evil.test')).toBe(true);
  });

  it('takes a later refusal after another asker’s Allow', async () => {
    await ask('c');
    await ask('d');
    questions.answer(pending('c').id, true, 'side panel');
    expect(sites.has('chrome', 'https://evil.test')).toBe(false);
    questions.answer(pending('d').id, false, 'side panel');
    expect(sites.has('chrome', 'https://evil.test')).toBe(true);
  });

  it('hears nothing once closed', async () => {
    sites.close();
    await ask('e', 'https://late.test/');
    expect(sites.has('chrome', 'https://late.test')).toBe(false);
  });
});
