// Restores CDP's ordering for one tab. Over a real CDP pipe a command's response arrives before
// the events that follow it; chrome.debugger delivers events and responses on different paths,
// so an event can overtake an earlier response (measured: Target.attachedToTarget ahead of the
// Page.getFrameTree response; Playwright then hangs waiting for a context it already dropped).
//
// Instead of sending one command at a time (which deadlocks when a command waits on an event,
// e.g. a click that opens an alert), commands are pipelined and each event is held until every
// command that was in flight when it arrived has answered, or `windowMs` has passed, whichever
// comes first. Events keep their order among themselves.

/**
 * Events that go out the moment they arrive, ahead of what the fence holds:
 * - Input.dragIntercepted: a client stops listening for it once a *later* command answers.
 *   Playwright listens (after a pointer move) only until its drag probe, a Runtime.evaluate sent
 *   after the move, answers. chrome.debugger can deliver the event after the move's answer; the
 *   fence would then hold it behind the probe and put it after the probe's answer, where nobody
 *   listens: the drag hung for good.
 * - Fetch.requestPaused, Fetch.authRequired, Page.javascriptDialogOpening: a command in flight
 *   waits for the client to answer them (a Page.navigate for its paused document request, at
 *   both stages; an evaluate or a click for its dialog). Held, each came only when the window
 *   ran out: every document load under interception (an agent's watched call, a client's route)
 *   took two windows longer (measured: 110 ms from the paused request to its paused response
 *   through the extension, 10 ms on a direct connection). Their order against other events is
 *   CDP's own race anyway (a paused request and its Network.requestWillBeSent come from
 *   different processes; Playwright takes either first).
 */
export const UNFENCED_EVENTS: ReadonlySet<string> = new Set([
  'Input.dragIntercepted',
  'Fetch.requestPaused',
  'Fetch.authRequired',
  'Page.javascriptDialogOpening',
]);

interface Held {
  deliver(): void;
  /** The last command sequence number issued when the event arrived. */
  after: number;
  deadline: number;
}

export class EventFence {
  #lastSeq = 0;
  readonly #inFlight = new Set<number>();
  #queue: Held[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A command was sent to the tab; returns the token to pass to end(). */
  begin(): number {
    const seq = ++this.#lastSeq;
    this.#inFlight.add(seq);
    return seq;
  }

  /** The command's response has been delivered; releases the events that waited for it. */
  end(seq: number): void {
    // Most answers find nothing held: skip the flush (and its timer churn) then.
    if (this.#inFlight.delete(seq) && this.#head < this.#queue.length) this.#flush();
  }

  /** An event arrived: deliver it now if nothing is in flight and nothing is held. */
  push(deliver: () => void): void {
    if (this.#closed) return;
    if (this.#inFlight.size === 0 && this.#head === this.#queue.length) {
      deliver();
      return;
    }
    this.#queue.push({ deliver, after: this.#lastSeq, deadline: this.now() + this.windowMs });
    this.#flush();
  }

  /** Delivers what is held (e.g. before the tab is removed) and stops. */
  close(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#inFlight.clear();
    this.#flush();
    this.#closed = true;
  }

  /** A Set iterates in insertion order and sequence numbers only grow: the first is the oldest. */
  #oldestInFlight(): number {
    for (const seq of this.#inFlight) return seq;
    return Infinity;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const oldest = this.#oldestInFlight();
    const now = this.now();
    while (this.#head < this.#queue.length) {
      const held = this.#queue[this.#head]!;
      if (oldest <= held.after && now < held.deadline) break;
      this.#head++;
      held.deliver();
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      return;
    }
    const wait = Math.max(0, this.#queue[this.#head]!.deadline - now);
    this.#timer = setTimeout(() => this.#flush(), wait);
  }
}
