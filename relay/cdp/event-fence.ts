// Restores CDP's ordering for one tab. Over a real CDP pipe a command's response arrives before
// the events that follow it; chrome.debugger delivers events and responses on different paths,
// so an event can overtake an earlier response (measured: Target.attachedToTarget ahead of the
// Page.getFrameTree response; Playwright then hangs waiting for a context it already dropped).
//
// Instead of sending one command at a time (which deadlocks when a command waits on an event,
// e.g. a click that opens an alert), commands are pipelined and each event is held until every
// command that was in flight when it arrived has answered, or `windowMs` has passed, whichever
// comes first; a message or network event (`mayHurry`) at the head also goes once `maxHeld` wait
// behind it. Events keep their order among themselves. The count bounds what a flood costs: 10,000 console lines from one evaluate came
// in faster than the window let them go, and the relay held 4,000 at once; held that long they
// outlived V8's young generation and filled the old one (fan-out, the relay's peak resident
// memory: 118 MB with no count, 106 MB at 256, 88 MB at 64; 256 keeps the order for 2,500
// events a second).

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

/** Delivered slots at the front of the queue past which it is copied down (and only when they are half of it). */
const COMPACT_AT = 1024;

/** Events held behind a message or network event at the head before it goes (see above). */
export const MAX_HELD = 256;

/**
 * Events that may go ahead of an answer when many wait: what floods (console lines, log entries,
 * network traffic), whose order against an answer no client waits on (a navigation's requests
 * come before its answer on a real pipe too). Targets, contexts and frames keep the window.
 */
export function mayHurry(method: string): boolean {
  return method.startsWith('Network.') || HURRIED.has(method);
}
const HURRIED = new Set(['Runtime.consoleAPICalled', 'Runtime.exceptionThrown', 'Log.entryAdded']);

interface Held {
  deliver(): void;
  /** It may go once `maxHeld` wait behind it (mayHurry). */
  hurries: boolean;
  /** The last command sequence number issued when the event arrived. */
  after: number;
  deadline: number;
}

export class EventFence {
  #lastSeq = 0;
  readonly #inFlight = new Set<number>();
  /** Held events from `#head` on; the slots before it were delivered and are empty. */
  #queue: (Held | undefined)[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDeadline: number | undefined;
  #closed = false;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxHeld = MAX_HELD,
    /** A delivery threw: told, and the rest still delivered. */
    private readonly failed: (error: unknown) => void = () => {},
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

  /** An event arrived: deliver it now if nothing is in flight and nothing is held. `hurries`: see mayHurry. */
  push(deliver: () => void, hurries = false): void {
    if (this.#closed) return;
    if (this.#inFlight.size === 0 && this.#head === this.#queue.length) {
      deliver();
      return;
    }
    this.#queue.push({ deliver, hurries, after: this.#lastSeq, deadline: this.now() + this.windowMs });
    // With `maxHeld` behind it, a head that may hurry goes as if its window had run out.
    const head = this.#queue[this.#head]!;
    if (head.hurries && this.#queue.length - this.#head > this.maxHeld) head.deadline = -Infinity;
    this.#flush();
  }

  /** Delivers what is held (e.g. before the tab is removed) and stops. */
  close(): void {
    if (this.#closed) return;
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
    const oldest = this.#oldestInFlight();
    const now = this.now();
    while (this.#head < this.#queue.length) {
      const held = this.#queue[this.#head]!;
      if (oldest <= held.after && now < held.deadline) break;
      // Delivered: its slot lets go of it now, not when the queue next runs empty (under a flood
      // it never does, and every event delivered stayed reachable until the flood ended).
      this.#queue[this.#head++] = undefined;
      try {
        held.deliver();
      } catch (error) {
        this.failed(error);
      }
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      this.#arm(undefined);
      return;
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#arm(this.#queue[this.#head]!.deadline);
  }

  /**
   * One timer, for the deadline of the oldest held event. One armed for an earlier deadline is
   * kept (deadlines only grow along the queue: it fires early and the flush arms it again), so a
   * flood that moves the head at every event does not make a timer per event.
   */
  #arm(deadline: number | undefined): void {
    if (deadline !== undefined && this.#timerDeadline !== undefined && this.#timerDeadline <= deadline) return;
    if (deadline === this.#timerDeadline) return;
    clearTimeout(this.#timer);
    this.#timerDeadline = deadline;
    this.#timer =
      deadline === undefined
        ? undefined
        : setTimeout(
            () => {
              // A timer may fire a little before `now()` reaches the deadline: the flush arms it again.
              this.#timer = this.#timerDeadline = undefined;
              this.#flush();
            },
            Math.max(0, deadline - this.now()),
          );
  }
}
