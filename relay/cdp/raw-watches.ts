// A raw CDP client's doing on the person's tab, judged by what happens, as an agent call's is:
// while the person asks before submit, new-site or download, a client's first command that can
// change the tab (anything but a read) goes only once a watch holds the tab's document requests
// (agent/action-watch.ts, on a session of clawd's own, outside the page's reach), and the watch
// stays while the client is connected — a script it left runs when it likes. A form sent, a site
// loaded, a file downloaded waits there for the person's answer; Deny fails the request, so the
// site sees nothing. The client is not told (its command was answered already): its page shows
// the failed load.

import type { AskKind } from '../../shared/ask-kinds';

/** A watch on one tab's requests: stop() waits for what it holds, then throws a refusal (Deny). */
export interface TabWatch {
  stop(): Promise<void>;
}

/** What a watch needs: the tab, the kinds it judges, the client's sites, and how to ask. */
export interface WatchRequest {
  targetId: string;
  kinds: ReadonlySet<AskKind>;
  visited: Set<string>;
  ask(kinds: AskKind[], url: string, what: string): Promise<void>;
  /** What is left of the bound for a question (ms). */
  left(): number;
}

/** Opens a watch (the agent layer's): rejects when the tab cannot be watched. */
export type OpenWatch = (request: WatchRequest) => Promise<TabWatch>;

interface Open {
  ready: Promise<void>;
  watch: TabWatch | undefined;
}

export class RawWatches {
  /** By client and tab: each client's acting on a tab has its own watch (its own sites). */
  readonly #open = new Map<string, Open>();
  #closed = false;

  constructor(private readonly warn: (message: string) => void) {}

  /**
   * Before an acting command of a client on a tab (`key`: the client's id and the tab): resolves
   * once the tab is watched, for as long as the client stays. When it cannot be watched,
   * `unwatched` decides (the person asked about all of it at once) for the client's stay.
   */
  arm(key: string, open: () => Promise<TabWatch>, unwatched: (error: Error) => Promise<void>): Promise<void> {
    const current = this.#open.get(key);
    if (current) return current.ready;
    const entry: Open = { ready: Promise.resolve(), watch: undefined };
    entry.ready = this.#closed
      ? Promise.reject(new Error('clawd is shutting down'))
      : open().then(
          (watch) => {
            entry.watch = watch;
          },
          (error: Error) => unwatched(error),
        );
    this.#open.set(key, entry);
    return entry.ready;
  }

  /** The client went (or the tab): its watches end, what they hold is answered first. */
  end(prefix: string): void {
    for (const [key, entry] of this.#open) if (key.startsWith(prefix)) this.#end(key, entry);
  }

  /** The tab went: its watches end, quietly (nothing of it is left to let go). */
  endTab(targetId: string): void {
    for (const [key, entry] of this.#open) if (key.endsWith(`\n${targetId}`)) this.#end(key, entry, true);
  }

  /** Ends every watch (the server closes): what they hold goes on. */
  close(): void {
    this.#closed = true;
    for (const [key, entry] of this.#open) this.#end(key, entry);
  }

  #end(key: string, entry: Open, quiet = false): void {
    if (this.#open.get(key) === entry) this.#open.delete(key);
    void entry.ready
      .then(
        () => entry.watch?.stop(),
        () => undefined,
      )
      .catch((error: Error) => {
        if (!quiet) this.warn(`a raw client's request was not let go: ${error.message}`);
      });
  }
}
