// The kinds of profile config.json may name (`driver`), as config parsing needs them: each kind's
// check of its own keys and what its person is asked before by default. The kinds themselves are
// plug-ins of relay/profiles/ (a driver module registers its kind; relay/profiles/kinds.ts
// registers them all), so parsing here never names one: a new kind is a new driver module, not
// a change to the config's code.

import type { AskKind } from '../../shared/ask-kinds';

/** Says a key's problem (`browser.profiles.work.cdpUrl must be …, got …`) and stops the parse. */
export type ConfigFail = (key: string, rule: string, value: unknown) => never;

export interface ProfileKindSchema {
  /** Its name in config.json's `driver` key. */
  readonly kind: string;
  /**
   * Checks the kind's own keys of a profile entry (`key` is its path, e.g. `profiles.work`) and
   * answers them, parsed; `fail` for a bad one.
   */
  parseOwnKeys(entry: Readonly<Record<string, unknown>>, key: string, fail: ConfigFail): Record<string, unknown>;
  /** What the person is asked before on such a profile unless its own `ask` says otherwise. */
  readonly defaultAsk: readonly AskKind[];
}

const kinds = new Map<string, ProfileKindSchema>();

/** Makes a kind known to config parsing (relay/profiles/kinds.ts calls it for every driver). */
export function registerProfileKind(schema: ProfileKindSchema): void {
  kinds.set(schema.kind, schema);
}

export function profileKind(kind: string): ProfileKindSchema | undefined {
  return kinds.get(kind);
}

/** The kinds' names, for an error that lists them. */
export function profileKindNames(): string[] {
  return [...kinds.keys()];
}
