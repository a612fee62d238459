// A raw client's commands that wait before they go (the person's answer, a watch on the tab):
// in order per session — a command waits behind the one before it on its own session, never
// behind another tab's question (Chrome keeps no order across sessions either).

export class HeldCommands<Client extends object> {
  /** Per client and session: the last command that waits there. */
  readonly #held = new WeakMap<Client, Map<string, Promise<void>>>();

  /**
   * Runs `go` once `pass()` lets the command go (at once when nothing waits: `pass` answers
   * undefined and nothing is behind), after the session's earlier commands; `fail` on a refusal.
   */
  run(
    client: Client,
    session: string,
    pass: () => Promise<void> | undefined,
    go: () => void,
    fail: (error: unknown) => void,
  ): void {
    let queues = this.#held.get(client);
    const behind = queues?.get(session);
    const waiting = behind ? behind.then(pass) : pass();
    if (!waiting) return go();
    const done = waiting.then(go, fail);
    if (!queues) this.#held.set(client, (queues = new Map()));
    const own = queues;
    own.set(session, done);
    void done.finally(() => {
      if (own.get(session) === done) own.delete(session);
    });
  }
}
