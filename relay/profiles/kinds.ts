// Every kind of profile clawd knows, registered once for config parsing and for the profile
// service. A new kind is a module of its own (its driver, its config keys, how a new profile of
// it is made) and one line here. Imported by the entry points (the CLI, the server) before any
// config is read.

import { registerDriverKind } from './driver-kinds';
import { extensionKind } from './extension-driver';
import { gridKind } from './grid/grid-config';
import { managedKind } from './managed-driver';
import { remoteKind } from './remote-driver';

for (const kind of [managedKind, extensionKind, remoteKind, gridKind]) registerDriverKind(kind);
