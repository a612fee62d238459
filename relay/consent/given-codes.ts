// The codes the person typed for sites (`{{code:NAME}}`, asked in the side panel): masked in every
// answer of the profile's calls, as its secrets are, for an hour after (a field keeps the code,
// and the next snapshot would show it), at most the newest MAX_KEPT. Memory only.

/** How long a code the person typed stays masked. */
export const CODE_MASKED_MS = 60 * 60_000;
const MAX_KEPT = 20;
/** The longest code the person may type for a site. */
export const MAX_CODE_CHARS = 64;
/** The shortest code the person may type: a shorter one would be masked wherever its characters appear. */
export const MIN_CODE_CHARS = 4;

export class GivenCodes {
  // Added when the person types a code; dropped when older than CODE_MASKED_MS (looked at on use) or past MAX_KEPT.
  readonly #codes: Array<{ profile: string; value: string; at: number }> = [];

  constructor(private readonly now: () => number = Date.now) {}

  add(profile: string, value: string): void {
    this.#codes.push({ profile, value, at: this.now() });
    if (this.#codes.length > MAX_KEPT) this.#codes.splice(0, this.#codes.length - MAX_KEPT);
  }

  /** The profile's codes still masked. */
  of(profile: string): string[] {
    const since = this.now() - CODE_MASKED_MS;
    while (this.#codes.length > 0 && this.#codes[0]!.at <= since) this.#codes.shift();
    return this.#codes.filter((c) => c.profile === profile).map((c) => c.value);
  }
}
