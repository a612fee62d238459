// A raw client's new tab (Target.createTarget, /json/new), on either door: while the person asks
// about what only requests tell (cdp/client-gate.ts `opensWatched`), it opens blank and loads its
// address once the client's watch is on it, so a redirect to another site or a form its page
// sends as it loads is asked about as after the client's own navigation.

import { cdpErrorOf } from '../errors';

/** How a door opens, closes and loads a tab. */
export interface TabOpener<T> {
  create(url: string): Promise<T>;
  close(tab: T): Promise<unknown>;
  load(tab: T, url: string): Promise<unknown>;
}

/**
 * Opens a tab at `url`; with `watched` (the gate's), blank first, and loaded once what `watched`
 * answers for it has resolved. A watch that cannot be had closes the tab: the client's call fails
 * with its error, and no blank tab of it is left behind.
 */
export async function openForClient<T extends { targetId: string }>(
  opener: TabOpener<T>,
  url: string,
  watched: ((targetId: string) => Promise<void>) | undefined,
): Promise<T> {
  if (!watched) return opener.create(url);
  const tab = await opener.create('about:blank');
  try {
    await watched(tab.targetId);
  } catch (error) {
    await opener.close(tab).catch(() => {});
    throw error;
  }
  // Not waited for: a new target is answered before its page loads, as Chrome answers it. How the
  // load ends is the tab's to show the client: a load the person refused, on its error page, as
  // a client's refused navigation does; a tab closed meanwhile has nothing to show.
  opener.load(tab, url).catch(() => {});
  return tab;
}

/** A managed browser's own calls (the mux's, at its root or on a session it attached). */
export type OwnCall = <T>(
  method: string,
  params: Record<string, unknown>,
  options?: { sessionId?: string; timeoutMs?: number },
) => Promise<T>;

/** The own calls of a managed browser's mux (cdp-mux.ts `call`). */
export function ownCalls(mux: {
  call<T>(method: string, params?: Record<string, unknown>, ms?: number, on?: string): Promise<T>;
}): OwnCall {
  return (method, params, options = {}) => mux.call(method, params, options.timeoutMs, options.sessionId);
}

/**
 * How long a managed tab's load may take to answer: past the person's answer to what it raised
 * (a question waits 60 s, cdp/client-gate.ts RAW_ASK_WAIT_MS) — its session is detached after.
 */
const LOAD_MS = 90_000;

/**
 * A tab a raw client of a managed browser opens: created with its own params (its context, its
 * window) on its own session `on` (a hidden one lives as long as that session), loaded on a
 * session of the mux's own, detached once the load has answered.
 */
export function managedOpener(
  call: OwnCall,
  params: Record<string, unknown>,
  on?: string,
): TabOpener<{ targetId: string }> {
  return {
    create: (url) =>
      call<{ targetId: string }>('Target.createTarget', { ...params, url }, on !== undefined ? { sessionId: on } : {}),
    close: ({ targetId }) => call('Target.closeTarget', { targetId }),
    load: async ({ targetId }, url) => {
      const { sessionId } = await call<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      try {
        await call('Page.navigate', { url }, { sessionId, timeoutMs: LOAD_MS });
      } finally {
        await call('Target.detachFromTarget', { sessionId }).catch(() => {});
      }
    },
  };
}

/** A managed client's Target.createTarget opened blank and loaded once watched: its answer. */
export function openedWatched(
  call: OwnCall,
  params: Record<string, unknown>,
  watched: (targetId: string) => Promise<void>,
  answer: (body: { result?: unknown; error?: unknown }) => void,
  on: string | undefined,
): void {
  openForClient(managedOpener(call, params, on), String(params.url), watched).then(
    ({ targetId }) => answer({ result: { targetId } }),
    (error: unknown) => answer({ error: cdpErrorOf(error) }),
  );
}
