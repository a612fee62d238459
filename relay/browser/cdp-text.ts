// What the mux routes a browser message by, read from its text without parsing it. Nearly all of
// a managed browser's traffic is only routed: a flood's network events go to the client whose
// session they are on as Chrome wrote them, and a screenshot's answer only gets back its client's
// id, not a parse and a write of its megabytes. Chrome writes
// `{"method":…,"params":…,"sessionId":"…"}` and `{"id":N,"result"|"error":…,"sessionId":"…"}`,
// no spaces, the session id last; any other shape is parsed in full.

/** A browser message's routing fields, as found in its text. */
export type Routing =
  | { kind: 'event'; method: string; sessionId: string }
  | { kind: 'answer'; id: number; sessionId: string | undefined; sessionAt: number };

const EVENT_HEAD = /^\{"method":"([A-Za-z]+\.[A-Za-z]+)",/;
const ANSWER_HEAD = /^\{"id":(\d{1,15}),"(?:result|error)":/;
const SESSION_KEY = ',"sessionId":"';
const SESSION_ID = /^[0-9A-Za-z]{1,64}$/;

/**
 * Where the text's last member, `"sessionId":"…"`, begins (its comma), and the id; undefined when
 * the text does not end with one. A `"` inside a string is escaped, so a text ending `"}` whose
 * last `,"sessionId":"` is followed by letters and digits only ends with that member.
 */
function sessionTail(text: string): { at: number; sessionId: string } | undefined {
  if (!text.endsWith('"}')) return undefined;
  const at = text.lastIndexOf(SESSION_KEY);
  if (at === -1) return undefined;
  const sessionId = text.slice(at + SESSION_KEY.length, -2);
  return SESSION_ID.test(sessionId) ? { at, sessionId } : undefined;
}

/** The routing fields of an event on a session or of an answer; undefined: parse it. */
export function routingOf(text: string): Routing | undefined {
  const head = text.slice(0, 80);
  const event = EVENT_HEAD.exec(head);
  if (event) {
    const tail = sessionTail(text);
    return tail ? { kind: 'event', method: event[1]!, sessionId: tail.sessionId } : undefined;
  }
  const answer = ANSWER_HEAD.exec(head);
  if (!answer || !text.endsWith('}')) return undefined;
  const tail = sessionTail(text);
  // Ending in a string member that is not a session id this reads: not a shape to pass on.
  if (!tail && text.endsWith('"}')) return undefined;
  return { kind: 'answer', id: Number(answer[1]), sessionId: tail?.sessionId, sessionAt: tail?.at ?? text.length - 1 };
}

/**
 * An answer's text with the client's own id, and without its session id when the client sent
 * the command without one (its root session is the mux's to know).
 */
export function answerText(
  text: string,
  routing: Extract<Routing, { kind: 'answer' }>,
  id: number,
  atRoot: boolean,
): string {
  const rest = text.indexOf(',', 6);
  const body = atRoot ? `${text.slice(rest, routing.sessionAt)}}` : text.slice(rest);
  return `{"id":${id}${body}`;
}
