// The live view's input, as CDP Input commands. Text arrives as text (Input.insertText, so IME,
// phone keyboards and non-Latin scripts work); only keys that are not text (Enter, Tab, arrows,
// Backspace…) and shortcuts (Ctrl+A) arrive as keys, which need Windows key codes for Chrome to
// run their default actions. Pure: the socket sends what these return.

import type { ViewMessage } from '../../shared/view-protocol';

type Command = { method: string; params: Record<string, unknown> };

const NAMED_KEYS: Record<string, number> = {
  Backspace: 8,
  Tab: 9,
  Enter: 13,
  Shift: 16,
  Control: 17,
  Alt: 18,
  Pause: 19,
  CapsLock: 20,
  Escape: 27,
  ' ': 32,
  PageUp: 33,
  PageDown: 34,
  End: 35,
  Home: 36,
  ArrowLeft: 37,
  ArrowUp: 38,
  ArrowRight: 39,
  ArrowDown: 40,
  Insert: 45,
  Delete: 46,
  Meta: 91,
  ContextMenu: 93,
};
for (let i = 1; i <= 12; i++) NAMED_KEYS[`F${i}`] = 111 + i;

/** Keys whose keydown also types a character, so Chrome runs its default action (submit, newline). */
const KEY_TEXT: Record<string, string> = { Enter: '\r', ' ': ' ' };

/** The Windows virtual key code Chrome expects for a DOM key value. */
export function keyCodeOf(key: string): number {
  const named = NAMED_KEYS[key];
  if (named !== undefined) return named;
  if (key.length === 1) {
    const upper = key.toUpperCase();
    if (/[A-Z0-9]/.test(upper)) return upper.charCodeAt(0);
  }
  return 0;
}

/** The CDP command for one input message, or undefined for messages that are not input. */
export function inputCommand(message: ViewMessage): Command | undefined {
  switch (message.t) {
    case 'mouse':
      return {
        method: 'Input.dispatchMouseEvent',
        params: {
          type: message.type,
          x: message.x,
          y: message.y,
          button: message.button,
          buttons: message.buttons,
          clickCount: message.clickCount,
          modifiers: message.modifiers,
        },
      };
    case 'wheel':
      return {
        method: 'Input.dispatchMouseEvent',
        params: {
          type: 'mouseWheel',
          x: message.x,
          y: message.y,
          deltaX: message.deltaX,
          deltaY: message.deltaY,
          modifiers: message.modifiers,
        },
      };
    case 'key': {
      const code = keyCodeOf(message.key);
      // With Ctrl, Alt or Meta a key is a shortcut, not text.
      const text = message.type === 'keyDown' && (message.modifiers & 7) === 0 ? KEY_TEXT[message.key] : undefined;
      return {
        method: 'Input.dispatchKeyEvent',
        params: {
          type: message.type === 'keyUp' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown',
          key: message.key,
          code: message.code,
          windowsVirtualKeyCode: code,
          nativeVirtualKeyCode: code,
          modifiers: message.modifiers,
          ...(text ? { text, unmodifiedText: text } : {}),
        },
      };
    }
    case 'text':
      return message.text === '' ? undefined : { method: 'Input.insertText', params: { text: message.text } };
    default:
      return undefined;
  }
}

/** Input that shows intent to act (a press, a key, text, a wheel), as opposed to merely hovering. */
export function isActing(message: ViewMessage): boolean {
  return (
    message.t === 'wheel' ||
    message.t === 'key' ||
    message.t === 'text' ||
    message.t === 'nav' ||
    (message.t === 'mouse' && message.type !== 'mouseMoved')
  );
}
