// A policy guard started on a browser with pages open already (a policy change makes a new one):
// Chrome tells of those pages before it answers the guard's auto-attach and they run on meanwhile,
// so the guard is ready only once their walls are up, not at the answer. Against a scripted
// browser that holds one wall's answer back, so the order is seen.

import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../relay/log';
import { PolicyGuard } from '../../relay/profiles/policy-guard';
import { CONDITIONS_BY_RULE } from '../../relay/profiles/policy-walls';
import { OriginPolicy } from '../../shared/origin-policy';
import { scriptedBrowser } from '../helpers/scripted-browser';

let browser: Awaited<ReturnType<typeof scriptedBrowser>> | undefined;
let guard: PolicyGuard | undefined;
afterEach(async () => {
  guard?.close();
  await browser?.close();
  browser = guard = undefined;
});

it('is ready only once the pages already open have their walls up', async () => {
  browser = await scriptedBrowser([{ sessionId: 'open-page', targetId: 'P1', type: 'page' }]);
  const release = browser.holdAnswers(CONDITIONS_BY_RULE, 'open-page');
  const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
  let ready = false;
  const starting = PolicyGuard.start({ url: browser.url }, () => policy, silentLogger).then((started) => {
    ready = true;
    return (guard = started);
  });
  const sent = browser.sent;
  await expect
    .poll(() => sent.filter((s) => s.sessionId === 'open-page').map((s) => s.method))
    .toEqual(expect.arrayContaining(['Fetch.enable', 'Page.addScriptToEvaluateOnNewDocument', CONDITIONS_BY_RULE]));
  expect(sent.map((s) => s.method)).toContain('Target.setAutoAttach'); // answered long since
  expect(ready).toBe(false);
  release();
  expect((await starting).whenSetUp('P1')).toBeUndefined();
});
