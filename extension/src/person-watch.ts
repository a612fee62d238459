// Put into the frames of an attached tab only (chrome.scripting, by the worker, at attach and
// at each navigation), never into the person's other tabs: tells the worker that the page saw a
// key, a click, a touch or the wheel that the browser marks as trusted — the person's, or an
// agent's input dispatched through the debugger (the relay tells them apart: every agent input
// goes through it). At most one message per 200 ms, the last one always sent, so the relay
// knows when the person's last input was. The worker's 'clawd-unwatch' (on release) stops it.

const WATCHING = '__clawdPersonWatch';
const EVERY_MS = 200;
const INPUTS = ['keydown', 'mousedown', 'wheel', 'touchstart'] as const;

(() => {
  const scope = globalThis as unknown as Record<string, unknown>;
  if (scope[WATCHING]) return; // put in twice (attach, then the navigation's commit)
  let last = 0;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const tell = () => {
    last = Date.now();
    try {
      chrome.runtime.sendMessage({ type: 'clawd-person' }).catch(() => stop()); // the worker could not take it
    } catch {
      stop(); // the extension was reloaded: this script is an orphan
    }
  };
  const seen = (event: Event) => {
    if (!event.isTrusted) return; // a page's own synthetic events are nobody's hands
    const since = Date.now() - last;
    if (since >= EVERY_MS) return tell();
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
