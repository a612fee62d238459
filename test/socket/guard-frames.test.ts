// The policy guard and an out-of-process frame it has not heard of when a client asks about it
// (Chrome tells a page's sessions of a new frame one at a time, in the order they asked to
// auto-attach, so a guard made after a client hears of it only after that client's word): the
// guard attaches to the frame itself and walls it; Chrome's own attach to it, when it comes, is
// only let run, not walled twice. Against a scripted browser, so each step is seen.

import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../relay/log';
import { PolicyGuard } from '../../relay/profiles/policy-guard';
import { OriginPolicy } from '../../shared/origin-policy';
import { attached, scriptedBrowser, type Sent } from '../helpers/scripted-browser';

describe('the policy guard and a frame a client asks about first', () => {
  let browser: Awaited<ReturnType<typeof scriptedBrowser>> | undefined;
  let guard: PolicyGuard | undefined;
  afterEach(async () => {
    guard?.close();
    await browser?.close();
    browser = guard = undefined;
  });
  const start = async () => {
    browser = await scriptedBrowser();
    const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
    guard = await PolicyGuard.start({ url: browser.url }, () => policy, silentLogger);
    return { browser, guard };
  };
  const on = (sent: Sent[], sessionId: string) => sent.filter((s) => s.sessionId === sessionId).map((s) => s.method);

  it('attaches to it, walls it, and only lets Chrome’s own attach to it run', async () => {
    const { browser, guard } = await start();
    await guard.whenSetUp('F1', 'iframe');
    expect(browser.sent).toContainEqual({ method: 'Target.attachToTarget', params: { targetId: 'F1', flatten: true } });
    expect(on(browser.sent, 'stand-in')).toEqual(expect.arrayContaining(['Fetch.enable', 'Target.setAutoAttach']));
    // Chrome's own attach, once the client's word let the frame go on: let run, not walled again.
    browser.event(attached('page-copy', 'F1', true, 'page'));
    await expect.poll(() => on(browser.sent, 'page-copy')).toEqual(['Runtime.runIfWaitingForDebugger']);
    expect(guard.whenSetUp('F1', 'iframe')).toBeUndefined();
  });

  it('lets its stand-in go when Chrome’s own attach came first, and walls the frame once', async () => {
    const { browser, guard } = await start();
    browser.holdAttach();
    const asked = guard.whenSetUp('F2', 'iframe');
    await expect.poll(() => browser.sent.map((s) => s.method)).toContain('Target.attachToTarget');
    // Chrome's attach reaches the guard before the stand-in's.
    browser.event(attached('page-copy', 'F2', true, 'page'));
    await asked;
    browser.answerHeld();
    await expect
      .poll(() => browser.sent.filter((s) => s.method === 'Target.detachFromTarget').map((s) => s.params.sessionId))
      .toEqual(['stand-in']);
    expect(on(browser.sent, 'stand-in')).toEqual([]);
    expect(on(browser.sent, 'page-copy')).toEqual(
      expect.arrayContaining(['Fetch.enable', 'Runtime.runIfWaitingForDebugger']),
    );
  });

  it('walls the frame anew when its stand-in went during its set-up and it comes back under the same id', async () => {
    const { browser, guard } = await start();
    // The stand-in's set-up waits on the frame; meanwhile the frame goes back into its parent's
    // process (every session on it detached), and out again: the same id, a new attach.
    const release = browser.holdAnswers('Fetch.enable', 'stand-in');
    const asked = guard.whenSetUp('F3', 'iframe');
    await expect.poll(() => on(browser.sent, 'stand-in')).toContain('Fetch.enable');
    browser.event({ method: 'Target.detachedFromTarget', params: { sessionId: 'stand-in', targetId: 'F3' } });
    release();
    await asked;
    browser.event(attached('page-copy-2', 'F3', true, 'page'));
    await expect
      .poll(() => on(browser.sent, 'page-copy-2'))
      .toEqual(expect.arrayContaining(['Fetch.enable', 'Target.setAutoAttach', 'Runtime.runIfWaitingForDebugger']));
  });

  it('waits for a worker it has not heard of rather than attaching to it', async () => {
    const { browser, guard } = await start();
    const asked = guard.whenSetUp('W1', 'worker');
    expect(asked).toBeInstanceOf(Promise);
    expect(browser.sent.map((s) => s.method)).not.toContain('Target.attachToTarget');
  });
});
