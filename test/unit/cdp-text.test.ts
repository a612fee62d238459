// Reading a browser message's routing fields from its text (relay/browser/cdp-text.ts): Chrome's
// own shapes are read without parsing, anything that could be mistaken is left to the parser, and
// an answer's text gets its client's id back and loses the session the client did not name.

import { describe, expect, it } from 'vitest';
import { answerText, routingOf } from '../../relay/browser/cdp-text';

const SESSION = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';

describe('a browser message read at its ends', () => {
  it('reads an event on a session and an answer, as Chrome writes them', () => {
    expect(
      routingOf(`{"method":"Network.dataReceived","params":{"requestId":"1.2"},"sessionId":"${SESSION}"}`),
    ).toEqual({
      kind: 'event',
      method: 'Network.dataReceived',
      sessionId: SESSION,
    });
    const answer = `{"id":42,"result":{"data":"iVBOR"},"sessionId":"${SESSION}"}`;
    expect(routingOf(answer)).toEqual({
      kind: 'answer',
      id: 42,
      sessionId: SESSION,
      sessionAt: answer.indexOf(',"sessionId"'),
    });
    expect(routingOf('{"id":7,"error":{"code":-32000,"message":"no"}}')).toMatchObject({
      kind: 'answer',
      id: 7,
      sessionId: undefined,
    });
  });

  it('leaves to the parser what it cannot be sure of', () => {
    const unsure = [
      // An event at the root, or with its session id elsewhere than last.
      '{"method":"Target.targetCreated","params":{}}',
      `{"method":"Page.loadEventFired","sessionId":"${SESSION}","params":{"timestamp":1}}`,
      // A session id named inside the params, the message's own last member being params.
      `{"method":"Target.detachedFromTarget","params":{"sessionId":"${SESSION}"}}`,
      // A string value that ends with what looks like a session member (escaped, as JSON is).
      `{"method":"Runtime.consoleAPICalled","params":{"text":"x\\",\\"sessionId\\":\\"${SESSION}"}}`,
      // A session id with escaped quotes in it: the member found last is not all letters and digits.
      `{"method":"Page.loadEventFired","params":{},"sessionId":"A\\",\\"sessionId\\":\\"${SESSION}"}`,
      // An answer ending in a string member that is not a session id it can read.
      '{"id":3,"result":{},"sessionId":"not one"}',
      // Spaces, another key order, an id past what a double holds exactly.
      `{ "method":"Page.loadEventFired","params":{},"sessionId":"${SESSION}"}`,
      `{"sessionId":"${SESSION}","id":1,"result":{}}`,
      '{"id":12345678901234567,"result":{}}',
      'not json',
    ];
    for (const text of unsure) expect(routingOf(text), text).toBeUndefined();
  });

  it('gives an answer its client’s id, and drops the session the client did not name', () => {
    const text = `{"id":42,"result":{"v":"{\\"id\\":1}"},"sessionId":"${SESSION}"}`;
    const routing = routingOf(text)!;
    expect(routing.kind).toBe('answer');
    if (routing.kind !== 'answer') return;
    expect(JSON.parse(answerText(text, routing, 3, false))).toEqual({
      id: 3,
      result: { v: '{"id":1}' },
      sessionId: SESSION,
    });
    expect(JSON.parse(answerText(text, routing, 3, true))).toEqual({ id: 3, result: { v: '{"id":1}' } });
    const bare = '{"id":9,"error":{"code":1,"message":"m"}}';
    const bareRouting = routingOf(bare)!;
    if (bareRouting.kind !== 'answer') throw new Error('an answer');
    expect(answerText(bare, bareRouting, 1, true)).toBe('{"id":1,"error":{"code":1,"message":"m"}}');
  });
});
