// How a script finds again the element an agent acts on (shared/element-locator.ts), read from
// the page before the action runs (a click may take the element away), bounded: an element that
// cannot be read in time gets no locator, and the session export says so at that step.

import type { ElementHandle, Frame } from 'playwright-core';
import { within } from '../../time-limit';
import type { ElementLocator, LocatedElement } from '../../../shared/element-locator';
import type { ActTarget } from '../snapshots/snapshot-engine';

/** How long reading an element for its locator may take: an action does not wait longer for it. */
const LOCATE_MS = 1_000;

/** What the page says of the element, in its own frame (runs in the page). */
interface ElementFacts {
  testId?: string;
  label?: string;
  placeholder?: string;
  css: string;
  password: boolean;
  framed: boolean;
}

/**
 * The element's locator, or undefined when it cannot be read within LOCATE_MS. `shown`: the role
 * and name the snapshot showed (its accessible name), tried as a role locator when it is the only
 * element so named, or as the k-th.
 */
export async function locateElement(
  target: ActTarget,
  shown: { role: string; name: string } | undefined,
  /** The page's own frame, where most elements are: asked at once, beside the element's facts. */
  mainFrame: Frame,
): Promise<LocatedElement | undefined> {
  const read = async (): Promise<LocatedElement | undefined> => {
    const fromLocator = 'elementHandle' in target && !('asElement' in target);
    const handle = fromLocator ? await target.elementHandle() : target;
    if (!handle) return undefined;
    const element = handle as ElementHandle<Node>;
    let facts: ElementFacts;
    let frame: Frame | null = mainFrame;
    let byRole: ElementLocator | undefined;
    try {
      // One round trip for most actions: the facts and the role check in the page's own frame
      // at once; an element in another frame is asked there again.
      [facts, byRole] = await Promise.all([
        element.evaluate(readFacts),
        shown?.name ? roleLocator(mainFrame, element, shown) : undefined,
      ]);
      if (facts.framed) {
        frame = await element.ownerFrame();
        byRole = shown?.name && frame ? await roleLocator(frame, element, shown) : undefined;
      }
    } finally {
      // A handle of our own making is let go; a ref's handle is the snapshot's.
      if (fromLocator) void element.dispose().catch(() => {});
    }
    const locator: ElementLocator = facts.testId
      ? { by: 'testId', testId: facts.testId }
      : (byRole ??
        (facts.label
          ? { by: 'label', label: facts.label }
          : facts.placeholder
            ? { by: 'placeholder', placeholder: facts.placeholder }
            : { by: 'css', css: facts.css }));
    return {
      locator,
      ...(facts.framed && frame ? { frame: frame.url() } : {}),
      ...(facts.password ? { password: true as const } : {}),
    };
  };
  return within(read(), LOCATE_MS, () => new Error('not located')).catch(() => undefined);
}

/** The role locator that finds this element: the only one with its role and name, or the k-th. */
async function roleLocator(
  frame: Frame,
  element: ElementHandle<Node>,
  shown: { role: string; name: string },
): Promise<ElementLocator | undefined> {
  try {
    const all = frame.getByRole(shown.role as Parameters<Frame['getByRole']>[0], { name: shown.name, exact: true });
    const [index, count] = await all.evaluateAll((els, el) => [els.indexOf(el as never), els.length], element);
    if (index === undefined || index < 0) return undefined;
    return { by: 'role', role: shown.role, name: shown.name, ...(count! > 1 ? { nth: index } : {}) };
  } catch {
    return undefined; // a role Playwright does not know: another kind of locator
  }
}

/**
 * Runs in the page: the element's test id, label and placeholder where each is the only one in
 * its document, and a CSS path (an id that is unique, else tag and position from the nearest
 * such ancestor).
 */
function readFacts(node: Node): ElementFacts {
  const el = node as Element & { labels?: NodeListOf<HTMLLabelElement> | null; placeholder?: string; type?: string };
  const doc = el.ownerDocument;
  const text = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const only = (selector: string) => doc.querySelectorAll(selector).length === 1;
  const attr = (name: string, value: string) => `[${name}="${CSS.escape(value)}"]`;
  const testIdName = ['data-testid', 'data-test-id', 'data-test'].find((name) => el.hasAttribute(name));
  const rawTestId = testIdName ? el.getAttribute(testIdName)! : '';
  // One line of words: a test id with a line break in it is no locator worth keeping.
  const testId =
    rawTestId && !/[\r\n\u2028\u2029]/.test(rawTestId) && only(attr(testIdName!, rawTestId)) ? rawTestId : '';
  const label = text(el.labels?.[0]?.textContent);
  const sameLabel = label
    ? [...doc.querySelectorAll('label')].filter((l) => text(l.textContent) === label).length === 1
    : false;
  const placeholder = text(el.placeholder ?? el.getAttribute('placeholder'));
  const pathTo = (e: Element): string => {
    if (e.id && only(`#${CSS.escape(e.id)}`)) return `#${CSS.escape(e.id)}`;
    const parent = e.parentElement;
    const tag = e.tagName.toLowerCase();
    if (!parent) return tag;
    const same = [...parent.children].filter((c) => c.tagName === e.tagName);
    const step = same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(e) + 1})` : tag;
    return `${pathTo(parent)} > ${step}`;
  };
  return {
    ...(testId ? { testId } : {}),
    ...(label && sameLabel ? { label } : {}),
    ...(placeholder && only(attr('placeholder', placeholder)) ? { placeholder } : {}),
    css: pathTo(el),
    password: el.tagName === 'INPUT' && String(el.type).toLowerCase() === 'password',
    framed: doc.defaultView !== doc.defaultView?.top,
  };
}
