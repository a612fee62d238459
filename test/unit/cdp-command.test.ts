import { describe, expect, it } from 'vitest';
import { parseCdpCommand } from '../../relay/cdp/client-session';
import { newTabUrl } from '../../relay/cdp/json-routes';

describe('CDP command frames', () => {
  it('accepts {id, method, params?, sessionId?}', () => {
    expect(parseCdpCommand('{"id":1,"method":"A.b"}')).toEqual({
      ok: true,
      command: { id: 1, method: 'A.b', params: {}, sessionId: '' },
    });
    expect(parseCdpCommand('{"id":2,"method":"A.b","params":{"x":1},"sessionId":"S"}')).toEqual({
      ok: true,
      command: { id: 2, method: 'A.b', params: { x: 1 }, sessionId: 'S' },
    });
  });

  it('refuses bad frames with JSON-RPC codes, keeping the id and session when it can', () => {
    const bad = (raw: string) => {
      const parsed = parseCdpCommand(raw);
      if (parsed.ok) throw new Error('accepted');
      return { id: parsed.id, sessionId: parsed.sessionId, code: parsed.error.code };
    };
    expect(bad('nope')).toEqual({ id: undefined, sessionId: '', code: 'parse_error' });
    expect(bad('null')).toMatchObject({ code: 'invalid_request' });
    expect(bad('{"method":"A.b"}')).toMatchObject({ code: 'invalid_request' });
    expect(bad('{"id":3,"sessionId":"S"}')).toEqual({ id: 3, sessionId: 'S', code: 'invalid_request' });
    expect(bad('{"id":4,"method":"A.b","params":[1]}')).toMatchObject({ id: 4, code: 'invalid_request' });
    expect(bad('{"id":5,"method":"A.b","sessionId":7}')).toMatchObject({ id: 5, code: 'invalid_request' });
  });
});

describe('/json/new URLs', () => {
  const url = (query: string) => newTabUrl(new URL(`http://127.0.0.1:1/json/new${query}`));
  it("takes ?url=, Chrome's bare query, or nothing", () => {
    expect(url(`?url=${encodeURIComponent('https://a.test/x?y=1&z=2')}`)).toBe('https://a.test/x?y=1&z=2');
    expect(url('?https://a.test/')).toBe('https://a.test/');
    expect(url('?token=t&https://a.test/')).toBe('https://a.test/');
    expect(url('')).toBe('about:blank');
    expect(url('?token=t')).toBe('about:blank');
  });
  it('refuses what is not a URL, and javascript:', () => {
    expect(() => url('?url=not%20a%20url')).toThrow(/Not a URL/);
    expect(() => url(`?url=${encodeURIComponent('javascript:alert(1)')}`)).toThrow(/javascript:/);
  });
});
