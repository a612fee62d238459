// One tab's screencast, shared by all its viewers: started (Page.startScreencast, JPEG) when the
// first viewer joins, resized to the largest viewer's canvas, stopped when the last one leaves.
// Each frame is acked to Chrome at once (and the screencast started again when none comes for a
// while: STALL_MS) and fanned out with per-viewer flow control: a viewer has at most IN_FLIGHT
// frames it has not acked; beyond that only its newest frame is kept, so a viewer that stops
// reading costs one frame of memory, never a queue, and slows nobody else.

import type { CDPSession } from 'playwright-core';
import { encodeFrame, type FrameMetadata, type ViewUpdate } from '../../shared/view-protocol';
import type { Logger } from '../log';

/** Frames a viewer may have unacked before the next ones replace each other. */
const IN_FLIGHT = 2;
/** Without a first frame for this long, the tab is probably not painting (a background tab). */
const FIRST_FRAME_MS = 3_000;
/**
 * Without a frame for this long while someone watches, the screencast is started again: Chrome
 * sends the next frame only once the last is acked, and a lost ack or a stalled compositor left
 * viewers on an old picture (in clean-clone CI runs: twice no frame for 20 s after the page
 * changed, an extension tab and a Grid tab; once a picture 11.8 s late). A start sends the
 * picture at once, so a still page costs one frame this often.
 */
const STALL_MS = 2_000;
const MAX_SIDE = 1920;
/** JPEG quality for a canvas this many device pixels wide: a small screen shows detail less, a large one costs more bytes. */
export function qualityFor(width: number): number {
  return width <= 800 ? 80 : width <= 1400 ? 70 : 60;
}

/** Where a viewer's frames and updates go (its WebSocket). */
export interface ViewerSink {
  /** False when the frame could not be sent (the socket is closing or far behind): it counts as not in flight. */
  frame(bytes: Uint8Array): boolean;
  update(update: ViewUpdate): void;
}

interface ViewerState {
  inFlight: number;
  pending: Uint8Array | undefined;
  size: { width: number; height: number } | undefined;
}

interface ScreencastFrameEvent {
  data: string;
  metadata: FrameMetadata;
  sessionId: number;
}

export class TabScreencast {
  // Added by join(), removed by leave(); the screencast runs while this is not empty.
  readonly #viewers = new Map<ViewerSink, ViewerState>();
  #last: Uint8Array | undefined;
  #status: ViewUpdate & { t: 'status' } = {
    t: 'status',
    state: 'waiting',
    message: 'Waiting for the first picture of the tab…',
  };
  #running: { width: number; height: number } | undefined;
  #firstFrameTimer: NodeJS.Timeout | undefined;
  #stallTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Frames and bytes received, for the bench and the tests. */
  readonly stats = { frames: 0, bytes: 0 };

  constructor(
    private readonly session: CDPSession,
    private readonly log: Logger,
  ) {
    session.on('Page.screencastFrame', (event) => this.#onFrame(event as unknown as ScreencastFrameEvent));
    session.on('Page.screencastVisibilityChanged', ({ visible }) => {
      this.#setStatus(
        visible
          ? { t: 'status', state: 'live', message: '' }
          : {
              t: 'status',
              state: 'hidden',
              message: 'The tab is hidden: bring it to the front of its window to see it.',
            },
      );
    });
  }

  get viewers(): number {
    return this.#viewers.size;
  }

  join(viewer: ViewerSink): void {
    this.#viewers.set(viewer, { inFlight: 0, pending: undefined, size: undefined });
    viewer.update(this.#status);
    if (!this.#running) return void this.#start(this.#wantedSize());
    if (this.#last) this.#send(viewer, this.#viewers.get(viewer)!, this.#last);
    this.#watchStall(); // unwatched, a stall was left alone
  }

  /** Removes a viewer; true when it was the last. */
  leave(viewer: ViewerSink): boolean {
    this.#viewers.delete(viewer);
    return this.#viewers.size === 0;
  }

  /** The viewer's canvas size in device pixels: the screencast follows the largest. */
  resize(viewer: ViewerSink, size: { width: number; height: number }): void {
    const state = this.#viewers.get(viewer);
    if (!state) return;
    state.size = size;
    const wanted = this.#wantedSize();
    if (this.#running && wanted.width === this.#running.width && wanted.height === this.#running.height) return;
    void this.#start(wanted);
  }

  /** The viewer drew a frame: it may get the next (or the newest it missed). */
  ack(viewer: ViewerSink): void {
    const state = this.#viewers.get(viewer);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    const pending = state.pending;
    state.pending = undefined;
    if (pending) this.#send(viewer, state, pending);
  }

  /** What a viewer has not yet received, in frames held for it (0 or 1). */
  held(viewer: ViewerSink): number {
    return this.#viewers.get(viewer)?.pending ? 1 : 0;
  }

  /** Sends the person's input on the screencast's session: one CDP session per watched tab. */
  async input(method: string, params: Record<string, unknown>): Promise<void> {
    await this.session.send(method as 'Input.dispatchMouseEvent', params as never);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#firstFrameTimer);
    clearTimeout(this.#stallTimer);
    this.#viewers.clear();
    await this.session.send('Page.stopScreencast').catch(() => {});
    await this.session.detach().catch(() => {});
  }

  #wantedSize(): { width: number; height: number } {
    let width = 0;
    let height = 0;
    for (const { size } of this.#viewers.values()) {
      width = Math.max(width, size?.width ?? 0);
      height = Math.max(height, size?.height ?? 0);
    }
    const clamp = (n: number, fallback: number) => Math.min(MAX_SIDE, Math.max(64, Math.round(n || fallback)));
    return { width: clamp(width, 1280), height: clamp(height, 800) };
  }

  async #start(size: { width: number; height: number }): Promise<void> {
    const first = this.#running === undefined;
    this.#running = size;
    try {
      if (!first) await this.session.send('Page.stopScreencast');
      await this.session.send('Page.startScreencast', {
        format: 'jpeg',
        quality: qualityFor(size.width),
        maxWidth: size.width,
        maxHeight: size.height,
        everyNthFrame: 1,
      });
    } catch (error) {
      if (!this.#closed) this.log.debug(`screencast start: ${(error as Error).message}`);
      return;
    } finally {
      this.#watchStall();
    }
    if (first && !this.#last) {
      this.#firstFrameTimer = setTimeout(() => {
        if (!this.#last)
          this.#setStatus({
            t: 'status',
            state: 'hidden',
            message:
              'The tab shows no picture: it may be in the background of its window. Bring it to the front to see it.',
          });
      }, FIRST_FRAME_MS);
    }
  }

  #onFrame(event: ScreencastFrameEvent): void {
    // Ack at once: Chrome sends the next frame only after the ack; viewers are paced separately.
    this.session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
    if (this.#closed) return;
    const { deviceWidth, deviceHeight, pageScaleFactor, offsetTop, scrollOffsetX, scrollOffsetY, timestamp } =
      event.metadata;
    const jpeg = Buffer.from(event.data, 'base64');
    const bytes = encodeFrame(
      {
        deviceWidth,
        deviceHeight,
        pageScaleFactor,
        offsetTop,
        scrollOffsetX,
        scrollOffsetY,
        ...(timestamp !== undefined ? { timestamp } : {}),
      },
      jpeg,
    );
    this.#watchStall();
    this.stats.frames++;
    this.stats.bytes += jpeg.length;
    this.#last = bytes;
    clearTimeout(this.#firstFrameTimer);
    if (this.#status.state !== 'live') this.#setStatus({ t: 'status', state: 'live', message: '' });
    for (const [viewer, state] of this.#viewers) this.#send(viewer, state, bytes);
  }

  /** (Re)arms the restart of a screencast that sends nothing while it is watched (STALL_MS). */
  #watchStall(): void {
    clearTimeout(this.#stallTimer);
    if (this.#closed) return;
    this.#stallTimer = setTimeout(() => {
      if (this.#closed || this.#viewers.size === 0 || !this.#running) return;
      this.log.debug(`screencast: no frame for ${STALL_MS} ms, started again`);
      void this.#start(this.#running);
    }, STALL_MS);
    this.#stallTimer.unref?.();
  }

  #send(viewer: ViewerSink, state: ViewerState, bytes: Uint8Array): void {
    if (state.inFlight >= IN_FLIGHT) {
      state.pending = bytes; // the newest wins
      return;
    }
    // A frame the socket did not take will never be acked: kept as the newest instead of counted.
    if (viewer.frame(bytes)) state.inFlight++;
    else state.pending = bytes;
  }

  #setStatus(status: ViewUpdate & { t: 'status' }): void {
    if (status.state === this.#status.state && status.message === this.#status.message) return;
    this.#status = status;
    for (const viewer of this.#viewers.keys()) viewer.update(status);
  }
}
