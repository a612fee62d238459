// Put into the page of the tab the person records in (by the side panel, through chrome.scripting,
// in the page's isolated world, again after each navigation): each action of the person's own —
// a click, a field's new value, a box checked, a choice, Enter in a field — goes to the panel as a
// step with the element's locator, read here before the page's own handlers run. Only trusted
// input counts (a page's own synthetic events are nobody's hands). A password field's value is
// never read. The panel's RECORD_STOP (or the extension going away) ends it.

import { readElementFacts } from '../../shared/element-facts';
import { locatorOf, type ElementLocator, type LocatedElement } from '../../shared/element-locator';
import { ROLED, isField, nameOf, roleOf, shown } from './recorder-roles';
import { RECORD_STOP, type RecordStepMessage, type RecordedStep } from './recording-messages';

const RECORDING = '__clawdRecorder';
/** What a click on it does is what its field records (a value, a check, a choice): no click step. */
const FIELD_CLICK =
  'input:not([type=button]):not([type=submit]):not([type=reset]):not([type=image]),select,textarea,label';
const CLICKABLE =
  'a[href],button,input,summary,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=switch],[role=checkbox],[role=radio],[onclick],[tabindex]';

/** The element as a script finds it again: a test id, its role and name, a label, a placeholder, a CSS path. */
function located(el: Element): LocatedElement {
  const facts = readElementFacts(el);
  const role = roleOf(el);
  const name = role ? nameOf(el) : '';
  let byRole: ElementLocator | undefined;
  if (role && name) {
    const same = [...el.ownerDocument.querySelectorAll(ROLED)].filter(
      (other) => roleOf(other) === role && nameOf(other) === name && shown(other),
    );
    const k = same.indexOf(el);
    if (k >= 0) byRole = { by: 'role', role, name, ...(same.length > 1 ? { nth: k } : {}) };
  }
  return {
    locator: locatorOf(facts, byRole),
    ...(facts.framed ? { frame: location.href } : {}),
    ...(facts.password ? { password: true as const } : {}),
  };
}

const isText = (el: Element): el is HTMLInputElement | HTMLTextAreaElement =>
  el.tagName === 'TEXTAREA' ||
  (el.tagName === 'INPUT' && isField(el) && !['checkbox', 'radio', 'file'].includes((el as HTMLInputElement).type));

(() => {
  const scope = globalThis as unknown as Record<string, unknown>;
  if (scope[RECORDING]) return; // put in twice (the navigation's commit, then again)
  scope[RECORDING] = true;
  // The value each text field was last recorded with: Enter and the change after it are one step.
  const recorded = new WeakMap<Element, string>();

  const send = (step: RecordedStep) => {
    try {
      chrome.runtime.sendMessage({ type: 'clawd-record', step } satisfies RecordStepMessage).catch(() => {});
    } catch {
      stop(); // the extension was reloaded: this script is an orphan
    }
  };
  const fill = (el: HTMLInputElement | HTMLTextAreaElement) => {
    const element = located(el);
    if (element.password) return send({ do: 'fill', element }); // its value is never read
    if (recorded.get(el) === el.value) return;
    recorded.set(el, el.value);
    send({ do: 'fill', element, value: el.value });
  };

  const onClick = (event: Event) => {
    if (!event.isTrusted || !(event.target instanceof Element)) return;
    const el = event.target.closest(CLICKABLE) ?? event.target;
    if (el.matches(FIELD_CLICK) || el.closest('label')) return;
    send({ do: 'click', element: located(el) });
  };
  const onChange = (event: Event) => {
    const el = event.target;
    if (!event.isTrusted || !(el instanceof Element)) return;
    if (el instanceof HTMLSelectElement)
      send({ do: 'select', element: located(el), values: [...el.selectedOptions].map((o) => o.value) });
    else if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio'))
      send({ do: 'check', element: located(el), checked: el.checked });
    else if (isText(el)) fill(el);
  };
  const onKey = (event: Event) => {
    const key = (event as KeyboardEvent).key;
    const el = event.target;
    if (!event.isTrusted || key !== 'Enter' || !(el instanceof Element) || !isText(el) || el.tagName === 'TEXTAREA')
      return;
    fill(el);
    send({ do: 'press', key, element: located(el) });
  };
  const onMessage = (message: unknown) => {
    if ((message as { type?: string })?.type === RECORD_STOP) stop();
  };
  const listeners = [
    ['click', onClick],
    ['change', onChange],
    ['keydown', onKey],
  ] as const;
  function stop(): void {
    for (const [type, listener] of listeners) removeEventListener(type, listener, { capture: true });
    chrome.runtime.onMessage.removeListener(onMessage);
    delete scope[RECORDING];
  }
  for (const [type, listener] of listeners) addEventListener(type, listener, { capture: true });
  chrome.runtime.onMessage.addListener(onMessage);
})();
