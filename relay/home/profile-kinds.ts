// The kinds of profile config.json may name (`driver`), as config parsing needs them: each kind's
// check of its own keys and what its person is asked before by default. The kinds themselves are
// plug-ins of relay/profiles/, handed to whoever parses as a list (`KindSchemas`): the server
// passes the kinds it runs, so a new kind is a new driver module and an entry in that list, never
// a change to the config's code. A reader that wants only the keys every config has (a client
// finding the server's token) passes none: each profile's own keys are then kept as written.

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

/** The kinds a parse knows: by name, and their names for an error that lists them. */
export interface KindSchemas {
  get(kind: string): ProfileKindSchema | undefined;
  names(): string[];
}
