// Secrets in agent calls: `{{secret:NAME}}` (a kept value) and `{{totp:NAME}}` (the current code
// of a kept TOTP seed) in `type`'s text and `fill`'s field values are put in once the gate let the
// call through (the action log, the trace's action names and the gate's label keep the
// placeholder), and every value and seed of the profile, and its seeds' recent codes, are masked
// (`••••`) in whatever goes back: the answer (a snapshot's field value, an evaluate's result, a
// network body, content) and an error's message. So an agent can use a secret and never read one
// back, by any operation.
// Kept whole (under the 400-line cap): putting secrets in and masking them out are one rule — the
// same placeholders, values and forms — and the mask must see exactly what was put in.

import { AsyncLocalStorage } from 'node:async_hooks';
import { ClawdError } from '../errors';
import type { KeptSecrets } from '../home/secret-store';
import { codesOfPeriods, periodAt, totpCode, type TotpSeed } from '../home/totp';

const PLACEHOLDER = /\{\{(secret|totp):([^}]*)\}\}/g;
export const MASK = '••••';

/** The operations whose input may carry a placeholder, and where. */
function texts(operation: string, input: Record<string, unknown>): Array<[object, string]> {
  if (operation === 'type' && typeof input.text === 'string') return [[input, 'text']];
  if (operation === 'fill' && Array.isArray(input.fields))
    return (input.fields as Array<Record<string, unknown>>)
      .filter((f) => typeof f.value === 'string')
      .map((f) => [f, 'value'] as [object, string]);
  return [];
}

/** Whether the call's input names a secret (only then are the values read to put it in). */
export function namesSecrets(operation: string, input: Record<string, unknown>): boolean {
  return texts(operation, input).some(([holder, key]) =>
    /\{\{(secret|totp|code):/.test((holder as Record<string, string>)[key]!),
  );
}

/** `{{code:NAME}}`: the code a site sent the person (e-mail, SMS), which they type in the side panel. */
const CODE_MARK = /\{\{code:([A-Za-z0-9_-]{1,40})\}\}/g;

/** The codes the call asks the person for, each name once. */
export function namesCodes(operation: string, input: Record<string, unknown>): string[] {
  const names = texts(operation, input).flatMap(([holder, key]) =>
    [...(holder as Record<string, string>)[key]!.matchAll(CODE_MARK)].map((m) => m[1]!),
  );
  return [...new Set(names)];
}

/** The input with each `{{code:NAME}}` replaced by the code the person typed for it. */
export function withCodes(
  operation: string,
  input: Record<string, unknown>,
  codes: ReadonlyMap<string, string>,
): Record<string, unknown> {
  if (codes.size === 0) return input;
  const copy = structuredClone(input);
  for (const [holder, key] of texts(operation, copy)) {
    const record = holder as Record<string, string>;
    record[key] = record[key]!.replace(CODE_MARK, (all, name: string) => codes.get(name) ?? all);
  }
  return copy;
}

/** Refuses a placeholder naming nothing kept: before the gate asks the person about a call that cannot run. */
export function checkSecrets(
  operation: string,
  input: Record<string, unknown>,
  kept: KeptSecrets,
  profile: string,
): void {
  for (const [holder, key] of texts(operation, input))
    for (const [, kind, name] of (holder as Record<string, string>)[key]!.matchAll(PLACEHOLDER))
      keptFor(kind as Kind, name!, kept, profile);
}

/**
 * The input with each placeholder replaced: a secret by its value, a TOTP seed by its code at
 * `atMs` (now: called at the last moment, the code lasts its period). An unknown name is a 400 naming it.
 */
export function withSecrets(
  operation: string,
  input: Record<string, unknown>,
  kept: KeptSecrets,
  profile: string,
  atMs = Date.now(),
): Record<string, unknown> {
  const copy = structuredClone(input);
  for (const [holder, key] of texts(operation, copy)) {
    const record = holder as Record<string, string>;
    record[key] = record[key]!.replace(PLACEHOLDER, (_all, kind: Kind, name: string) => {
      const found = keptFor(kind, name, kept, profile);
      return typeof found === 'string' ? found : totpCode(found, atMs);
    });
  }
  return copy;
}

type Kind = 'secret' | 'totp';

/** What a placeholder names: a secret's value or a TOTP seed; a 400 saying what there is when it names neither. */
function keptFor(kind: Kind, name: string, kept: KeptSecrets, profile: string): string | TotpSeed {
  const found = kind === 'secret' ? kept.values.get(name) : kept.totp.get(name);
  if (found !== undefined) return found;
  const said = JSON.stringify(name);
  if (kind === 'secret' && kept.totp.has(name))
    throw new ClawdError(
      'bad_request',
      `${said} is a TOTP seed of profile ${profile}: type its code as {{totp:${name}}}`,
    );
  if (kind === 'totp' && kept.values.has(name))
    throw new ClawdError(
      'bad_request',
      `${said} is a secret of profile ${profile}, not a TOTP seed: type it as {{secret:${name}}} (the person keeps a seed with \`clawd secret-set ${name} --totp\`)`,
    );
  const names = [...(kind === 'secret' ? kept.values : kept.totp).keys()];
  const there = names.length ? ` (there are: ${names.join(', ')})` : '';
  if (kind === 'totp')
    throw new ClawdError(
      'bad_request',
      `no TOTP seed named ${said} for profile ${profile}${there}: the person keeps one with \`clawd secret-set ${name} --totp --profile ${profile}\``,
    );
  throw new ClawdError(
    'bad_request',
    `no secret named ${said} for profile ${profile}${there}: the person sets one with \`clawd secret-set ${name} --profile ${profile}\``,
  );
}

/** A text's every secret-holding part masked, with the forms a secret takes on the way (see SecretMask). */
export class SecretMask {
  /** Every form of every secret, the longest first (a form inside a longer one is masked with it). */
  readonly #forms: string[];
  readonly #bytes: Buffer[];
  readonly #secrets: readonly string[];
  readonly #totp: readonly TotpSeed[];
  /** The seeds' recent codes, made again when the second changes (a call may outlast a period). */
  #codes: (RecentCodes & { second: number }) | undefined;

  constructor(
    private readonly given: readonly string[],
    totp: readonly TotpSeed[] = [],
  ) {
    const secrets = given;
    this.#totp = totp;
    this.#secrets = [...secrets, ...totp.flatMap(seedForms)].filter((s) => s !== '');
    this.#forms = [...new Set(this.#secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length);
    this.#bytes = this.#secrets.map((secret) => Buffer.from(secret, 'utf8'));
  }

  /** This mask and more values (the codes the person typed during the call). */
  with(values: readonly string[]): SecretMask {
    return values.length === 0 ? this : new SecretMask([...this.given, ...values], this.#totp);
  }

  get empty(): boolean {
    return this.#secrets.length === 0 && this.#totp.length === 0;
  }

  /**
   * The text with every form masked, and a secret's beginning masked where a cut made in the
   * page (`…`, a name or value capped there) ended the text inside it.
   */
  text(text: string): string {
    if (this.empty) return text;
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(MASK);
    for (const form of this.#recentCodes().forms) if (out.includes(form)) out = out.split(form).join(MASK);
    if (out.includes('…'))
      out = out.replace(/([^…]*)…/g, (all, before: string) => {
        const n = cutInside(before, this.#secrets) || cutInside(before, this.#recentCodes().codes);
        return n > 0 ? `${before.slice(0, -n)}${MASK}…` : all;
      });
    return out;
  }

  /** The bytes with every secret's UTF-8 bytes replaced by the mask's (before a cut or an encoding). */
  bytes(data: Buffer): Buffer {
    if (this.empty) return data;
    return replaceBytes(replaceBytes(data, this.#bytes), this.#recentCodes().bytes);
  }

  /** The seeds' recent codes as of this second. */
  #recentCodes(): RecentCodes {
    if (this.#totp.length === 0) return NO_CODES;
    const second = Math.floor(Date.now() / 1000);
    if (this.#codes?.second !== second) this.#codes = { second, ...recentCodes(this.#totp, second * 1000) };
    return this.#codes;
  }

  /** `value` with its strings masked (a deep copy; as is when there are no secrets). */
  value<T>(value: T): T {
    if (this.empty) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
        return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
      return v;
    };
    return walk(value) as T;
  }
}

/** The shortest beginning of a secret masked at a cut (shorter ones say too little to matter). */
const CUT_FRAGMENT = 3;

/** How many characters at the end of `before` begin one of `secrets` (0: none). */
function cutInside(before: string, secrets: readonly string[]): number {
  for (const secret of secrets)
    for (let n = Math.min(secret.length - 1, before.length); n >= CUT_FRAGMENT; n--)
      if (before.endsWith(secret.slice(0, n))) return n;
  return 0;
}

/** `data` with each of `secrets` replaced by the mask's bytes. */
function replaceBytes(data: Buffer, secrets: readonly Buffer[]): Buffer {
  if (!secrets.some((b) => data.includes(b))) return data;
  const mask = Buffer.from(MASK, 'utf8');
  let out = data;
  for (const secret of secrets) {
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = out.indexOf(secret); at !== -1; at = out.indexOf(secret, from)) {
      parts.push(out.subarray(from, at), mask);
      from = at + secret.length;
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/**
 * How long a code stays masked after its period: one typed minutes ago may still be in its field
 * or in the page's echo of it, and the agent is never to hold a code a site could still take.
 */
const CODES_MASKED_MS = 10 * 60_000;
/** At most this many periods back (a seed of 1-second periods would ask for 600 codes a second). */
const MAX_PERIODS_BACK = 40;

/**
 * The recent codes of a profile's seeds. Masked wherever they appear, inside a longer number too:
 * sparing `1234567` would let an agent read a code by typing a digit before `{{totp:NAME}}`. A
 * number of the page that holds one by chance is masked with it (a six-digit one about once in 45,000).
 */
interface RecentCodes {
  codes: string[];
  /** The codes and their base64 forms, the longest first. */
  forms: string[];
  bytes: Buffer[];
}

/** The codes of `seeds` from CODES_MASKED_MS before `atMs` to the period after it. */
function recentCodes(seeds: readonly TotpSeed[], atMs: number): RecentCodes {
  const codes = [
    ...new Set(
      seeds.flatMap((seed) => {
        const now = periodAt(seed, atMs);
        const back = Math.min(MAX_PERIODS_BACK, Math.ceil(CODES_MASKED_MS / 1000 / seed.period));
        return codesOfPeriods(seed, now - back, now + 1);
      }),
    ),
  ];
  return {
    codes,
    forms: [...new Set([...codes, ...codes.flatMap(base64Forms)])].sort((a, b) => b.length - a.length),
    bytes: codes.map((code) => Buffer.from(code, 'latin1')),
  };
}

const NO_CODES: RecentCodes = { codes: [], forms: [], bytes: [] };

/** A seed as a site shows it: base32 in upper and lower case, whole and in groups of four. */
function seedForms(totp: TotpSeed): string[] {
  const grouped = totp.seed.replace(/(.{4})(?=.)/g, '$1 ');
  return [totp.seed, totp.seed.toLowerCase(), grouped, grouped.toLowerCase()];
}

/**
 * The forms a secret takes where an agent reads it: as is; JSON- and JavaScript-escaped (`\"`,
 * `\u00e9`); URL-encoded (either case of hex, `+` for a space) and HTML-escaped; base64 (and its
 * URL-safe alphabet) at each of the three alignments it can start at in a longer encoded text —
 * the characters that depend on the secret's bytes alone.
 */
function formsOf(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1)];
  forms.push(
    JSON.stringify(secret)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
  const url = encodeURIComponent(secret);
  forms.push(
    url,
    url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    url.replace(/%20/g, '+'),
  );
  forms.push(
    secret.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`),
  );
  forms.push(...base64Forms(secret));
  return forms.filter((form) => form !== '');
}

/** A secret's base64 (and URL-safe) characters at each of the three alignments it can start at in a longer encoded text. */
function base64Forms(secret: string): string[] {
  const forms: string[] = [];
  const bytes = Buffer.from(secret, 'utf8');
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Characters i cover bits [6i, 6i + 6); the secret's bits are [8 shift, 8 (shift + n)).
    const part = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (part.length >= 6) forms.push(part, part.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** A profile's mask: its secrets' values, its TOTP seeds and their recent codes. */
export function maskOf(kept: KeptSecrets): SecretMask {
  return new SecretMask([...kept.values.values()], [...kept.totp.values()]);
}

/** `value` with every secret value in its strings masked (a deep copy; as is when there are none). */
export function masked<T>(value: T, secrets: readonly string[]): T {
  return new SecretMask(secrets).value(value);
}

/**
 * The secrets of the agent call running now: every place that cuts, searches or counts what it
 * read (a snapshot's lines, content, a network body) masks with them first, so no cut ends inside
 * a secret and no count says what it holds. Set by the operation's door for the call's whole run.
 */
const callMask = new AsyncLocalStorage<{ mask: SecretMask; puts: boolean }>();

/** Runs `work` with `mask` as the call's secrets (see callMask); `puts`: the call puts one into a page. */
export function withCallMask<T>(mask: SecretMask, work: () => Promise<T>, puts = false): Promise<T> {
  return mask.empty && !puts ? work() : callMask.run({ mask, puts }, work);
}

/** More values the running call masks from now on (a code the person typed for it). */
export function widenCallMask(values: readonly string[]): SecretMask {
  const store = callMask.getStore();
  if (store) store.mask = store.mask.with(values);
  return store?.mask ?? new SecretMask(values);
}

/** Whether the running call puts a secret into the page (its input named one). */
export function callPutsSecret(): boolean {
  return callMask.getStore()?.puts ?? false;
}

/** The running call's secrets (an empty mask outside a call, or when the profile has none). */
export function currentMask(): SecretMask {
  return callMask.getStore()?.mask ?? NO_SECRETS;
}

const NO_SECRETS = new SecretMask([]);
