// A kept request's headers packed into one string (relay/agent/network/network-log.ts): read
// back, they are the same pairs in the same order, empty values and multi-line ones included.

import { describe, expect, it } from 'vitest';
import { pack, pairs } from '../../relay/agent/network/network-log';

describe('packed headers', () => {
  it('reads back every pair as the browser gave it', () => {
    const headers = { Host: '127.0.0.1:8080', 'X-Empty': '', 'Set-Cookie': 'a=1\nb=2', Accept: '*/*' };
    expect(pairs(pack(headers))).toEqual([
      { name: 'Host', value: '127.0.0.1:8080' },
      { name: 'X-Empty', value: '' },
      { name: 'Set-Cookie', value: 'a=1\nb=2' },
      { name: 'Accept', value: '*/*' },
    ]);
    // A NUL (no header may hold one) cannot shift a value into a name's place.
    expect(pairs(pack({ 'X-Odd': 'a\0Cookie', Cookie: 'sid=1' }))).toEqual([
      { name: 'X-Odd', value: 'a\uFFFDCookie' },
      { name: 'Cookie', value: 'sid=1' },
    ]);
    expect(pairs(pack({}))).toEqual([]);
    expect(pairs(pack(undefined))).toEqual([]);
    expect(pairs(undefined)).toEqual([]);
  });
});
