// The keys that are not the agent's, held where the server checks them: the person's (their
// terminal's person commands present it) and the extension's (the paired extension proves it on
// /extension). Only the extension key changes while the server runs — `clawd token --rotate`
// saves a new one first, then the relay closes the extension's socket; the extension gets the new
// key from the native host or a new pairing. Agents, given the token, hold neither.

import type { HomeKeys } from '../home/home-keys';
import { tokenMatches } from './guards';

export class ServerKeys {
  #keys: HomeKeys;
  readonly #followers = new Set<(extensionKey: string) => void>();

  constructor(
    keys: HomeKeys,
    /** Makes and saves a new extension key (keys.json), answering the keys then in force. */
    private readonly renew: () => Promise<HomeKeys> = async () => keys,
  ) {
    this.#keys = keys;
  }

  get person(): string {
    return this.#keys.person;
  }

  get extension(): string {
    return this.#keys.extension;
  }

  /** Constant time: whether a request's person key is the person's. */
  personMatches(candidate: string | undefined): boolean {
    return tokenMatches(candidate, this.#keys.person);
  }

  /** A new extension key, saved before it is in force; followers hear it (the relay drops the old extension). */
  async rotateExtension(): Promise<void> {
    this.#keys = await this.renew();
    for (const follow of this.#followers) follow(this.#keys.extension);
  }

  onExtensionRotated(follow: (extensionKey: string) => void): () => void {
    this.#followers.add(follow);
    return () => this.#followers.delete(follow);
  }
}
