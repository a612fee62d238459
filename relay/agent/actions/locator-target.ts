// A recipe step's element found by its locator (shared/element-locator.ts), as a script finds it:
// what a ref is to an agent's action, a locator is to a recipe's step. An element that does not
// come within the step's bound is the step's stop ("not on the page"), said as a stale ref is.

import type { Frame, Locator, Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { locatorWords, type ElementLocator, type LocatedElement } from '../../../shared/element-locator';

/** How long a step waits for its element to come (a page still rendering after a load). */
const COME_MS = 5_000;

export async function locatorTarget(page: Page, element: LocatedElement, leftMs: number): Promise<Locator> {
  const scope: Page | Frame | undefined = element.frame ? page.frames().find((f) => f.url() === element.frame) : page;
  if (!scope) throw new ClawdError('ref_stale', `the step's frame is not on the page: ${element.frame}`);
  const all = locatorIn(scope, element.locator);
  const one =
    element.locator.by === 'role' && element.locator.nth !== undefined ? all.nth(element.locator.nth) : all.first();
  try {
    await one.waitFor({ state: 'attached', timeout: Math.max(1, Math.min(COME_MS, leftMs)) });
  } catch {
    throw new ClawdError('ref_stale', `the step's element is not on the page: ${locatorWords(element.locator)}`);
  }
  // Found one of several where the locator was the only one: which is meant cannot be told, and
  // the first of them may be the wrong element.
  const count = await all.count();
  if (count > 1 && !(element.locator.by === 'role' && element.locator.nth !== undefined))
    throw new ClawdError(
      'ref_stale',
      `the step's element is not the only one on the page any more (${count} match ${locatorWords(element.locator)})`,
    );
  return one;
}

function locatorIn(scope: Page | Frame, locator: ElementLocator): Locator {
  switch (locator.by) {
    case 'testId':
      return scope.getByTestId(locator.testId);
    case 'role':
      return scope.getByRole(locator.role as Parameters<Page['getByRole']>[0], { name: locator.name, exact: true });
    case 'label':
      return scope.getByLabel(locator.label, { exact: true });
    case 'placeholder':
      return scope.getByPlaceholder(locator.placeholder, { exact: true });
    case 'css':
      return scope.locator(locator.css);
  }
}
