// A tab's call after a refused load waits for the error page Chrome commits for it, within a bound.
import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { loadRefused, refusedLoadsEnded } from '../../relay/agent/actions/refused-loads';

/** A page with a main frame and a child frame, whose events the test emits. */
function fakePage() {
  const events = new EventEmitter();
  let mainUrl = 'chrome-error://chromewebdata/';
  const main = { name: 'main', url: () => mainUrl };
  const child = { name: 'child', url: () => 'http://a/' };
  const page = Object.assign(events, { mainFrame: () => main }) as unknown as Page & EventEmitter;
  return { page, main, child, goesTo: (url: string) => (mainUrl = url) };
}

/** Whether the promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('refused loads', () => {
  it('waits for nothing on a page with no refused load', async () => {
    expect(await settled(refusedLoadsEnded(fakePage().page))).toBe(true);
  });

  it('waits until the main frame commits a document, not a child frame', async () => {
    const { page, main, child } = fakePage();
    loadRefused(page, undefined, 10_000);
    const waited = refusedLoadsEnded(page);
    page.emit('framenavigated', child);
    expect(await settled(waited)).toBe(false);
    page.emit('framenavigated', main);
    expect(await settled(waited)).toBe(true);
    // Its listeners went with it, and the next call waits for nothing.
    expect(page.listenerCount('framenavigated')).toBe(0);
    expect(page.listenerCount('close')).toBe(0);
    expect(await settled(refusedLoadsEnded(page))).toBe(true);
  });

  it('ends when the page closes', async () => {
    const { page } = fakePage();
    loadRefused(page, undefined, 10_000);
    const waited = refusedLoadsEnded(page);
    expect(await settled(waited)).toBe(false);
    page.emit('close');
    expect(await settled(waited)).toBe(true);
  });

  it('ends within its bound when nothing commits', async () => {
    const { page } = fakePage();
    loadRefused(page, undefined, 30);
    const from = Date.now();
    await refusedLoadsEnded(page);
    expect(Date.now() - from).toBeGreaterThanOrEqual(25);
    expect(page.listenerCount('framenavigated')).toBe(0);
  });

  it('two refusals in a row: the next commit ends the wait, and nothing is left listening', async () => {
    const { page, main } = fakePage();
    loadRefused(page, undefined, 10_000);
    loadRefused(page, undefined, 10_000);
    const second = refusedLoadsEnded(page);
    page.emit('framenavigated', main);
    expect(await settled(second)).toBe(true);
    expect(await settled(refusedLoadsEnded(page))).toBe(true);
    expect(page.listenerCount('framenavigated')).toBe(0);
  });

  it('stops the page once its error page is in and parsed, and the wait ends only when the stop has answered', async () => {
    const { page, main } = fakePage();
    let stopped: (() => void) | undefined;
    const stops: string[] = [];
    loadRefused(page, () => {
      stops.push('stop');
      return new Promise<void>((resolve) => (stopped = resolve));
    });
    const waited = refusedLoadsEnded(page);
    expect(stops).toEqual([]);
    page.emit('framenavigated', main);
    // Not before its DOM is parsed: stopped sooner, it never says so, and a wait for it hangs.
    expect(await settled(waited)).toBe(false);
    expect(stops).toEqual([]);
    page.emit('domcontentloaded', page);
    await settled(waited);
    expect(stops).toEqual(['stop']);
    expect(await settled(waited)).toBe(false);
    stopped!();
    expect(await settled(waited)).toBe(true);
    expect(page.listenerCount('framenavigated')).toBe(0);
  });

  it('does not stop another document that came instead of the error page', async () => {
    const { page, main, goesTo } = fakePage();
    const stops: string[] = [];
    loadRefused(page, async () => void stops.push('stop'));
    goesTo('http://b/');
    page.emit('framenavigated', main);
    expect(await settled(refusedLoadsEnded(page))).toBe(true);
    expect(stops).toEqual([]);
  });

  it('sends no stop once its bound has passed: the next call may be loading by then', async () => {
    const { page, main } = fakePage();
    const stops: string[] = [];
    loadRefused(page, async () => void stops.push('stop'), 30);
    page.emit('framenavigated', main);
    await refusedLoadsEnded(page);
    page.emit('domcontentloaded', page);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stops).toEqual([]);
    expect(page.listenerCount('domcontentloaded')).toBe(0);
  });
});
