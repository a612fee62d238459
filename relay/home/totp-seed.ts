// What the person gives `clawd secret-set NAME --totp`, read as a TOTP seed (totp.ts): a base32
// seed as sites show it (any case, spaced in groups, padded or not) or the otpauth:// URI behind a
// QR code, whose algorithm, digits and period are kept. Anything else is refused (totp_invalid)
// naming what is wrong — never quoting the seed, which would put it in a terminal's scroll-back.

import { ClawdError } from '../errors';
import { BASE32_ALPHABET, type TotpAlgorithm, type TotpSeed } from './totp';

const ALGORITHMS: readonly TotpAlgorithm[] = ['SHA1', 'SHA256', 'SHA512'];
/** RFC 4226 asks for 128 bits and more; 80 (16 characters) is what the shortest issuers give: less is a seed cut short. */
const MIN_SEED_BYTES = 10;
const MAX_PERIOD_S = 3_600;

const invalid = (why: string) => new ClawdError('totp_invalid', `not a TOTP seed: ${why}; nothing was kept`);

/** The seed or otpauth:// URI the person gave, as a TOTP seed; totp_invalid naming what is wrong. */
export function readTotpSeed(given: string): TotpSeed {
  const text = given.trim();
  if (text === '') throw invalid('nothing was given (a base32 seed, or an otpauth://totp/… URI)');
  if (/^otpauth:/i.test(text)) return fromUri(text);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw invalid('a URI, but not an otpauth:// one');
  return { seed: base32Seed(text, 'the seed'), algorithm: 'SHA1', digits: 6, period: 30 };
}

/** A seed as secrets.json holds it (`{ "totp": … }`), checked as the person's would be (a file edited by hand). */
export function keptTotp(entry: unknown): TotpSeed | undefined {
  const kept = (entry as { totp?: Partial<Record<keyof TotpSeed, unknown>> } | null)?.totp;
  if (typeof kept?.seed !== 'string') return undefined;
  const { seed, algorithm, digits, period } = kept;
  try {
    return fromUri(
      `otpauth://totp/kept?${new URLSearchParams({ secret: seed, algorithm: String(algorithm), digits: String(digits), period: String(period) })}`,
    );
  } catch {
    return undefined;
  }
}

/** `otpauth://totp/LABEL?secret=…&algorithm=…&digits=…&period=…` (Google's Key Uri Format). */
function fromUri(text: string): TotpSeed {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('the otpauth:// URI cannot be read as a URI');
  }
  const type = url.host.toLowerCase();
  if (type === 'hotp') throw invalid('an otpauth://hotp/ URI is a counter-based seed: clawd types time-based codes');
  if (type !== 'totp') throw invalid('an otpauth:// URI must be otpauth://totp/…');
  const secret = url.searchParams.get('secret');
  if (secret === null) throw invalid('the otpauth:// URI has no secret= parameter');
  const algorithm = (url.searchParams.get('algorithm') ?? 'SHA1').toUpperCase() as TotpAlgorithm;
  if (!ALGORITHMS.includes(algorithm)) throw invalid('algorithm= must be SHA1, SHA256 or SHA512');
  const digits = wholeNumber(url.searchParams.get('digits') ?? '6');
  if (digits === undefined || digits < 6 || digits > 8) throw invalid('digits= must be 6, 7 or 8');
  const period = wholeNumber(url.searchParams.get('period') ?? '30');
  if (period === undefined || period < 1 || period > MAX_PERIOD_S)
    throw invalid(`period= must be a whole number of seconds from 1 to ${MAX_PERIOD_S}`);
  return { seed: base32Seed(secret, 'its secret='), algorithm, digits, period };
}

function wholeNumber(text: string): number | undefined {
  return /^[0-9]{1,5}$/.test(text) ? Number(text) : undefined;
}

/** The seed in base32 (RFC 4648): upper case, without spaces or padding; said as `what` in an error. */
function base32Seed(text: string, what: string): string {
  const seed = text.replace(/\s+/g, '').replace(/=+$/, '').toUpperCase();
  if (seed === '') throw invalid(`${what} is empty`);
  const bad = [...seed].findIndex((char) => !BASE32_ALPHABET.includes(char));
  if (bad >= 0)
    throw invalid(
      `character ${bad + 1} of ${what} (spaces not counted) is not base32, whose letters are A to Z and 2 to 7 (0, 1, 8 and 9 are not among them)`,
    );
  // 5 bits a character: 1, 3 or 6 characters past a whole 8 leave bits that make no byte.
  if ([1, 3, 6].includes(seed.length % 8))
    throw invalid(`${what} has ${seed.length} characters, which no base32 text has: one is missing or extra`);
  const bytes = Math.floor((seed.length * 5) / 8);
  if (bytes < MIN_SEED_BYTES)
    throw invalid(
      `${what} is ${bytes} bytes (${seed.length} characters): a TOTP seed has at least ${MIN_SEED_BYTES} (16 characters), so part of it is missing`,
    );
  return seed;
}
