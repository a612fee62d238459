// Time-based one-time codes (RFC 6238, over RFC 4226's HOTP): the code a kept TOTP seed gives at
// a moment, typed for `{{totp:NAME}}` and masked in answers. node:crypto does the HMAC; base32
// (RFC 4648) is a few lines here rather than a dependency. Reading what the person gives (a seed,
// an otpauth:// URI) and refusing what is wrong is totp-seed.ts's.

import { createHmac } from 'node:crypto';

export type TotpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';

/** A TOTP seed as kept: its key in base32 (upper case, no padding or spaces) and how codes are made of it. */
export interface TotpSeed {
  seed: string;
  algorithm: TotpAlgorithm;
  /** 6 to 8. */
  digits: number;
  /** Seconds a code lasts. */
  period: number;
}

export const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A base32 text's bytes (upper case, no padding: checked by totp-seed.ts); bits short of a byte at the end are dropped. */
export function base32Bytes(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    value = (value << 5) | BASE32_ALPHABET.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** RFC 4226's HOTP: the HMAC of the counter, dynamically truncated, as `digits` decimal digits. */
export function hotp(key: Buffer, counter: number, algorithm: TotpAlgorithm, digits: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm.toLowerCase(), key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238's TOTP: the code of the period `atMs` falls in (T0 = the Unix epoch). */
export function totpCode(seed: TotpSeed, atMs: number): string {
  return hotp(base32Bytes(seed.seed), periodAt(seed, atMs), seed.algorithm, seed.digits);
}

/** The number of the period `atMs` falls in. */
export function periodAt(seed: Pick<TotpSeed, 'period'>, atMs: number): number {
  return Math.floor(atMs / 1000 / seed.period);
}

/** The codes of periods `from` to `to` (their numbers, both included). */
export function codesOfPeriods(seed: TotpSeed, from: number, to: number): string[] {
  const key = base32Bytes(seed.seed);
  const codes: string[] = [];
  for (let period = Math.max(0, from); period <= to; period++)
    codes.push(hotp(key, period, seed.algorithm, seed.digits));
  return codes;
}
