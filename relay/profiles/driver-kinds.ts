// A driver kind is a plug-in: its name, the check of its own config.json keys, how a new profile
// of it is made (and which of create-profile's fields and CLI flags are its), and its driver's
// constructor — one module per kind. The server is handed its kinds as a list (`DriverKinds`;
// kinds.ts holds the built-in ones, a test adds its own), as hono is handed its routes: nothing
// registers itself on import. Nothing outside relay/profiles/ asks which kind a profile is: what
// differs is a member of the driver (profile-driver.ts) or of its kind (here).

import type { BrowserConfig, ProfileConfig } from '../home/config-schema';
import type { KindSchemas, ProfileKindSchema } from '../home/profile-kinds';
import type { ClientGate } from '../cdp/client-gate';
import type { RelayServer } from '../cdp/relay-server';
import type { OriginPolicy } from '../../shared/origin-policy';
import { ClawdError } from '../errors';
import type { Logger } from '../log';
import type { BrowserEndpoint, ProfileDriver } from './profile-driver';

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
  /** What a raw client's word to run a new target waits for: the policy's walls in it (policy-guard.ts). */
  targetSetUp(targetId: string, type?: string): Promise<void> | undefined;
  /**
   * A browser of the profile is up before any call needs it (a pool's warm one): held to the
   * profile's policy, then connected by the agent layer — what its first call would do, done ahead.
   * Settles once both are done, or once one failed (a guard that failed leaves the connection
   * untried); never rejects: a call that needs them does them again.
   */
  warmed(endpoint: BrowserEndpoint): Promise<void>;
}

/** A field of create-profile a kind takes, as the CLI's flag says it (`--grid-url URL` → gridUrl). */
export interface KindFlag {
  /** The create-profile field it fills. */
  input: string;
  /** What the flag's value is (`URL`, `JSON`). */
  value: string;
  help: string;
}

export interface DriverKind extends ProfileKindSchema {
  /**
   * A new profile's own keys from create-profile's input, or invalid_profile saying what is
   * wrong; `config` is the browser section it joins (ports taken, …).
   */
  newProfile(input: NewProfileInput, config: BrowserConfig, relayUrl: string): Promise<Partial<ProfileConfig>>;
  create(name: string, profile: ProfileConfig, context: DriverContext): ProfileDriver;
  /** The create-profile field that makes a profile of this kind when no driver is named (remote: cdpUrl). */
  readonly chosenBy?: string;
  /** Its create-profile fields as the CLI's flags (by flag name). */
  readonly flags?: Readonly<Record<string, KindFlag>>;
}

/** The kinds a server runs, in order: the first is made when create-profile names none. */
export class DriverKinds implements KindSchemas {
  readonly #byName = new Map<string, DriverKind>();

  constructor(readonly list: readonly DriverKind[]) {
    if (list.length === 0) throw new Error('a server needs at least one kind of profile');
    for (const kind of list) {
      if (this.#byName.has(kind.kind)) throw new Error(`two kinds of profile are named ${kind.kind}`);
      this.#byName.set(kind.kind, kind);
    }
  }

  get(name: string): DriverKind | undefined {
    return this.#byName.get(name);
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }

  /** The kind a profile names; an unknown one says the known ones. */
  kind(name: string): DriverKind {
    const kind = this.#byName.get(name);
    if (kind) return kind;
    throw new ClawdError(
      'invalid_profile',
      `driver must be one of ${this.names()
        .map((k) => `"${k}"`)
        .join(', ')}, got ${JSON.stringify(name)}`,
    );
  }

  /** The kind a new profile is made as: the one it names, else the one a field of it chooses, else the first. */
  chosenFor(input: NewProfileInput & { driver?: unknown }): DriverKind {
    if (input.driver !== undefined) return this.kind(String(input.driver));
    const chosen = this.list.filter((kind) => kind.chosenBy !== undefined && input[kind.chosenBy] !== undefined);
    if (chosen.length > 1)
      throw new ClawdError(
        'invalid_profile',
        `give one of ${chosen.map((kind) => kind.chosenBy).join(', ')} (each makes another kind of profile), or name the driver`,
      );
    return chosen[0] ?? this.list[0]!;
  }
}
