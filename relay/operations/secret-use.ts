// Secrets in agent calls: `{{secret:NAME}}` in `type`'s text and `fill`'s field values is put in
// just before the call runs (the action log, the trace's action names and the gate's label keep
// the placeholder), and every value of the profile's secrets is masked (`••••`) in whatever goes
// back: the answer (a snapshot's field value, an evaluate's result, a network body, content) and
// an error's message. So an agent can use a secret and never read one back, by any operation.

import { AsyncLocalStorage } from 'node:async_hooks';
import { ClawdError } from '../errors';

const PLACEHOLDER = /\{\{secret:([^}]*)\}\}/g;
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
  return texts(operation, input).some(([holder, key]) => /\{\{secret:/.test((holder as Record<string, string>)[key]!));
}

/** The input with each placeholder replaced by its value; an unknown name is a 400 naming it. */
export function withSecrets(
  operation: string,
  input: Record<string, unknown>,
  values: ReadonlyMap<string, string>,
  profile: string,
): Record<string, unknown> {
  const copy = structuredClone(input);
  for (const [holder, key] of texts(operation, copy)) {
    const record = holder as Record<string, string>;
    record[key] = record[key]!.replace(PLACEHOLDER, (_all, name: string) => {
      const value = values.get(name);
      if (value === undefined)
        throw new ClawdError(
          'bad_request',
          `no secret named ${JSON.stringify(name)} for profile ${profile}${values.size ? ` (there are: ${[...values.keys()].join(', ')})` : ''}: the person sets one with \`clawd secret-set ${name} --profile ${profile}\``,
        );
      return value;
    });
  }
  return copy;
}

/** A text's every secret-holding part masked, with the forms a secret takes on the way (see SecretMask). */
export class SecretMask {
  /** Every form of every secret, the longest first (a form inside a longer one is masked with it). */
  readonly #forms: string[];
  readonly #bytes: Buffer[];
  readonly #secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets.filter((s) => s !== '');
    this.#forms = [...new Set(this.#secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length);
    this.#bytes = this.#secrets.map((secret) => Buffer.from(secret, 'utf8'));
  }

  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /**
   * The text with every form masked, and a secret's beginning masked where a cut made in the
   * page (`…`, a name or value capped there) ended the text inside it.
   */
  text(text: string): string {
    if (this.empty) return text;
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(MASK);
    if (out.includes('…'))
      out = out.replace(/([^…]*)…/g, (all, before: string) => {
        for (const secret of this.#secrets)
          for (let n = Math.min(secret.length - 1, before.length); n >= CUT_FRAGMENT; n--)
            if (before.endsWith(secret.slice(0, n))) return `${before.slice(0, -n)}${MASK}…`;
        return all;
      });
    return out;
  }

  /** The bytes with every secret's UTF-8 bytes replaced by the mask's (before a cut or an encoding). */
  bytes(data: Buffer): Buffer {
    if (this.empty || !this.#bytes.some((b) => data.includes(b))) return data;
    const mask = Buffer.from(MASK, 'utf8');
    let out = data;
    for (const secret of this.#bytes) {
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
  const bytes = Buffer.from(secret, 'utf8');
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Characters i cover bits [6i, 6i + 6); the secret's bits are [8 shift, 8 (shift + n)).
    const part = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (part.length >= 6) forms.push(part, part.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms.filter((form) => form !== '');
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
  return mask.empty ? work() : callMask.run({ mask, puts }, work);
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
