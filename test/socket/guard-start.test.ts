// A policy guard started on a browser with pages open already (a policy change makes a new one):
// Chrome tells of those pages before it answers the guard's auto-attach and they run on meanwhile,
// so the guard is ready (what an agent's call waits for) only once their walls are up, not at the
// answer. Against a scripted browser that holds one wall's answer back, so the order is seen.

import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../relay/log';
import { PolicyGuard } from '../../relay/profiles/policy-guard';
import { PolicyGuards } from '../../relay/profiles/policy-guards';
import type { ProfileDriver } from '../../relay/profiles/profile-driver';
import { CONDITIONS_BY_RULE } from '../../relay/profiles/policy-walls';
import { OriginPolicy } from '../../shared/origin-policy';
import { scriptedBrowser } from '../helpers/scripted-browser';

let browser: Awaited<ReturnType<typeof scriptedBrowser>> | undefined;
let guard: PolicyGuard | undefined;
let guards: PolicyGuards | undefined;
afterEach(async () => {
  guard?.close();
  guards?.close();
  await browser?.close();
  browser = guard = guards = undefined;
});

it('is ready only once the pages already open have their walls up', async () => {
  browser = await scriptedBrowser([{ sessionId: 'open-page', targetId: 'P1', type: 'page' }]);
  const release = browser.holdAnswers(CONDITIONS_BY_RULE, 'open-page');
  const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
  guard = await PolicyGuard.start({ url: browser.url }, () => policy, silentLogger);
  let ready = false;
  const readied = guard.ready.then(() => void (ready = true));
  const sent = browser.sent;
  await expect
    .poll(() => sent.filter((s) => s.sessionId === 'open-page').map((s) => s.method))
    .toEqual(expect.arrayContaining(['Fetch.enable', 'Page.addScriptToEvaluateOnNewDocument', CONDITIONS_BY_RULE]));
  expect(ready).toBe(false);
  expect(guard.whenSetUp('P1')).toBeInstanceOf(Promise);
  release();
  await readied;
  expect(guard.whenSetUp('P1')).toBeUndefined();
});

it("keeps an agent's call in the browser (PolicyGuards.hold) until then", async () => {
  browser = await scriptedBrowser([{ sessionId: 'open-page', targetId: 'P1', type: 'page' }]);
  const release = browser.holdAnswers(CONDITIONS_BY_RULE, 'open-page');
  const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
  guards = new PolicyGuards(
    () => policy,
    silentLogger,
    () => {},
  );
  const url = browser.url;
  const driver = { policyEnforcement: 'interception', ownSocket: () => ({ url }) } as unknown as ProfileDriver;
  let held = true;
  const holding = guards.hold('clawd', driver).then(() => void (held = false));
  const sent = browser.sent;
  await expect
    .poll(() => sent.filter((s) => s.sessionId === 'open-page').map((s) => s.method))
    .toContain(CONDITIONS_BY_RULE);
  expect(held).toBe(true);
  release();
  await holding;
});
