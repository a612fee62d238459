// Where a raw connection of clawd's own to a profile's browser goes: the browser's CDP WebSocket
// and the headers clawd's own connections carry (its key on clawd's ports and at the relay, a
// Grid's credentials). One rule for the policy guard and the pop-up hold (agent/actions/popup-holds.ts).

import type { BrowserEndpoint, ProfileDriver } from './profile-driver';

/**
 * The socket of the profile's browser at `browserUrl` (one of several, for a driver with a browser
 * per agent session), else of its one browser, asked within `readyMs`; throws when it does not answer.
 */
export async function browserSocket(
  driver: ProfileDriver,
  browserUrl: string | undefined,
  readyMs: number,
): Promise<BrowserEndpoint> {
  const several = driver.guardedBrowsers?.();
  if (several !== undefined) {
    const one = several.find((browser) => browser.url === browserUrl);
    if (!one) throw new Error(`no browser of the profile at ${browserUrl}`);
    return one;
  }
  const own = driver.ownSocket?.();
  if (own) return own;
  const url = (await driver.cdp.isReady(readyMs))?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`it did not answer within ${readyMs} ms`);
  const headers = driver.playwright.headers;
  return { url, ...(headers ? { headers } : {}) };
}
