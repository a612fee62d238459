// The policy guard's verdict on a paused request (relay/profiles/policy-judge.ts): an allowed one
// goes on, a blocked document gets the page naming the rule, any other blocked request fails, and
// one no verdict can be had for is refused rather than left paused for ever.

import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../relay/log';
import { judge, type Judge } from '../../relay/profiles/policy-judge';
import { OriginPolicy } from '../../shared/origin-policy';
import type { Protocol } from 'devtools-protocol';

function hands(policy: () => OriginPolicy) {
  const sent: Array<{ method: string; params: Record<string, unknown> }> = [];
  const blocked: string[] = [];
  const judging: Judge = {
    send: async (method, params) => void sent.push({ method, params }),
    policy,
    blocked: (block) => void blocked.push(block.url),
    log: silentLogger,
  };
  return { judging, sent, blocked };
}

const paused = (url: string, resourceType = 'Image') =>
  ({ requestId: 'r1', request: { url }, resourceType }) as unknown as Protocol.Fetch.RequestPausedEvent;

describe('the policy guard’s verdict on a paused request', () => {
  const policy = new OriginPolicy({ block: ['http://localhost:*'] });

  it('lets an allowed request go on', async () => {
    const { judging, sent } = hands(() => policy);
    await judge(judging, paused('http://127.0.0.1:8000/a.png'), 's1');
    expect(sent).toEqual([{ method: 'Fetch.continueRequest', params: { requestId: 'r1' } }]);
  });

  it('answers a blocked document with the page naming the rule, and fails any other blocked request', async () => {
    const { judging, sent, blocked } = hands(() => policy);
    await judge(judging, paused('http://localhost:9000/', 'Document'), 's1');
    await judge(judging, paused('http://localhost:9000/a.png'), 's1');
    expect(sent.map((s) => s.method)).toEqual(['Fetch.fulfillRequest', 'Fetch.failRequest']);
    expect(sent[0]!.params).toMatchObject({ requestId: 'r1', responseCode: 403 });
    expect(blocked).toEqual(['http://localhost:9000/', 'http://localhost:9000/a.png']);
  });

  it('refuses a request no verdict can be had for, rather than leaving it paused', async () => {
    const { judging, sent } = hands(() => {
      throw new TypeError('the server is gone');
    });
    await judge(judging, paused('http://127.0.0.1:8000/favicon.ico'), 's1');
    expect(sent).toEqual([
      { method: 'Fetch.failRequest', params: { requestId: 'r1', errorReason: 'BlockedByClient' } },
    ]);
  });
});
