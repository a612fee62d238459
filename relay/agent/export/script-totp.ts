// The TOTP code maker an exported script carries when its steps type `{{totp:NAME}}`: the script
// runs without clawd, so it makes the code itself at the moment of the step, from the seed the
// person gives it in CLAWD_TOTP_NAME (a base32 seed or an otpauth:// URI) — a code written into the
// file would be stale within seconds, and the seed is never written there. RFC 6238 as
// home/totp.ts does it; the unit tests hold both to the RFC's vectors.

/** The import it needs (an ES module's top level). */
export const SCRIPT_TOTP_IMPORT = "import { createHmac } from 'node:crypto';";

/** `totpCode(given, atMs)`: plain JavaScript, put in the script as it is. */
export const SCRIPT_TOTP = `/** The code of a TOTP seed now (RFC 6238): a base32 seed, or an otpauth://totp/ URI with its algorithm, digits and period. */
function totpCode(given, atMs = Date.now()) {
  let secret = given.trim();
  let algorithm = 'SHA1';
  let digits = 6;
  let period = 30;
  if (/^otpauth:/i.test(secret)) {
    const url = new URL(secret);
    secret = url.searchParams.get('secret') ?? '';
    algorithm = (url.searchParams.get('algorithm') ?? 'SHA1').toUpperCase();
    digits = Number(url.searchParams.get('digits') ?? 6);
    period = Number(url.searchParams.get('period') ?? 30);
  }
  const key = [];
  let bits = 0;
  let value = 0;
  for (const char of secret.replace(/[\\s=]+/g, '').toUpperCase()) {
    const index = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char);
    if (index < 0) throw new Error('the TOTP seed is not base32 (A to Z, 2 to 7)'); // never quoted: it is a secret
    value = ((value << 5) | index) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      key.push((value >> bits) & 0xff);
    }
  }
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / period)));
  const mac = createHmac(algorithm.toLowerCase(), Buffer.from(key)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}`;
