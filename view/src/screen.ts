// The picture and the person's input: draws each frame on the canvas (then acks it, so the
// server sends the next), and turns mouse, wheel, keys and text on the canvas into view
// messages in the page's CSS pixels. Text goes through a hidden textarea so IME, phone keyboards
// and non-Latin scripts arrive as text; only keys that are not text (Enter, arrows…) and
// shortcuts go as keys.

import {
  canvasToPage,
  decodeFrame,
  type FrameMetadata,
  type MouseButton,
  type ViewMessage,
} from '../../shared/view-protocol';

const BUTTONS: MouseButton[] = ['left', 'middle', 'right'];

function modifiersOf(e: MouseEvent | KeyboardEvent | WheelEvent): number {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

/** A key that types nothing by itself (Enter, Tab, arrows…) or a shortcut: sent as a key. */
function isKey(e: KeyboardEvent): boolean {
  if (e.key === 'Unidentified' || e.key === 'Process' || e.key === 'Dead' || e.isComposing) return false;
  return e.key.length > 1 || e.ctrlKey || e.metaKey || e.altKey;
}

export class Screen {
  #metadata: FrameMetadata | undefined;
  #pendingMove: MouseEvent | undefined;
  #drawing = Promise.resolve();
  /** Frames drawn, for whoever measures (the bench reads it through the page). */
  frames = 0;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly keys: HTMLTextAreaElement,
    private readonly send: (message: ViewMessage) => void,
    /** Shift+Escape: the person leaves the picture for the page's own controls. */
    leave: () => void,
  ) {
    canvas.addEventListener('mousedown', (e) => {
      e.preventDefault();
      keys.focus({ preventScroll: true });
      this.#mouse('mousePressed', e);
    });
    canvas.addEventListener('mouseup', (e) => this.#mouse('mouseReleased', e));
    canvas.addEventListener('mousemove', (e) => {
      // At most one move per animation frame: the newest position is the one that matters.
      if (this.#pendingMove === undefined) requestAnimationFrame(() => this.#flushMove());
      this.#pendingMove = e;
    });
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    canvas.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        const at = this.#toPage(e);
        if (at) send({ t: 'wheel', ...at, deltaX: e.deltaX, deltaY: e.deltaY, modifiers: modifiersOf(e) });
      },
      { passive: false },
    );
    // Focusing the picture by keyboard hands the keys to the textarea that carries them.
    canvas.addEventListener('focus', () => keys.focus({ preventScroll: true }));
    keys.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && e.shiftKey) {
        e.preventDefault();
        leave();
        return;
      }
      if (!isKey(e)) return;
      e.preventDefault();
      send({ t: 'key', type: 'keyDown', key: e.key, code: e.code, modifiers: modifiersOf(e) });
    });
    keys.addEventListener('keyup', (e) => {
      if (!isKey(e)) return;
      e.preventDefault();
      send({ t: 'key', type: 'keyUp', key: e.key, code: e.code, modifiers: modifiersOf(e) });
    });
    keys.addEventListener('input', (e) => {
      if ((e as InputEvent).isComposing) return;
      this.#sendText();
    });
    keys.addEventListener('compositionend', () => this.#sendText());
  }

  /** One binary frame from the server: drawn in order, then acked. */
  draw(data: ArrayBuffer): void {
    const { metadata, jpeg } = decodeFrame(data);
    this.#drawing = this.#drawing.then(async () => {
      try {
        const bitmap = await createImageBitmap(new Blob([jpeg as BlobPart], { type: 'image/jpeg' }));
        if (this.canvas.width !== bitmap.width || this.canvas.height !== bitmap.height) {
          this.canvas.width = bitmap.width;
          this.canvas.height = bitmap.height;
        }
        this.canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
        bitmap.close();
        this.#metadata = metadata;
        this.frames++;
        this.canvas.dataset.frames = String(this.frames);
      } finally {
        this.send({ t: 'ack' });
      }
    });
  }

  /** The canvas size in device pixels the server should aim its frames at. */
  wantedSize(): { width: number; height: number } {
    const ratio = window.devicePixelRatio || 1;
    return {
      width: Math.round(this.canvas.clientWidth * ratio) || 1280,
      height: Math.round(window.innerHeight * ratio) || 800,
    };
  }

  #sendText(): void {
    const text = this.keys.value;
    this.keys.value = '';
    if (text !== '') this.send({ t: 'text', text });
  }

  #flushMove(): void {
    const e = this.#pendingMove;
    this.#pendingMove = undefined;
    if (e) this.#mouse('mouseMoved', e);
  }

  #mouse(type: 'mousePressed' | 'mouseReleased' | 'mouseMoved', e: MouseEvent): void {
    const at = this.#toPage(e);
    if (!at) return;
    const button = type === 'mouseMoved' ? 'none' : (BUTTONS[e.button] ?? 'left');
    // DOM and CDP count buttons alike (left 1, right 2, middle 4, back 8, forward 16).
    this.send({
      t: 'mouse',
      type,
      ...at,
      button,
      buttons: e.buttons & 31,
      clickCount: type === 'mouseMoved' ? 0 : Math.max(1, e.detail),
      modifiers: modifiersOf(e),
    });
  }

  #toPage(e: MouseEvent): { x: number; y: number } | undefined {
    if (!this.#metadata) return undefined;
    const rect = this.canvas.getBoundingClientRect();
    return canvasToPage(
      { x: e.clientX - rect.left, y: e.clientY - rect.top },
      { width: rect.width, height: rect.height },
      this.#metadata,
    );
  }
}
