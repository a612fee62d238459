// A driver kind is a plug-in: its name, the check of its own config.json keys, how a new profile
// of it is made, and its driver's constructor — one module per kind, registered in kinds.ts.
// Nothing outside relay/profiles/ asks which kind a profile is: what differs is a member of the
// driver (profile-driver.ts) or of its kind (here).

import type { BrowserConfig, ProfileConfig } from '../home/config-schema';
import { registerProfileKind, type ProfileKindSchema } from '../home/profile-kinds';
import type { ClientGate } from '../cdp/client-gate';
import type { RelayServer } from '../cdp/relay-server';
import type { OriginPolicy } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type { ProfileDriver } from './profile-driver';

/** What `create-profile` was given beyond a name and a colour (each kind takes what it needs). */
export interface NewProfileInput {
  cdpUrl?: unknown;
  [own: string]: unknown;
}

/** What a driver is made with. */
export interface DriverContext {
  home: string;
  /** The browser section when the driver is made. */
  settings: BrowserConfig;
  relay: RelayServer;
  log: Logger;
  /** The profile's origin policy in force (clawd's own addresses among it), read at each use. */
  policy(): OriginPolicy;
  /** The gate its raw CDP clients are held to for the person's asks, once the person's say is wired. */
  rawGate(): ClientGate | undefined;
}

export interface DriverKind extends ProfileKindSchema {
  /**
   * A new profile's own keys from create-profile's input, or invalid_profile saying what is
   * wrong; `config` is the browser section it joins (ports taken, …).
   */
  newProfile(input: NewProfileInput, config: BrowserConfig, relayUrl: string): Promise<Partial<ProfileConfig>>;
  create(name: string, profile: ProfileConfig, context: DriverContext): ProfileDriver;
}

const kinds = new Map<string, DriverKind>();

export function registerDriverKind(kind: DriverKind): void {
  kinds.set(kind.kind, kind);
  registerProfileKind(kind);
}

/** The kind a profile names; an unknown one says the known ones. */
export function driverKind(name: string): DriverKind {
  const kind = kinds.get(name);
  if (kind) return kind;
  throw new ClawdError(
    'invalid_profile',
    `driver must be one of ${[...kinds.keys()].map((k) => `"${k}"`).join(', ')}, got ${JSON.stringify(name)}`,
  );
}
