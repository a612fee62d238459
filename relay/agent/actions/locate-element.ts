// How a script finds again the element an agent acts on (shared/element-locator.ts), read from
// the page before the action runs (a click may take the element away), bounded: an element that
// cannot be read in time gets no locator, and the session export says so at that step.

import type { ElementHandle, Frame } from 'playwright-core';
import { within } from '../../time-limit';
import { readElementFacts, type ElementFacts } from '../../../shared/element-facts';
import { locatorOf, type ElementLocator, type LocatedElement } from '../../../shared/element-locator';
import type { ActTarget } from '../snapshots/snapshot-engine';

/**
 * How long reading an element for its locator may take: an action does not wait longer for it
 * (within its own bound). 1 s was too short on a slow machine: a session's first read of a page
 * (Playwright's utility world made there) took longer, and its export lost that step.
 */
const LOCATE_MS = 3_000;

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
        element.evaluate(readElementFacts),
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
    return {
      locator: locatorOf(facts, byRole),
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
