// The live view's wire protocol, between the view page (view/src) and the control API's
// `/view/ws` socket. The page sends JSON messages (input, navigation, who controls the tab); the
// server sends JSON state messages and binary frames. Both sides import these types; the server
// parses every message with `parseViewMessage`, so a malformed one is a clear error, never a crash.

/** Modifier bits as CDP's Input domain counts them: Alt=1, Ctrl=2, Meta=4, Shift=8. */
export type Modifiers = number;

export type MouseButton = 'none' | 'left' | 'middle' | 'right';

/** From the page. Coordinates are the page's CSS pixels, already mapped from the canvas. */
export type ViewMessage =
  | { t: 'size'; width: number; height: number }
  | { t: 'ack' }
  | {
      t: 'mouse';
      type: 'mousePressed' | 'mouseReleased' | 'mouseMoved';
      x: number;
      y: number;
      button: MouseButton;
      buttons: number;
      clickCount: number;
      modifiers: Modifiers;
    }
  | { t: 'wheel'; x: number; y: number; deltaX: number; deltaY: number; modifiers: Modifiers }
  | { t: 'key'; type: 'keyDown' | 'keyUp'; key: string; code: string; modifiers: Modifiers }
  | { t: 'text'; text: string }
  | { t: 'nav'; action: 'back' | 'forward' | 'reload' | 'go'; url?: string }
  | { t: 'take' }
  | { t: 'done' };

/** Who holds the tab, as the view shows it. */
export type ViewHolder =
  { kind: 'agent'; session: string } | { kind: 'person'; reason: string; since: string; takenOver?: true } | null;

/** To the page (JSON). Frames go as binary messages: see `encodeFrame`. */
export type ViewUpdate =
  /** What this view may do, said first: act (take over, input, navigate) and answer questions. */
  | { t: 'grant'; acts: boolean; answers: boolean }
  | { t: 'control'; holder: ViewHolder }
  | { t: 'page'; url: string; title: string }
  | { t: 'status'; state: 'live' | 'waiting' | 'hidden' | 'closed'; message: string }
  | { t: 'error'; code: string; message: string };

/** What each frame carries besides its JPEG (CDP's ScreencastFrameMetadata, the fields we use). */
export interface FrameMetadata {
  deviceWidth: number;
  deviceHeight: number;
  pageScaleFactor: number;
  offsetTop: number;
  scrollOffsetX: number;
  scrollOffsetY: number;
  /** Seconds since the epoch, when Chrome drew it. */
  timestamp?: number;
}

const KINDS = new Set(['size', 'ack', 'mouse', 'wheel', 'key', 'text', 'nav', 'take', 'done']);
const MOUSE_TYPES = new Set(['mousePressed', 'mouseReleased', 'mouseMoved']);
const BUTTONS = new Set(['none', 'left', 'middle', 'right']);
const NAV = new Set(['back', 'forward', 'reload', 'go']);
/** Coordinates and sizes beyond this are nonsense from any real screen. */
const MAX_COORD = 100_000;

function num(value: unknown, what: string, min = -MAX_COORD, max = MAX_COORD): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new Error(`${what} must be a number from ${min} to ${max}`);
  return value;
}
function str(value: unknown, what: string, maxLength: number): string {
  if (typeof value !== 'string' || value.length > maxLength)
    throw new Error(`${what} must be a string of at most ${maxLength} characters`);
  return value;
}

/** Parses one message from the page; throws an Error naming what is wrong. */
export function parseViewMessage(text: string): ViewMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  const m = raw as Record<string, unknown>;
  if (typeof m !== 'object' || m === null || typeof m.t !== 'string' || !KINDS.has(m.t))
    throw new Error(`unknown message ${JSON.stringify((m as { t?: unknown })?.t ?? null)}`);
  const modifiers = () => num(m.modifiers ?? 0, 'modifiers', 0, 15);
  switch (m.t) {
    case 'size':
      return { t: 'size', width: num(m.width, 'width', 1, 8192), height: num(m.height, 'height', 1, 8192) };
    case 'ack':
    case 'take':
    case 'done':
      return { t: m.t };
    case 'mouse': {
      if (typeof m.type !== 'string' || !MOUSE_TYPES.has(m.type))
        throw new Error('mouse.type must be mousePressed, mouseReleased or mouseMoved');
      const button = m.button ?? 'none';
      if (typeof button !== 'string' || !BUTTONS.has(button))
        throw new Error('mouse.button must be none, left, middle or right');
      return {
        t: 'mouse',
        type: m.type as 'mousePressed',
        x: num(m.x, 'x'),
        y: num(m.y, 'y'),
        button: button as MouseButton,
        buttons: num(m.buttons ?? 0, 'buttons', 0, 31),
        clickCount: num(m.clickCount ?? 0, 'clickCount', 0, 3),
        modifiers: modifiers(),
      };
    }
    case 'wheel':
      return {
        t: 'wheel',
        x: num(m.x, 'x'),
        y: num(m.y, 'y'),
        deltaX: num(m.deltaX ?? 0, 'deltaX'),
        deltaY: num(m.deltaY ?? 0, 'deltaY'),
        modifiers: modifiers(),
      };
    case 'key':
      if (m.type !== 'keyDown' && m.type !== 'keyUp') throw new Error('key.type must be keyDown or keyUp');
      return {
        t: 'key',
        type: m.type,
        key: str(m.key, 'key', 32),
        code: str(m.code ?? '', 'code', 32),
        modifiers: modifiers(),
      };
    case 'text':
      return { t: 'text', text: str(m.text, 'text', 10_000) };
    default: {
      if (typeof m.action !== 'string' || !NAV.has(m.action))
        throw new Error('nav.action must be back, forward, reload or go');
      const url = m.action === 'go' ? str(m.url, 'url', 8_192) : undefined;
      return { t: 'nav', action: m.action as 'go', ...(url !== undefined ? { url } : {}) };
    }
  }
}

/** One binary frame message: 4 bytes (big-endian) of metadata length, the metadata JSON, the JPEG. */
export function encodeFrame(metadata: FrameMetadata, jpeg: Uint8Array): Uint8Array {
  const meta = new TextEncoder().encode(JSON.stringify(metadata));
  const out = new Uint8Array(4 + meta.length + jpeg.length);
  new DataView(out.buffer).setUint32(0, meta.length);
  out.set(meta, 4);
  out.set(jpeg, 4 + meta.length);
  return out;
}

export function decodeFrame(data: ArrayBuffer | Uint8Array): { metadata: FrameMetadata; jpeg: Uint8Array } {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  const metadata = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as FrameMetadata;
  return { metadata, jpeg: bytes.subarray(4 + length) };
}

/**
 * The page's CSS pixel under a point of the canvas. The frame shows the viewport scaled to the
 * canvas; `offsetTop` is the part of the frame above the page (device emulation bars).
 */
export function canvasToPage(
  point: { x: number; y: number },
  canvas: { width: number; height: number },
  metadata: FrameMetadata,
): { x: number; y: number } {
  const scale = metadata.pageScaleFactor || 1;
  return {
    x: Math.round(((point.x / canvas.width) * metadata.deviceWidth) / scale),
    y: Math.round(((point.y / canvas.height) * metadata.deviceHeight - metadata.offsetTop) / scale),
  };
}
