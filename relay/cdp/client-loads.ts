// What a raw CDP client may load and where its downloads may go, on either door, before the
// origin policy is asked. A page of the web, a blank one, or one made of what its address
// carries: a file of this machine (`file:`, or its source through `view-source:`), the browser's
// own pages (`chrome:`: its settings, its data) and extensions' pages are none —
// the browser runs as the person, and clawd's home (its secrets, its keys) is a file like any
// other; clawd's agent API refuses them the same way (profiles/tabs.ts `openableUrl`). A download
// named by the page (behaviour `allow`) goes to a folder of the system's temporary one only: a
// page could name a file that matters in any other (`~/.ssh/authorized_keys`, clawd's config).

import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClawdError } from '../errors';

/**
 * The schemes a raw client's load may name; of `about:`, only the blank page (Chrome 156 ends
 * `about:settings` on `about:blank#blocked`, measured: refused here rather than left to that).
 */
const LOADABLE = new Set(['http:', 'https:', 'data:', 'blob:', 'javascript:']);

/** Why a raw client may not load `url` (`method` names the command), or undefined when the policy decides. */
export function clientLoadRefused(method: string, url: string): ClawdError | undefined {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return undefined; // not a URL: the policy says so in its own words
  }
  if (LOADABLE.has(scheme) || /^about:blank([?#]|$)/i.test(url.trim())) return undefined;
  return new ClawdError(
    'origin_blocked',
    `${method}: ${scheme} addresses are not pages for CDP clients of clawd (a file of this machine, the browser's own pages); nothing was loaded`,
  );
}

/** The system's temporary folder, as given and with its links resolved (macOS's /var is /private/var). */
const TEMP = [...new Set([path.resolve(os.tmpdir()), realpathSync(os.tmpdir())])];

/** Why a client's download behaviour may not be set (its files named by the page, kept elsewhere), or undefined. */
export function downloadPlaceRefused(method: string, params: Record<string, unknown>): ClawdError | undefined {
  if (method !== 'Browser.setDownloadBehavior' && method !== 'Page.setDownloadBehavior') return undefined;
  if (params.behavior !== 'allow' || typeof params.downloadPath !== 'string') return undefined;
  const place = path.resolve(params.downloadPath);
  if (TEMP.some((temp) => place.startsWith(temp + path.sep))) return undefined;
  return new ClawdError(
    'unsupported',
    `${method}: files named by the page ("allow") are kept only in a folder of ${TEMP[0]}, not ${place}: a page could name a file there that matters; use "allowAndName" (files named by their download's id), or a folder there`,
  );
}
