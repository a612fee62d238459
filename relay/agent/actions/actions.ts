// Carrying out a checked /act request on a page. Every element comes from `resolve(ref)`, which
// refuses stale refs, so an action lands on the element the snapshot showed or not at all.

import type { Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import type { ClawdError as Refusal } from '../../errors';
import type { ActRequest, ActResult } from '../../operations/act-operations';
import { fillForm, selectOptions } from './form-fill';
import type { ActTarget } from '../snapshots/snapshot-engine';

export interface ActContext {
  page: Page;
  resolve(ref: string): Promise<ActTarget>;
  /** Why the agent's code may not run here, when it may not (the driver's PagePolicy, a secret on the site). */
  evaluateRefusal(): Refusal | undefined;
  /** Why what could read a field's value may not run here (a secret on the site: secret-pages.ts). */
  secretRefusal(): Refusal | undefined;
  /** The agent's own code is about to run in the page (a secret is not typed where it ran). */
  ranCode(): void;
  /** How an error names a ref: as the snapshot showed it (`e14 combobox "Color"`). */
  describe(ref: string): string;
  /** What is left of the call's bound, in ms (at least 1). */
  left(): number;
}

/** Does this source text define a function (rather than being an expression)? */
export function isFunctionSource(source: string): boolean {
  return /^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/.test(source);
}

function checkEvaluate(ctx: ActContext): void {
  const refusal = ctx.evaluateRefusal();
  if (refusal) throw refusal;
  ctx.ranCode();
}

/**
 * Runs the agent's code, refused before, and refused after too when a secret went into the site
 * meanwhile (a call run beside it typed one): the result is dropped.
 */
async function agentCode<T>(ctx: ActContext, run: () => Promise<T>): Promise<T> {
  checkEvaluate(ctx);
  const result = await run();
  const refusal = ctx.evaluateRefusal();
  if (refusal) throw refusal;
  return result;
}

/** A selector that reads a field's value (`[value^="a"]`): one bit of a secret a call. */
const READS_VALUE = /\[\s*value\b/i;

/**
 * Playwright sends a function to the page as its source text (String(fn)). A stand-in whose
 * toString() is the agent's source does the same without ever running that text in this process.
 */
export function pageFunction(source: string): () => unknown {
  const stand = () => undefined;
  Object.defineProperty(stand, 'toString', { value: () => source });
  return stand;
}

/** Bounds a page call that takes no timeout of its own by the action's timeout. */
function bounded<T>(work: Promise<T>, request: ActRequest, awaited: string): Promise<T> {
  return within(
    work,
    request.timeoutMs,
    () =>
      new ClawdError(
        'action_timeout',
        `${request.kind}: timed out after ${seconds(request.timeoutMs)} waiting for ${awaited}`,
      ),
  );
}

/** One kind of action's request. */
type ActOf<K extends ActRequest['kind']> = Extract<ActRequest, { kind: K }>;

export async function runAct(ctx: ActContext, request: ActRequest): Promise<Partial<ActResult>> {
  const { page } = ctx;
  // What is left of the call's bound when each page call starts: finding the element (a ref
  // check) came out of it, and Playwright's own timeout, which says why (covered, hidden …),
  // must come before the call's outer bound, which cannot.
  const left = () => ctx.left();
  switch (request.kind) {
    case 'click': {
      const target = await ctx.resolve(request.ref);
      const options = {
        timeout: left(),
        ...(request.button ? { button: request.button } : {}),
        ...(request.modifiers ? { modifiers: request.modifiers } : {}),
      };
      await (request.doubleClick ? target.dblclick(options) : target.click(options));
      return {};
    }
    case 'type':
      await typeText(ctx, request);
      return {};
    case 'press':
      if (request.ref) await (await ctx.resolve(request.ref)).press(request.key, { timeout: left() });
      else await bounded(page.keyboard.press(request.key), request, `the page to take the key ${request.key}`);
      return {};
    case 'hover':
      await (await ctx.resolve(request.ref)).hover({ timeout: left() });
      return {};
    case 'scrollIntoView':
      await (await ctx.resolve(request.ref)).scrollIntoViewIfNeeded({ timeout: left() });
      return {};
    case 'focus':
      await (await ctx.resolve(request.ref)).focus();
      return {};
    case 'scroll':
      return { scroll: await scroll(ctx, request) };
    case 'drag': {
      const [from, to] = [await ctx.resolve(request.startRef), await ctx.resolve(request.endRef)];
      // Playwright awaits Chrome's drag interception without its timeout: bound the whole drag.
      await bounded(drag(page, from, to, left()), request, 'the drop');
      return {};
    }
    case 'select':
      return { selected: await selectOptions(page, await ctx.resolve(request.ref), request.values, left()) };
    case 'fill':
      return {
        filled: await fillForm({ page, resolve: ctx.resolve, describe: ctx.describe, timeout: left() }, request.fields),
      };
    case 'wait':
      await waitFor(ctx, request);
      return {};
    case 'resize':
      await bounded(
        page.setViewportSize({ width: request.width, height: request.height }),
        request,
        'the browser to resize the viewport',
      );
      return { viewport: { width: request.width, height: request.height } };
    case 'close':
      await bounded(page.close(), request, 'the tab to close');
      return {};
    case 'evaluate':
      return { result: await evaluate(ctx, request) };
  }
}

async function typeText(ctx: ActContext, request: ActOf<'type'>): Promise<void> {
  const left = () => ctx.left();
  const target = await ctx.resolve(request.ref);
  if (request.slowly) {
    await target.click({ timeout: left() });
    // A handle (the agent snapshot's refs) has no pressSequentially; its type() is the same act.
    await ('pressSequentially' in target
      ? target.pressSequentially(request.text, { delay: 75, timeout: left() })
      : target.type(request.text, { delay: 75, timeout: left() }));
  } else {
    await target.fill(request.text, { timeout: left() });
  }
  if (request.submit) await target.press('Enter', { timeout: left() });
}

/**
 * The element's nearest scrollable container, or the page; the answer says where it is now and
 * whether it reached the end, so "scroll until the end" needs no guessing.
 */
async function scroll(ctx: ActContext, request: ActOf<'scroll'>): Promise<ScrollPosition> {
  const args = { direction: request.direction, amount: request.amount };
  const target = request.ref ? await ctx.resolve(request.ref) : undefined;
  // A Locator's and an ElementHandle's evaluate differ in their types, not in what they do.
  const onElement = target as unknown as
    { evaluate(fn: typeof scrollIn, arg: typeof args): Promise<ScrollPosition> } | undefined;
  return bounded(
    onElement ? onElement.evaluate(scrollIn, args) : ctx.page.evaluate(scrollIn, args),
    request,
    'the page to scroll',
  );
}

/** Each condition the request names, in turn. */
async function waitFor(ctx: ActContext, request: ActOf<'wait'>): Promise<void> {
  const { page } = ctx;
  const left = () => ctx.left();
  if (request.timeMs !== undefined) await page.waitForTimeout(request.timeMs);
  if (request.text !== undefined)
    await page.getByText(request.text).first().waitFor({ state: 'visible', timeout: left() });
  if (request.textGone !== undefined)
    await page.getByText(request.textGone).first().waitFor({ state: 'hidden', timeout: left() });
  if (request.selector !== undefined) {
    const refusal = READS_VALUE.test(request.selector) ? ctx.secretRefusal() : undefined;
    if (refusal) throw refusal;
    await page.locator(request.selector).first().waitFor({ state: 'visible', timeout: left() });
  }
  if (request.url !== undefined) {
    const wanted = request.url;
    await page.waitForURL((url) => url.href === wanted || url.href.includes(wanted), { timeout: left() });
  }
  if (request.loadState !== undefined) await page.waitForLoadState(request.loadState, { timeout: left() });
  if (request.fn !== undefined) {
    const fn = request.fn;
    await agentCode(ctx, () =>
      page.waitForFunction(isFunctionSource(fn) ? pageFunction(fn) : fn, undefined, { timeout: left() }),
    );
  }
}

/** The agent's code in the page, or on one element (`ref`): its result. */
async function evaluate(ctx: ActContext, request: ActOf<'evaluate'>): Promise<unknown> {
  checkEvaluate(ctx);
  if (request.ref) {
    if (!isFunctionSource(request.fn))
      throw new ClawdError(
        'bad_request',
        'fn: with ref, fn must be a function of the element, e.g. (el) => el.textContent',
      );
    const element = await ctx.resolve(request.ref);
    // Playwright's timeout covers finding the element, not the function: an agent's function
    // that never settles is bounded here.
    const evaluated =
      'dragTo' in element
        ? element.evaluate(pageFunction(request.fn) as never, undefined, { timeout: ctx.left() })
        : element.evaluate(pageFunction(request.fn) as never);
    return await agentCode(ctx, () => bounded(evaluated, request, "the function's result"));
  }
  const fn = request.fn;
  return await agentCode(ctx, () =>
    bounded(ctx.page.evaluate(isFunctionSource(fn) ? pageFunction(fn) : fn), request, "the function's result"),
  );
}

async function drag(page: Page, from: ActTarget, to: ActTarget, timeout: number): Promise<void> {
  if ('dragTo' in from && 'dragTo' in to) return from.dragTo(to, { timeout });
  // Handles have no dragTo: the same moves Playwright makes, pointer down on one, up on the other.
  await from.hover({ timeout });
  await page.mouse.down();
  await to.hover({ timeout });
  await page.mouse.up();
}

interface ScrollPosition {
  x: number;
  y: number;
  maxX: number;
  maxY: number;
  atEnd: boolean;
}

/** Runs in the page: scrolls the nearest scrollable container of `element` (or the page). */
function scrollIn(element: unknown, options?: { direction: string; amount: number | 'page' }): ScrollPosition {
  // Called as page.evaluate(fn, args) (no element) or handle.evaluate(fn, args) (element first).
  const opts = (options ?? element) as { direction: string; amount: number | 'page' };
  const start = options ? (element as Element) : undefined;
  const doc = (globalThis as unknown as { document: Document }).document;
  const page = (doc.scrollingElement ?? doc.documentElement) as Element;
  let box: Element = page;
  for (let el: Element | null = start ?? null; el && el !== page; el = el.parentElement) {
    const style = getComputedStyle(el);
    const scrollsY = /(auto|scroll|overlay)/.test(style.overflowY) && el.scrollHeight > el.clientHeight;
    const scrollsX = /(auto|scroll|overlay)/.test(style.overflowX) && el.scrollWidth > el.clientWidth;
    if (opts.direction === 'up' || opts.direction === 'down' ? scrollsY : scrollsX) {
      box = el;
      break;
    }
  }
  const vertical = opts.direction === 'up' || opts.direction === 'down';
  const view = box === page ? (vertical ? innerHeight : innerWidth) : vertical ? box.clientHeight : box.clientWidth;
  const distance =
    (opts.amount === 'page' ? Math.round(view * 0.9) : opts.amount) *
    (opts.direction === 'up' || opts.direction === 'left' ? -1 : 1);
  box.scrollBy({ top: vertical ? distance : 0, left: vertical ? 0 : distance, behavior: 'instant' });
  const maxX = box.scrollWidth - (box === page ? innerWidth : box.clientWidth);
  const maxY = box.scrollHeight - (box === page ? innerHeight : box.clientHeight);
  const x = Math.round(box.scrollLeft);
  const y = Math.round(box.scrollTop);
  const atEnd =
    { down: y >= maxY - 1, up: y <= 0, right: x >= maxX - 1, left: x <= 0 }[opts.direction as 'down'] ?? false;
  return { x, y, maxX: Math.max(0, maxX), maxY: Math.max(0, maxY), atEnd };
}
