// Tells the person's input from an agent's on a handed-over tab. The page's watch says what it
// saw (a key and which, a press, the wheel, a touch); every agent's input reaches the page as an
// Input.* command through the relay. An input the page saw is the agent's when an agent command
// of the same kind (and the same key) was on its way or answered a moment ago, each command
// accounting for one such input; the rest is the person's — so a person typing while an agent
// types or clicks is still seen.

import type { PersonInput } from '../../shared/protocol';

/**
 * How long after an agent's input command answered its page's events still count as the agent's:
 * the page's word that it saw input comes by another path (the extension's content script) and
 * may trail the answer. The person's same key inside that moment is taken for the agent's.
 */
export const AGENT_INPUT_GRACE_MS = 500;
/** The most input commands kept per tab (a burst of typing is far fewer within the grace). */
const SENT_MAX = 256;

/** What one agent command makes the page's watch see: a kind, or `any` for commands whose DOM events we do not map. */
type Made = PersonInput | { kind: 'any' };

interface Sent {
  made: Made;
  /** When it was answered (undefined while on its way). */
  ended: number | undefined;
  /** It has accounted for an input the page saw. */
  used: boolean;
}

/** What the page sees of an Input.* command (null: nothing the watch listens for, such as a mouse move or a key's release). */
export function madeBy(method: string, params: Record<string, unknown>): Made | null {
  switch (method) {
    case 'Input.dispatchKeyEvent':
      if (params.type !== 'keyDown' && params.type !== 'rawKeyDown') return null;
      return typeof params.key === 'string' ? { kind: 'key', key: params.key } : { kind: 'key' };
    case 'Input.dispatchMouseEvent':
      return params.type === 'mousePressed'
        ? { kind: 'mouse' }
        : params.type === 'mouseWheel'
          ? { kind: 'wheel' }
          : null;
    case 'Input.dispatchTouchEvent':
      return params.type === 'touchStart' ? { kind: 'touch' } : null;
    case 'Input.insertText':
    case 'Input.imeSetComposition':
    case 'Input.dispatchDragEvent':
    case 'Input.setIgnoreInputEvents':
    case 'Input.setInterceptDrags':
      return null; // no keydown, press, wheel or touch in the page
    default:
      return { kind: 'any' }; // synthesized gestures, emulated touch: whatever the page saw may be theirs
  }
}

function accounts(made: Made, seen: PersonInput): boolean {
  if (made.kind === 'any') return true;
  if (made.kind !== seen.kind) return false;
  return made.kind !== 'key' || seen.kind !== 'key' || made.key === undefined || seen.key === undefined
    ? true
    : made.key === seen.key;
}

/** The agent input commands of one tab, as long as their page events may still be reported. */
export class AgentInputs {
  readonly #sent: Sent[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** An Input.* command goes to the tab; call the returned function when it is answered. */
  sending(method: string, params: Record<string, unknown>): () => void {
    const made = madeBy(method, params);
    if (!made) return () => {};
    const sent: Sent = { made, ended: undefined, used: false };
    // A tab whose page never reports (no watch there) asks nothing: what is past its moment goes here, and a cap holds the rest.
    this.#drop();
    if (this.#sent.length >= SENT_MAX) this.#sent.shift();
    this.#sent.push(sent);
    return () => {
      sent.ended = this.now();
    };
  }

  /**
   * Whether what the page saw includes the person's input. `seen` undefined (an extension that
   * does not say what it saw): the person's unless an agent's input is near at all.
   */
  includesPersons(seen: readonly PersonInput[] | undefined): boolean {
    this.#drop();
    if (seen === undefined) return this.#sent.length === 0;
    let persons = false;
    for (const input of seen) {
      const sent = this.#sent.find((s) => !s.used && accounts(s.made, input));
      if (sent) sent.used = true;
      else persons = true;
    }
    return persons;
  }

  #drop(): void {
    const now = this.now();
    for (let i = this.#sent.length - 1; i >= 0; i--) {
      const { ended } = this.#sent[i]!;
      if (ended !== undefined && now - ended >= AGENT_INPUT_GRACE_MS) this.#sent.splice(i, 1);
    }
  }
}
