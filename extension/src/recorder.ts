// Put into the page of the tab the person records in (by the side panel, through chrome.scripting,
// in the page's isolated world; while a recording runs, into every page at its start, and it asks
// the panel whether its tab is the one recorded before a step leaves): each action of the person's own —
// a click, a field's new value, a box checked, a choice, Enter in a field — goes to the panel as a
// step with the element's locator, read here before the page's own handlers run. Only trusted
// input counts (a page's own synthetic events are nobody's hands), and a field's change only
// shortly after the person's own press or key (a script's click on a box changes it too). A
// password field's value is never read (nor one that was a password field once, or says it is
// one). The page's own frame only. The panel's RECORD_STOP (or the extension going away) ends it.

import { readElementFacts } from '../../shared/element-facts';
import { locatorOf, type ElementLocator, type LocatedElement } from '../../shared/element-locator';
import { ROLED, isField, nameOf, roleOf, shown } from './recorder-roles';
import { RECORD_ASK, RECORD_STOP, type RecordStepMessage, type RecordedStep } from './recording-messages';

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

/** How soon after the person's own press or key a field's change is theirs (a page's script can change a field too). */
const HANDS_MS = 2_000;
/** How soon after Enter in a field the form's own click on its submit button follows (not a step of its own). */
const IMPLICIT_CLICK_MS = 500;

(() => {
  const scope = globalThis as unknown as Record<string, unknown>;
  if (scope[RECORDING]) return; // put in twice (the navigation's commit, then again)
  scope[RECORDING] = true;
  // The value each text field was last recorded with: Enter and the change after it are one step.
  const recorded = new WeakMap<Element, string>();
  // Fields typed into since their last step (a password's value is never read, so this says it changed).
  const typed = new WeakSet<Element>();
  // Fields that were a password field once (a "show password" button makes one a text field).
  const secret = new WeakSet<Element>();
  // When the person's hands last pressed or keyed: a change long after is a script's, not theirs.
  let handsAt = -Infinity;
  let enterAt: { form: HTMLFormElement | null; at: number } | undefined;

  // Steps taken before the panel said this tab is the one recorded: they go once it says so.
  let held: RecordedStep[] | undefined = [];
  const post = (step: RecordedStep) => {
    try {
      chrome.runtime.sendMessage({ type: 'clawd-record', step } satisfies RecordStepMessage).catch(() => {});
    } catch {
      stop(); // the extension was reloaded: this script is an orphan
    }
  };
  const send = (step: RecordedStep) => (held ? held.push(step) : post(step));
  const isSecret = (el: Element) => {
    if (
      (el as HTMLInputElement).type === 'password' ||
      /password|one-time-code/.test(el.getAttribute('autocomplete') ?? '')
    )
      secret.add(el);
    return secret.has(el);
  };
  const fill = (el: HTMLInputElement | HTMLTextAreaElement) => {
    if (!typed.has(el)) return; // nothing typed since its last step (Enter, then the change)
    typed.delete(el);
    const element = located(el);
    if (isSecret(el)) return send({ do: 'fill', element: { ...element, password: true } }); // its value is never read
    if (recorded.get(el) === el.value) return;
    recorded.set(el, el.value);
    send({ do: 'fill', element, value: el.value });
  };

  const onHands = (event: Event) => {
    if (!event.isTrusted) return;
    handsAt = event.timeStamp;
    if (event.target instanceof Element && isText(event.target)) isSecret(event.target);
  };
  const onInput = (event: Event) => {
    if (event.isTrusted && event.target instanceof Element && isText(event.target)) {
      isSecret(event.target);
      typed.add(event.target);
    }
  };
  const onClick = (event: Event) => {
    if (!event.isTrusted || !(event.target instanceof Element)) return;
    const el = event.target.closest(CLICKABLE) ?? event.target;
    if (el.matches(FIELD_CLICK) || el.closest('label')) return;
    // Enter in a field clicks its form's submit button itself: the Enter step is the one.
    const button = el as HTMLButtonElement;
    if (
      (event as MouseEvent).detail === 0 &&
      enterAt &&
      event.timeStamp - enterAt.at < IMPLICIT_CLICK_MS &&
      button.form === enterAt.form
    )
      return;
    send({ do: 'click', element: located(el) });
  };
  const onChange = (event: Event) => {
    const el = event.target;
    if (!event.isTrusted || !(el instanceof Element) || event.timeStamp - handsAt > HANDS_MS) return;
    if (el instanceof HTMLSelectElement)
      send({ do: 'select', element: located(el), values: [...el.selectedOptions].map((o) => o.value) });
    else if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio'))
      send({ do: 'check', element: located(el), checked: el.checked });
    else if (isText(el)) fill(el);
  };
  const onKey = (event: Event) => {
    onHands(event);
    const { key, isComposing } = event as KeyboardEvent;
    const el = event.target;
    if (!event.isTrusted || key !== 'Enter' || isComposing || !(el instanceof Element) || !isText(el)) return;
    if (el.tagName === 'TEXTAREA') return;
    fill(el);
    enterAt = { form: (el as HTMLInputElement).form, at: event.timeStamp };
    send({ do: 'press', key, element: located(el) });
  };
  const onMessage = (message: unknown) => {
    if ((message as { type?: string })?.type === RECORD_STOP) stop();
  };
  const listeners = [
    ['pointerdown', onHands],
    ['input', onInput],
    ['click', onClick],
    ['change', onChange],
    ['keydown', onKey],
  ] as const;
  let stopped = false;
  function stop(): void {
    if (stopped) return;
    stopped = true;
    held = [];
    for (const [type, listener] of listeners) removeEventListener(type, listener, { capture: true });
    chrome.runtime.onMessage.removeListener(onMessage);
    delete scope[RECORDING];
  }
  for (const [type, listener] of listeners) addEventListener(type, listener, { capture: true });
  chrome.runtime.onMessage.addListener(onMessage);
  const answered = (yes: unknown) => {
    if (yes !== true) return stop();
    const steps = held ?? [];
    held = undefined;
    steps.forEach(post);
  };
  try {
    chrome.runtime.sendMessage({ type: RECORD_ASK }).then(answered, () => stop());
  } catch {
    stop();
  }
})();
