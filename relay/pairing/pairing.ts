// Pairing the extension without copying the token: `clawd pair` (and `clawd serve`'s banner)
// print a link to the extension's own pair page carrying a one-time code (10 minutes, once).
// The person confirms there; the page trades the code with the relay for the token
// (`POST /pair/claim`), which answers only our extension's origins, so no web page can pair or
// learn the token, and a code is spent by its first claim.

import { OneTimeCodes } from '../http/one-time-codes';
import type { ServerToken } from '../http/server-token';

export const PAIR_CODE_TTL_MS = 10 * 60_000;

export class Pairing {
  readonly #codes = new OneTimeCodes(PAIR_CODE_TTL_MS, PAIR_CODE_TTL_MS, 20);

  constructor(
    private readonly token: ServerToken,
    /** Our extension's origins (`chrome-extension://<id>`): one link for each. */
    private readonly extensionOrigins: readonly string[],
    private readonly relayPort: () => number,
  ) {}

  /** A fresh code and the links that open the pair page with it, one per known extension id. */
  links(): { code: string; expiresInMs: number; links: string[] } {
    const { code, expiresInMs } = this.#codes.mint();
    const fragment = new URLSearchParams({ port: String(this.relayPort()), code });
    return { code, expiresInMs, links: this.extensionOrigins.map((origin) => `${origin}/pair.html#${fragment}`) };
  }

  /** The token for a valid code (spending it), else undefined. */
  claim(code: unknown): string | undefined {
    return this.#codes.redeem(code) ? this.token.value : undefined;
  }

  close(): void {
    this.#codes.clear();
  }
}
