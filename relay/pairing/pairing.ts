// Pairing the extension without copying a secret: `clawd pair` (and `clawd serve`'s banner)
// print a link to the extension's own pair page carrying a one-time code (10 minutes, once) and
// the relay's proof of the extension key for that code. The person confirms there; the page
// trades the code with the relay for the extension key (`POST /pair/claim`) and keeps it only if
// the key matches the proof the link carried — so a program that took the relay's port cannot
// hand the extension a key of its own. Minting codes is the person's (their terminal's key):
// an agent holding the token cannot pair a browser of its own in the person's place.

import { keyProofSync } from '../http/key-proofs';
import { OneTimeCodes } from '../http/one-time-codes';
import type { ServerKeys } from '../http/server-keys';

export const PAIR_CODE_TTL_MS = 10 * 60_000;

export class Pairing {
  readonly #codes = new OneTimeCodes(PAIR_CODE_TTL_MS, PAIR_CODE_TTL_MS, 20);

  constructor(
    private readonly keys: ServerKeys,
    /** Our extension's origins (`chrome-extension://<id>`): one link for each. */
    private readonly extensionOrigins: readonly string[],
    private readonly relayPort: () => number,
  ) {}

  /** A fresh code and the links that open the pair page with it, one per known extension id. */
  links(): { code: string; expiresInMs: number; links: string[] } {
    const { code, expiresInMs } = this.#codes.mint();
    const port = this.relayPort();
    const check = keyProofSync(this.keys.extension, 'relay', port, code);
    const fragment = new URLSearchParams({ port: String(port), code, check });
    return { code, expiresInMs, links: this.extensionOrigins.map((origin) => `${origin}/pair.html#${fragment}`) };
  }

  /** The extension key for a valid code (spending it), else undefined. */
  claim(code: unknown): string | undefined {
    return this.#codes.redeem(code) ? this.keys.extension : undefined;
  }

  close(): void {
    this.#codes.clear();
  }
}
