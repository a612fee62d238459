// The action log: everything an agent did to a page or a tab (actions, navigations, tabs opened
// and closed, hooks, hand-overs, policy refusals, a raw CDP client's navigations), one JSON line
// each, appended to <home>/log/actions-<UTC date>.jsonl (mode 0600; a file a day, the last 14
// kept), told to /events as it happens, and read back filtered. Writes are queued in order and
// never hold up the call they record. What an agent typed or chose is written only with
// browser.logText; this process keeps it in memory (the last GIVEN_KEPT entries' worth) for the
// session export's parameters' defaults, and never a password field's.

import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ActionEntry, EventBus } from '../events/event-bus';
import type { Logger } from '../log';

const KEEP_DAYS = 14;
/** How many entries' typed or chosen values are kept in memory. */
const GIVEN_KEPT = 10_000;
const FILE = /^actions-(\d{4}-\d{2}-\d{2})\.jsonl$/;

export interface LogQuery {
  profile?: string;
  targetId?: string;
  session?: string;
  /** Only entries after this time (ISO). */
  since?: string;
  limit: number;
}

export class ActionLog {
  readonly #dir: string;
  // Appends run one after another, so lines keep their order.
  #writing: Promise<void> = Promise.resolve();
  #day = '';
  // Told of each new entry (a waiting `GET /log?wait`); removed by the function `next` returns.
  readonly #waiters = new Set<(entry: ActionEntry | undefined) => void>();
  /** Entry id → what the agent typed or chose there (memory only, oldest dropped first). */
  readonly #given = new Map<string, unknown>();
  #count = 0;
  readonly #run = Date.now().toString(36);

  constructor(
    home: string,
    private readonly events: EventBus,
    private readonly log: Logger,
  ) {
    this.#dir = path.join(home, 'log');
  }

  /** Records an entry; `given`: what the agent typed or chose there, kept in memory only. */
  record(entry: Omit<ActionEntry, 'time' | 'id'>, given?: unknown): void {
    const id = `${this.#run}.${(this.#count += 1)}`;
    const full: ActionEntry = { time: new Date().toISOString(), id, ...entry };
    if (given !== undefined) {
      this.#given.set(id, given);
      if (this.#given.size > GIVEN_KEPT) this.#given.delete(this.#given.keys().next().value!);
    }
    const day = full.time.slice(0, 10);
    this.#writing = this.#writing
      .then(async () => {
        await mkdir(this.#dir, { recursive: true, mode: 0o700 });
        if (day !== this.#day) {
          this.#day = day;
          await this.#prune(day);
        }
        await appendFile(path.join(this.#dir, `actions-${day}.jsonl`), `${JSON.stringify(full)}\n`, { mode: 0o600 });
      })
      .catch((error: Error) => this.log.warn(`action log: ${error.message}`));
    this.events.emit({ type: 'action', ...entry });
    for (const waiter of [...this.#waiters]) waiter(full);
  }

  /** What the agent typed or chose at an entry, while this process keeps it. */
  given(entry: ActionEntry): unknown {
    return entry.id === undefined ? undefined : this.#given.get(entry.id);
  }

  /** The entries that match, oldest first, the newest `limit` of them. */
  async query(q: LogQuery): Promise<ActionEntry[]> {
    await this.#writing;
    const since = q.since ?? '';
    const files = (await readdir(this.#dir).catch(() => [] as string[]))
      .filter((f) => FILE.test(f) && f.slice(8, 18) >= since.slice(0, 10))
      .sort();
    const entries: ActionEntry[] = [];
    for (const file of files) {
      const text = await readFile(path.join(this.#dir, file), 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        let entry: ActionEntry;
        try {
          entry = JSON.parse(line) as ActionEntry;
        } catch {
          continue; // a line cut by a crash
        }
        if (entry.time <= since) continue;
        if (q.profile !== undefined && entry.profile !== q.profile) continue;
        if (q.targetId !== undefined && entry.targetId !== q.targetId) continue;
        if (q.session !== undefined && entry.session !== q.session) continue;
        entries.push(entry);
      }
    }
    return entries.slice(-q.limit);
  }

  /** Resolves with the next entry recorded, or undefined after `ms`. */
  next(ms: number): Promise<ActionEntry | undefined> {
    return new Promise((resolve) => {
      const done = (entry: ActionEntry | undefined) => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve(entry);
      };
      const timer = setTimeout(() => done(undefined), ms);
      this.#waiters.add(done);
    });
  }

  close(): void {
    for (const waiter of [...this.#waiters]) waiter(undefined);
  }

  async #prune(today: string): Promise<void> {
    const oldest = new Date(Date.parse(today) - (KEEP_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    for (const file of await readdir(this.#dir).catch(() => [] as string[])) {
      const day = file.match(FILE)?.[1];
      if (day && day < oldest) await rm(path.join(this.#dir, file), { force: true });
    }
  }
}
