// The kinds of profile clawd itself knows, in the order create-profile chooses among them (the
// first when nothing says otherwise). The server is handed this list (server.ts), and a program
// that embeds clawd may hand it a longer one; the CLI knows these for its create-profile flags.

import type { DriverKind } from './driver-kinds';
import { extensionKind } from './extension-driver';
import { gridKind } from './grid/grid-config';
import { managedKind } from './managed-driver';
import { poolKind } from './pool/pool-config';
import { remoteKind } from './remote-driver';

export const BUILT_IN_KINDS: readonly DriverKind[] = [managedKind, extensionKind, remoteKind, gridKind, poolKind];
