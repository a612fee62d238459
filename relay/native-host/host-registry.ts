// The Windows registry as `clawd install` uses it: an HKCU key's default value, set, read and
// deleted with reg.exe. An interface, so the Windows rules run in tests on any OS against a map.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HostRegistry {
  /** The key's default value, or undefined when there is no such key or value. */
  read(key: string): Promise<string | undefined>;
  write(key: string, value: string): Promise<void>;
  /** Deletes the key; false when there was none. */
  remove(key: string): Promise<boolean>;
}

export const regExe: HostRegistry = {
  async read(key) {
    const query = await run('reg', ['query', key, '/ve']).catch(() => undefined);
    return query?.stdout.match(/REG_SZ\s+(.+?)\s*$/m)?.[1];
  },
  async write(key, value) {
    await run('reg', ['add', key, '/ve', '/t', 'REG_SZ', '/d', value, '/f']);
  },
  remove: (key) =>
    run('reg', ['delete', key, '/f']).then(
      () => true,
      () => false,
    ),
};
