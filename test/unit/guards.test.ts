import { describe, expect, it } from 'vitest';
import { classifyOrigin, isAllowedHost, refusal, requestToken, tokenMatches } from '../../relay/http/guards';

const EXT = 'chrome-extension://hioddficefpgpoobibbacdfbnaiihamk';

describe('guards', () => {
  it('allows loopback hosts with our port only', () => {
    expect(isAllowedHost('127.0.0.1:18792', 18792)).toBe(true);
    expect(isAllowedHost('localhost:18792', 18792)).toBe(true);
    expect(isAllowedHost('[::1]:18792', 18792)).toBe(true);
    for (const host of [
      undefined,
      '',
      '127.0.0.1',
      'localhost',
      '127.0.0.1:1',
      'evil.example:18792',
      'LOCALHOST.evil:18792',
    ]) {
      expect(isAllowedHost(host, 18792)).toBe(false);
    }
  });

  it('tells no origin, our extension and web origins apart', () => {
    expect(classifyOrigin(undefined, [EXT])).toBe('none');
    expect(classifyOrigin(EXT, [EXT])).toBe('extension');
    expect(classifyOrigin('chrome-extension://other', [EXT])).toBe('web');
    expect(classifyOrigin('null', [EXT])).toBe('web');
    expect(classifyOrigin('http://127.0.0.1:18792', [EXT])).toBe('web');
  });

  it('reads the token from a Bearer header or the query, and compares whole tokens only', () => {
    const url = new URL('http://h/x?token=q');
    expect(requestToken('Bearer abc', url)).toBe('abc');
    expect(requestToken(undefined, url)).toBe('q');
    expect(requestToken('Basic abc', new URL('http://h/'))).toBeUndefined();
    expect(tokenMatches('secret-token', 'secret-token')).toBe(true);
    expect(tokenMatches('secret-toke', 'secret-token')).toBe(false);
    expect(tokenMatches('', 'secret-token')).toBe(false);
    expect(tokenMatches(undefined, 'secret-token')).toBe(false);
  });

  it('checks host, then origin, then token, with a message that says what to do', () => {
    const policy = { token: 'tok-tok-tok-tok-1', port: 1, extensionOrigins: [EXT], origins: 'no-web' as const };
    const input = (o: Partial<Parameters<typeof refusal>[0]>) => ({
      host: '127.0.0.1:1',
      origin: undefined,
      authorization: 'Bearer tok-tok-tok-tok-1',
      url: new URL('http://h/'),
      ...o,
    });
    expect(refusal(input({}), policy)).toBeUndefined();
    expect(refusal(input({ host: 'evil:1', origin: 'https://evil' }), policy)?.code).toBe('host_not_allowed');
    expect(refusal(input({ origin: 'https://evil', authorization: undefined }), policy)?.code).toBe(
      'origin_not_allowed',
    );
    expect(refusal(input({ authorization: undefined }), policy)?.message).toMatch(/A token is required.*clawd token/);
    expect(refusal(input({ authorization: 'Bearer nope' }), policy)?.message).toMatch(/The token is wrong/);
    expect(refusal(input({}), { ...policy, origins: 'extension' })?.code).toBe('origin_not_allowed');
    expect(refusal(input({ origin: EXT }), { ...policy, origins: 'extension' })).toBeUndefined();
  });
});
