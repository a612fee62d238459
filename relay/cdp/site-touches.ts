// What CDP commands do to a site without loading it — a permission granted to it, its cookies,
// storage or data cleared, its service worker woken or sent an event — judged by the origin policy: nothing is done to a site the policy
// keeps agents off (its cookies are not theirs to delete, its permissions not theirs to grant).
// A command that names no site reaches every one, blocked ones too: refused while the person has
// rules (with none, only clawd's own addresses are kept out, and those hold nothing of an agent's).
// Shared by the relay (the person's tabs) and a managed profile's port (raw-client-rules.ts).

import type { OriginPolicy } from '../../shared/origin-policy';
import { cookieDomain, type CookieToSet } from './cookie-rules';

/** Where a command's site is named: an origin, a storage key (an origin with a slash), or cookies to delete. */
const BY_ORIGIN: Record<string, string> = {
  'Browser.grantPermissions': 'origin',
  'Browser.setPermission': 'origin',
  'Storage.clearDataForOrigin': 'origin',
  'Storage.overrideQuotaForOrigin': 'origin',
  'Storage.clearDataForStorageKey': 'storageKey',
  'Storage.deleteStorageBucket': 'bucket',
  'IndexedDB.clearObjectStore': 'securityOrigin',
  'IndexedDB.deleteDatabase': 'securityOrigin',
  'IndexedDB.deleteObjectStoreEntries': 'securityOrigin',
  'CacheStorage.deleteCache': 'cacheId',
  'CacheStorage.deleteEntry': 'cacheId',
  'ServiceWorker.deliverPushMessage': 'origin',
  'ServiceWorker.dispatchSyncEvent': 'origin',
  'ServiceWorker.dispatchPeriodicSyncEvent': 'origin',
  'ServiceWorker.startWorker': 'scopeURL',
  'ServiceWorker.unregister': 'scopeURL',
  'ServiceWorker.updateRegistration': 'scopeURL',
  'ServiceWorker.skipWaiting': 'scopeURL',
  'DOMStorage.clear': 'storageId',
  'DOMStorage.removeDOMStorageItem': 'storageId',
  'DOMStorage.setDOMStorageItem': 'storageId',
};

/** Commands that reach every site's data at once. */
const EVERY_SITE = new Set([
  'Storage.clearCookies',
  'Network.clearBrowserCookies',
  'Network.clearBrowserCache',
  'Storage.runBounceTrackingMitigations',
  'Storage.clearTrustTokens',
  'Storage.clearPrivateVerificationTokens',
  'Network.setCookieControls',
]);

/** The URL a command names its site by, or undefined when it names none. */
function siteOf(method: string, params: Record<string, unknown>): string | undefined {
  const key = BY_ORIGIN[method];
  if (key === undefined) return undefined;
  const value = params[key];
  if (typeof value === 'string') {
    // A cache id is the origin's storage key and the cache name, separated by '|' (Chromium's).
    return key === 'cacheId' ? value.split('|')[0] : value;
  }
  if (value && typeof value === 'object') {
    const id = value as { securityOrigin?: unknown; storageKey?: unknown };
    const named = id.securityOrigin ?? id.storageKey;
    if (typeof named === 'string') return named;
  }
  // IndexedDB's commands may name the site by its storage bucket alone.
  const bucket = (params.storageBucket as { storageKey?: unknown } | undefined)?.storageKey;
  if (key === 'securityOrigin' && typeof bucket === 'string') return bucket;
  if (method === 'Browser.grantPermissions' || method === 'Browser.setPermission') return '';
  return key === 'securityOrigin' && typeof params.storageKey === 'string' ? params.storageKey : undefined;
}

/**
 * Why the command may not touch the site it names, or undefined when it may. `''` as a site
 * means every site (a permission granted without an origin).
 */
export function touchRefused(
  policy: OriginPolicy,
  method: string,
  params: Record<string, unknown>,
): string | undefined {
  const everySite = EVERY_SITE.has(method) || siteOf(method, params) === '';
  if (everySite) {
    if (policy.ownOnly) return undefined;
    const { allow, block } = policy.config;
    const rules = [
      ...(block ?? []).map((b) => `block ${b}`),
      ...(allow ? [`allow ${allow.join(', ') || '(none)'}`] : []),
    ];
    return `${method} reaches every site, and the origin policy keeps agents off some (${rules.join('; ')}): name one site instead`;
  }
  if (method === 'Network.deleteCookies') {
    const cookie = params as CookieToSet;
    const domain = cookieDomain(cookie);
    if (domain === undefined) return undefined;
    const verdict = policy.cookieVerdict({ ...cookie, domain });
    return verdict.allowed ? undefined : `${method}: ${verdict.reason}`;
  }
  // A permission for a site embedded in another is that site's too.
  for (const site of [siteOf(method, params), method === 'Browser.setPermission' ? params.embeddedOrigin : undefined]) {
    if (typeof site !== 'string') continue;
    const verdict = policy.check(site);
    if (!verdict.allowed) return `${method}: ${verdict.reason}`;
  }
  return undefined;
}
