// A profile's log-in state as Playwright's storageState JSON ({ cookies, origins: [{ origin,
// localStorage }] }), read and written through Playwright on every driver. Not Playwright's own
// `context.storageState()`: for origins no page shows it opens a page of its own (a new tab in
// the person's browser), so here local storage is read from, and written to, the tabs that are
// open on each origin, and the answer says which origins that left out.

import type { BrowserContext, Cookie } from 'playwright-core';
import { ClawdError } from '../errors';

export interface StorageState {
  cookies: Cookie[];
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

const originOf = (url: string) => {
  try {
    const origin = new URL(url).origin;
    return origin.startsWith('http') ? origin : undefined;
  } catch {
    return undefined;
  }
};

/** Every cookie of the context, and the local storage of each origin a tab shows. */
export async function readStorageState(context: BrowserContext): Promise<StorageState> {
  const origins = new Map<string, StorageState['origins'][number]>();
  for (const page of context.pages()) {
    const origin = originOf(page.url());
    if (!origin || origins.has(origin)) continue;
    const items = await page
      .evaluate(() => Object.keys(localStorage).map((name) => ({ name, value: localStorage.getItem(name) ?? '' })))
      .catch(() => undefined); // a page that does not answer keeps its storage to itself
    if (items && items.length > 0) origins.set(origin, { origin, localStorage: items });
  }
  return { cookies: await context.cookies(), origins: [...origins.values()] };
}

/** A storageState JSON checked, or a 400 saying what is wrong with it. */
export function checkStorageState(value: unknown): StorageState {
  const state = value as Partial<StorageState> | null;
  if (typeof state !== 'object' || state === null || !Array.isArray(state.cookies))
    throw new ClawdError(
      'bad_request',
      'state must be a storage state: { "cookies": [...], "origins": [...] }, as export writes it',
    );
  const origins = state.origins ?? [];
  if (
    !Array.isArray(origins) ||
    !origins.every((o) => typeof o?.origin === 'string' && Array.isArray(o.localStorage))
  ) {
    throw new ClawdError(
      'bad_request',
      'state.origins must be a list of { "origin", "localStorage": [{ "name", "value" }] }',
    );
  }
  return { cookies: state.cookies, origins };
}

/** Adds the cookies, and sets local storage on the origins a tab shows; answers which origins it could not reach. */
export async function writeStorageState(
  context: BrowserContext,
  state: StorageState,
): Promise<{ cookies: number; origins: string[]; skipped: string[] }> {
  if (state.cookies.length > 0) await context.addCookies(state.cookies);
  const done: string[] = [];
  const skipped: string[] = [];
  for (const { origin, localStorage: items } of state.origins) {
    const page = context.pages().find((p) => originOf(p.url()) === origin);
    if (!page) {
      skipped.push(origin);
      continue;
    }
    await page.evaluate((entries) => {
      for (const { name, value } of entries) localStorage.setItem(name, value);
    }, items);
    done.push(origin);
  }
  return { cookies: state.cookies.length, origins: done, skipped };
}
