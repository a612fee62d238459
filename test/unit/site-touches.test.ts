// What CDP commands do to a site without loading it (relay/cdp/site-touches.ts), judged by the
// origin policy on both doors: named by an origin, a storage key, a bucket, a cache id, a
// service worker's scope, an embedding origin; or every site at once.

import { describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../shared/origin-policy';
import { touchRefused } from '../../relay/cdp/site-touches';

const policy = new OriginPolicy({ block: ['https://bank.test'] });
const refused = (method: string, params: Record<string, unknown>) => touchRefused(policy, method, params);

describe('touchRefused', () => {
  it.each([
    ['Storage.deleteStorageBucket', { bucket: { storageKey: 'https://bank.test/', name: 'default' } }],
    ['IndexedDB.deleteDatabase', { storageBucket: { storageKey: 'https://bank.test/' }, databaseName: 'd' }],
    ['CacheStorage.deleteEntry', { cacheId: 'https://bank.test/|v1', request: 'https://bank.test/x' }],
    ['ServiceWorker.deliverPushMessage', { origin: 'https://bank.test', registrationId: '1', data: 'x' }],
    [
      'ServiceWorker.dispatchSyncEvent',
      { origin: 'https://bank.test', registrationId: '1', tag: 't', lastChance: false },
    ],
    ['ServiceWorker.startWorker', { scopeURL: 'https://bank.test/' }],
    ['ServiceWorker.unregister', { scopeURL: 'https://bank.test/' }],
    [
      'Browser.setPermission',
      {
        permission: { name: 'geolocation' },
        setting: 'granted',
        origin: 'https://ok.test',
        embeddedOrigin: 'https://bank.test',
      },
    ],
  ])('refuses %s on a blocked site', (method, params) => {
    expect(refused(method, params)).toMatch(method);
  });

  it.each([
    ['Storage.deleteStorageBucket', { bucket: { storageKey: 'https://ok.test/', name: 'default' } }],
    ['ServiceWorker.startWorker', { scopeURL: 'https://ok.test/' }],
    ['Browser.setPermission', { permission: { name: 'geolocation' }, setting: 'granted', origin: 'https://ok.test' }],
  ])('lets %s go on another site', (method, params) => {
    expect(refused(method, params)).toBeUndefined();
  });

  it.each(['Network.clearBrowserCache', 'Storage.runBounceTrackingMitigations', 'Network.setCookieControls'])(
    'refuses %s, which reaches every site, while the policy keeps agents off some',
    (method) => {
      expect(refused(method, {})).toMatch(/reaches every site/);
      expect(touchRefused(new OriginPolicy({}), method, {})).toBeUndefined();
    },
  );
});
