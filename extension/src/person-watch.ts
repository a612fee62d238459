// Put into the frames of an attached tab only (chrome.scripting, by the worker, at attach and
// at each navigation), never into the person's other tabs: tells the worker that the page saw a
// key, a click, a touch or the wheel that the browser marks as trusted — the person's, or an
// agent's input dispatched through the debugger (the relay tells them apart by what was seen —
// which key, a press, the wheel — against the agents' input commands, which all go through it).
// At most one message per 200 ms, carrying what was seen since the last (sooner when that fills
// a message: nothing seen is dropped), the last one always sent, so the relay knows when the
// person's last input was. The worker's 'clawd-unwatch' (on release) stops it.

import { PERSON_INPUTS_MAX, type PersonInput } from '../../shared/protocol';

const WATCHING = '__clawdPersonWatch';
const EVERY_MS = 200;
const INPUTS = ['keydown', 'mousedown', 'wheel', 'touchstart'] as const;

function inputOf(event: Event): PersonInput {
  if (event.type === 'keydown') return { kind: 'key', key: (event as KeyboardEvent).key };
  return { kind: event.type === 'mousedown' ? 'mouse' : event.type === 'wheel' ? 'wheel' : 'touch' };
}

(() => {
  const scope = globalThis as unknown as Record<string, unknown>;
  if (scope[WATCHING]) return; // put in twice (attach, then the navigation's commit)
  let last = 0;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  let seenSince: PersonInput[] = [];
  const tell = () => {
    last = Date.now();
    const inputs = seenSince;
    seenSince = [];
    try {
      chrome.runtime.sendMessage({ type: 'clawd-person', inputs }).catch(() => stop()); // the worker could not take it
    } catch {
      stop(); // the extension was reloaded: this script is an orphan
    }
  };
  const seen = (event: Event) => {
    if (!event.isTrusted) return; // a page's own synthetic events are nobody's hands
    // A wheel turn fires many events: one says it.
    if (event.type !== 'wheel' || !seenSince.some((input) => input.kind === 'wheel')) seenSince.push(inputOf(event));
    // At the cap what was seen is said at once, none of it dropped: an agent typing fast (its keys
    // are trusted too) fills a message within the 200 ms, and dropping the oldest pushed out the
    // person's key among them — their hands went unseen while the agent kept typing.
    const since = Date.now() - last;
    if (since >= EVERY_MS || seenSince.length >= PERSON_INPUTS_MAX) {
      clearTimeout(trailing);
      trailing = undefined;
      return tell();
    }
    trailing ??= setTimeout(() => {
      trailing = undefined;
      tell();
    }, EVERY_MS - since);
  };
  const onMessage = (message: unknown) => {
    if ((message as { type?: string })?.type === 'clawd-unwatch') stop();
  };
  function stop(): void {
    for (const type of INPUTS) removeEventListener(type, seen, { capture: true });
    clearTimeout(trailing);
    chrome.runtime.onMessage.removeListener(onMessage);
    scope[WATCHING] = false;
  }
  for (const type of INPUTS) addEventListener(type, seen, { capture: true, passive: true });
  chrome.runtime.onMessage.addListener(onMessage);
  scope[WATCHING] = true;
})();
