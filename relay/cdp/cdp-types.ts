// The CDP methods and events the relay reads or says itself, typed as devtools-protocol has them.
// A client's params are whatever it sent: `paramsOf` gives them the method's type with every
// field optional, so the code that reads a field still checks it is there.

import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping';
import type { CdpCommand } from './client-session';

export type CommandName = keyof ProtocolMapping.Commands;
export type EventName = keyof ProtocolMapping.Events;

type ParamsTuple<M extends CommandName> = ProtocolMapping.Commands[M]['paramsType'];
/** The params of a CDP command, as the protocol defines them. */
export type CommandParams<M extends CommandName> =
  ParamsTuple<M> extends [] ? Record<string, never> : NonNullable<ParamsTuple<M>[0]>;
/** The params of a CDP event, as the protocol defines them. */
export type EventParams<E extends EventName> = ProtocolMapping.Events[E] extends [infer P] ? P : Record<string, never>;

/** A command's params typed by its method, every field optional (a client may leave any out). */
export function paramsOf<M extends CommandName>(command: CdpCommand, _method: M): Partial<CommandParams<M>> {
  return command.params as Partial<CommandParams<M>>;
}
