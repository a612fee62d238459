// One-time codes (live view links, pairing links): each works once, within its time, and only
// as minted; a minting loop cannot grow them without bound.

import { describe, expect, it } from 'vitest';
import { OneTimeCodes } from '../../relay/http/one-time-codes';
import { ServerKeys } from '../../relay/http/server-keys';
import { keyProof } from '../../shared/key-proof';
import { Pairing, PAIR_CODE_TTL_MS } from '../../relay/pairing/pairing';

describe('OneTimeCodes', () => {
  it('redeems a code once, refuses an expired, unknown or non-string one, and keeps at most `max`', () => {
    let now = 0;
    const codes = new OneTimeCodes(1_000, 5_000, 3, () => now);
    const { code, expiresInMs } = codes.mint();
    expect(expiresInMs).toBe(1_000);
    expect(codes.redeem(code)).toBe(true);
    expect(codes.redeem(code)).toBe(false);
    const late = codes.mint().code;
    now += 1_001;
    expect(codes.redeem(late)).toBe(false);
    expect(codes.redeem('never-minted')).toBe(false);
    expect(codes.redeem(42)).toBe(false);
    expect(codes.mint(60_000).expiresInMs).toBe(5_000);
    const first = codes.mint().code;
    codes.mint();
    codes.mint();
    codes.mint(); // a fourth outstanding code pushes out the oldest
    expect(codes.redeem(first)).toBe(false);
  });
});

describe('Pairing', () => {
  it("links to the pair page of each known extension id with the relay port and the key's proof, and trades a code once for the extension key", async () => {
    const key = 'the-extension-key-0123456789abcdef';
    const pairing = new Pairing(
      new ServerKeys({ person: 'p'.repeat(32), extension: key }),
      ['chrome-extension://aaaa', 'chrome-extension://bbbb'],
      () => 18792,
    );
    const { code, links, expiresInMs } = pairing.links();
    expect(expiresInMs).toBe(PAIR_CODE_TTL_MS);
    const check = await keyProof(key, 'relay', 18792, code); // what the pair page checks the claimed key against
    const fragment = new URLSearchParams({ port: '18792', code, check });
    expect(links).toEqual([
      `chrome-extension://aaaa/pair.html#${fragment}`,
      `chrome-extension://bbbb/pair.html#${fragment}`,
    ]);
    expect(check).not.toContain(key);
    expect(pairing.claim('wrong')).toBeUndefined();
    expect(pairing.claim(code)).toBe(key);
    expect(pairing.claim(code)).toBeUndefined();
  });
});
