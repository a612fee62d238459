// Who is using the control API right now: requests in flight, /events streams (a `clawd mcp`
// using this server holds one open for as long as it runs), live view sockets. A server that a
// `clawd mcp` started for itself stays while any of these remains (relay/mcp/mcp-stdio.ts).
// Counts only: no timers.

export class ClientActivity {
  #count = 0;

  /** Someone began using the server; call the returned function (once) when they are done. */
  begin(): () => void {
    this.#count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
    };
  }

  get count(): number {
    return this.#count;
  }
}
