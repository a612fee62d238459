// One-time codes that stand for a secret the holder of the token hands to a browser: a link's
// code is traded once, within its time, for what it opens (a live view session, the token for
// the extension's pairing). Unguessable (24 random bytes), kept only in memory, expiry checked
// on use: no timers to own.

import { randomBytes } from 'node:crypto';

export const mintSecret = (): string => randomBytes(24).toString('base64url');

export class OneTimeCodes {
  // code → expiry; removed when redeemed, found expired, or pushed out by newer ones.
  readonly #codes = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxTtlMs = ttlMs,
    /** Codes outstanding at once; more means something mints in a loop: the oldest go. */
    private readonly max = 100,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new code, valid once for `ttlMs` (at most the maximum). */
  mint(ttlMs = this.ttlMs): { code: string; expiresInMs: number } {
    const now = this.now();
    for (const [code, expires] of this.#codes) if (now > expires) this.#codes.delete(code);
    if (this.#codes.size >= this.max) this.#codes.delete(this.#codes.keys().next().value!);
    const code = mintSecret();
    const expiresInMs = Math.min(Math.max(ttlMs, 1_000), this.maxTtlMs);
    this.#codes.set(code, now + expiresInMs);
    return { code, expiresInMs };
  }

  /** True once for a code minted here and not expired; false for anything else. */
  redeem(code: unknown): boolean {
    if (typeof code !== 'string') return false;
    const expires = this.#codes.get(code);
    this.#codes.delete(code);
    return expires !== undefined && this.now() <= expires;
  }

  clear(): void {
    this.#codes.clear();
  }
}
