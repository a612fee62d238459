// Who is using the control API right now: requests in flight, /events streams (a `clawd mcp`
// using this server holds one open for as long as it runs), live view sockets. A server that a
// `clawd mcp` started for itself stays while any of these remains (relay/mcp/mcp-stdio.ts).
// Counts and a time only: no timers. The time is kept, not sampled, because a `clawd mcp` that
// came and went between two looks (a client that lists the tools and leaves) was once missed, and
// its server then waited half a minute for a first client.

/** Who uses the server now, and when the last of them left (undefined: nobody came yet). */
export interface ClientUse {
  count: number;
  lastLeftAt: number | undefined;
}

export class ClientActivity {
  #count = 0;
  #lastLeftAt: number | undefined;

  /** Someone began using the server; call the returned function (once) when they are done. */
  begin(): () => void {
    this.#count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
      if (this.#count === 0) this.#lastLeftAt = Date.now();
    };
  }

  get count(): number {
    return this.#count;
  }

  get use(): ClientUse {
    return { count: this.#count, lastLeftAt: this.#lastLeftAt };
  }
}
