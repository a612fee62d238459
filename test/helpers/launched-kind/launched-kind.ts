// A kind of profile of the tests' own, to show a driver is a plug-in: `launched`, a Chromium the
// driver starts on first use and stops with the server. It is this folder and an entry in the
// kinds a test server is handed (agent-contract.test.ts runs the contract suite on it); no file
// of relay/ knows it. Its own config key is `args`, more flags for the browser it starts.

import type { ProfileConfig } from '../../../relay/home/config-schema';
import type { DriverKind } from '../../../relay/profiles/driver-kinds';
import { ClawdError } from '../../../relay/errors';
import { LaunchedDriver } from './launched-driver';

const isFlags = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((flag) => typeof flag === 'string' && flag.startsWith('--'));

export const launchedKind: DriverKind = {
  kind: 'launched',
  defaultAsk: [],
  flags: { 'chromium-args': { input: 'args', value: 'JSON', help: 'a launched profile: more flags for its Chromium' } },
  parseOwnKeys: (entry, key, fail) =>
    entry.args === undefined || isFlags(entry.args)
      ? { args: entry.args ?? [] }
      : fail(`${key}.args`, 'must be a list of flags (--name=value)', entry.args),
  async newProfile(input) {
    const args: unknown = typeof input.args === 'string' ? JSON.parse(input.args) : (input.args ?? []);
    if (!isFlags(args)) throw new ClawdError('invalid_profile', 'args must be a list of flags (--name=value)');
    return { args };
  },
  create: (name, profile) => new LaunchedDriver(name, profile as ProfileConfig & { args: string[] }),
};
