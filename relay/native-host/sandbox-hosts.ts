// What a browser in a sandbox needs to start clawd. A Flatpak runs a host inside its sandbox, where
// neither Node nor the home's launcher is: clawd's manifest there names a wrapper in the app's own
// folder that asks `flatpak-spawn --host` to run the launcher outside (the way others' hosts do it,
// e.g. andy-portmen/native-client#152). That works once the app may talk to org.freedesktop.Flatpak,
// which lets it run anything outside its sandbox: the person's to give (`flatpak override`), never
// clawd's; doctor reads whether it is given. A Snap is confined and is reported to run no program
// outside the snap (snapcraft forum, "Native messaging support in strictly-confined browser snaps";
// KeePassXC's maintainers, 2025): clawd registers there all the same and says so. Neither measured here.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { shQuote, type HostSandbox, type PlatformFolders } from './host-places';

/** The wrapper's place: the app's own data folder, which its sandbox sees at the same path. */
export function flatpakWrapperPath(appId: string, homedir: string): string {
  return path.posix.join(homedir, '.var', 'app', appId, 'data', 'clawd', 'clawd-native-host.sh');
}

/** What the Flatpak runs: the home's launcher, outside the sandbox, on the same stdin and stdout. */
export function flatpakWrapper(launcher: string): string {
  return `#!/bin/sh\n# clawd's native host, run outside this Flatpak's sandbox (clawd install wrote it).\nexec flatpak-spawn --host ${shQuote(launcher)}\n`;
}

/** Whether a wrapper's text runs this launcher. */
export function wrapperRuns(text: string, launcher: string): boolean {
  return text.includes(`--host ${shQuote(launcher)}`);
}

export type FlatpakPermission = 'allowed' | 'denied' | 'unknown';

/** The org.freedesktop.Flatpak line of a keyfile's [Session Bus Policy], if it has one. */
function busPolicy(keyfile: string): string | undefined {
  let section = '';
  let value: string | undefined;
  for (const line of keyfile.split('\n').map((l) => l.trim())) {
    if (line.startsWith('[')) section = line;
    else if (section === '[Session Bus Policy]' && line.startsWith('org.freedesktop.Flatpak='))
      value = line.slice('org.freedesktop.Flatpak='.length).trim();
  }
  return value;
}

/**
 * Whether the app may talk to org.freedesktop.Flatpak: its metadata, then the system's overrides,
 * then the person's (Flatpak's own order, the last word winning). 'unknown' when no file says.
 */
export async function flatpakHostPermission(appId: string, folders: PlatformFolders): Promise<FlatpakPermission> {
  const user = path.posix.join(
    folders.env?.XDG_DATA_HOME || path.posix.join(folders.homedir, '.local', 'share'),
    'flatpak',
  );
  const system = folders.flatpakSystemDir ?? '/var/lib/flatpak';
  const metadata = (installation: string) =>
    path.posix.join(installation, 'app', appId, 'current', 'active', 'metadata');
  const files = [
    metadata(system),
    metadata(user),
    ...[system, user].flatMap((installation) =>
      ['global', appId].map((name) => path.posix.join(installation, 'overrides', name)),
    ),
  ];
  let policy: string | undefined;
  for (const file of files) {
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    policy = (text !== undefined ? busPolicy(text) : undefined) ?? policy;
  }
  if (policy === undefined) return 'unknown';
  return policy === 'talk' || policy === 'own' ? 'allowed' : 'denied';
}

/** What a person should know of a sandboxed browser's host, and whether it is a warning. */
export function sandboxNote(
  sandbox: HostSandbox,
  permission: FlatpakPermission = 'unknown',
): { warn: boolean; text: string } {
  if (sandbox.kind === 'snap')
    return {
      warn: true,
      text: 'a Snap is confined and is reported to run no program outside the snap (snapcraft forum), so it may never start clawd: if the extension does not connect by itself, pair it (`clawd pair`), or use a Chromium that is not a Snap',
    };
  if (permission === 'allowed')
    return { warn: false, text: `it starts clawd outside its sandbox with flatpak-spawn (${sandbox.appId} may)` };
  const command = `flatpak override --user --talk-name=org.freedesktop.Flatpak ${sandbox.appId}`;
  return {
    warn: true,
    text: `a Flatpak runs hosts inside its sandbox: clawd's wrapper starts clawd outside it with flatpak-spawn, which ${sandbox.appId} ${permission === 'denied' ? 'may not do' : 'may not be allowed to do (clawd could not tell)'}: \`${command}\` allows it, and lets that browser run any program outside its sandbox (yours to weigh)`,
  };
}
