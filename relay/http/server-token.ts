// The server's token — the agents' credential — held in one place so it can change while the
// server runs (`clawd token --rotate`): every guard asks it at each request, and those who must
// follow a change (the relay: raw clients that came in with the old one are cut) subscribe. The
// new value is saved before it is used.

import { tokenMatches } from './guards';

export class ServerToken {
  #value: string;
  readonly #followers = new Set<(token: string) => void>();

  constructor(
    value: string,
    /** Keeps a new token (the home's config.json) before it is in force; throwing keeps the old one. */
    private readonly save: (token: string) => Promise<void> = async () => {},
  ) {
    this.#value = value;
  }

  get value(): string {
    return this.#value;
  }

  /** Constant-time: whether a request's token is the current one. */
  matches(candidate: string | undefined): boolean {
    return tokenMatches(candidate, this.#value);
  }

  /** Puts `next` in force (once saved) and tells the followers; the old token is refused from now on. */
  async rotate(next: string): Promise<void> {
    await this.save(next);
    this.#value = next;
    for (const follow of this.#followers) follow(next);
  }

  /** `follow` hears each new token; the returned function stops it. */
  onRotated(follow: (token: string) => void): () => void {
    this.#followers.add(follow);
    return () => this.#followers.delete(follow);
  }
}
