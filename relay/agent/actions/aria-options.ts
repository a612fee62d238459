// Choosing an option of an ARIA combobox or listbox by its accessible name, as a person does:
// the combobox opened, the option found in the popup it controls (or owns, or any listbox
// showing), clicked; no such option names the ones there are. `fill` and `select` both use it.

import type { ElementHandle, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import type { ActTarget } from '../snapshots/snapshot-engine';

/** Runs in the page: the option named `name` of a combobox's or listbox's popup, or the names there are. */
function findOption(el: Element, name: string): Element | string[] {
  const root = el.getRootNode() as Document | ShadowRoot;
  const byId = (id: string) => root.getElementById?.(id) ?? document.getElementById(id);
  const popups: Element[] = [];
  if (el.getAttribute('role') === 'listbox') popups.push(el);
  for (const attr of ['aria-controls', 'aria-owns'])
    for (const id of (el.getAttribute(attr) ?? '').split(/\s+/).filter(Boolean))
      popups.push(...[byId(id)].filter((p): p is HTMLElement => !!p));
  popups.push(...el.querySelectorAll('[role=listbox]'));
  if (popups.length === 0)
    popups.push(
      ...[...document.querySelectorAll('[role=listbox]')].filter(
        (p) => (p as HTMLElement).offsetParent !== null || p.getClientRects().length > 0,
      ),
    );
  const options = popups.flatMap((p) => [...p.querySelectorAll('[role=option]')]);
  const nameOf = (o: Element) =>
    (o.getAttribute('aria-label') ?? (o as HTMLElement).innerText ?? o.textContent ?? '').trim().replace(/\s+/g, ' ');
  const wanted = name.trim().toLowerCase();
  return (
    options.find((o) => nameOf(o) === name.trim()) ??
    options.find((o) => nameOf(o).toLowerCase() === wanted) ??
    options.map(nameOf)
  );
}

/** How long a popup's options may take to show after the combobox is opened. */
const POPUP_MS = 3_000;

/** Chooses an option of an ARIA combobox (opened first) or listbox by its accessible name. */
export async function chooseOption(page: Page, target: ActTarget, name: string, timeout: number): Promise<string> {
  const role = await (target as unknown as ElementHandle).evaluate((el) => (el as Element).getAttribute('role') ?? '');
  if (role !== 'listbox') await target.click({ timeout });
  const deadline = Date.now() + Math.min(timeout, POPUP_MS);
  let seen: string[] = [];
  for (;;) {
    const found = await (target as unknown as ElementHandle).evaluateHandle(
      findOption as (el: Element, name: string) => Element | string[],
      name,
    );
    const option = found.asElement();
    if (option) {
      try {
        await option.click({ timeout });
        return name;
      } finally {
        await option.dispose();
      }
    }
    seen = (await found.jsonValue()) as string[];
    await found.dispose();
    if (Date.now() > deadline) break;
    await page.waitForTimeout(100);
  }
  // Closed again, as the person would leave it.
  if (role !== 'listbox') await page.keyboard.press('Escape').catch(() => {});
  throw new ClawdError(
    'action_failed',
    `no option named ${JSON.stringify(name)}${
      seen.length
        ? `; its options: ${seen
            .slice(0, 30)
            .map((s) => JSON.stringify(s))
            .join(', ')}`
        : ': no options showed when it was opened'
    }`,
  );
}
