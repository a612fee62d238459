// Doctor's look at the native host: for each browser the person has (and each folder named at
// install), whether this home's host is registered everywhere that browser reads it. A manifest
// counts as this home's when it names the home's launcher, or a Flatpak wrapper that runs it, and
// the launcher is there: another home's install, or a launcher since deleted, is not.

import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { regExe } from './host-registry';
import { wrapperRuns } from './sandbox-hosts';
import {
  everyPlace,
  hasUserData,
  launcherPath,
  MANIFEST_FILE,
  placeNote,
  type HostTarget,
  type PlaceNote,
} from './host-install';
import type { HostPlace } from './host-places';

export interface HostStatus {
  place: HostPlace;
  /** The person has the browser (its user data folder holds something). */
  found: boolean;
  /** Where it reads this home's host (manifest files, or registry keys on Windows). */
  registered: string[];
  /** Where it reads hosts and this home's is not. */
  missing: string[];
  note?: PlaceNote;
}

/** Whether the manifest at `file` starts this home's launcher (directly or through a Flatpak's wrapper). */
async function manifestRuns(file: string, launcher: string): Promise<boolean> {
  try {
    const runs = (JSON.parse(await fs.readFile(file, 'utf8')) as { path?: unknown }).path;
    if (typeof runs !== 'string' || !existsSync(launcher)) return false;
    if (path.resolve(runs) === path.resolve(launcher)) return true;
    return wrapperRuns(await fs.readFile(runs, 'utf8'), launcher);
  } catch {
    return false; // no manifest there, or not one of clawd's
  }
}

/** Each place that reads hosts for this browser, and whether it reads this home's. */
async function placeStatus(place: HostPlace, target: HostTarget, launcher: string): Promise<HostStatus> {
  const registered: string[] = [];
  const missing: string[] = [];
  const locations =
    place.registryKeys.length > 0 ? place.registryKeys : place.manifestDirs.map((d) => path.join(d, MANIFEST_FILE));
  for (const location of locations) {
    const file = place.registryKeys.length > 0 ? await (target.registry ?? regExe).read(location) : location;
    (file !== undefined && (await manifestRuns(file, launcher)) ? registered : missing).push(location);
  }
  const note = registered.length > 0 ? await placeNote(place, target.folders) : undefined;
  return { place, found: await hasUserData(place), registered, missing, ...(note ? { note } : {}) };
}

/**
 * The browsers worth a line: the ones the person has, the folders named at install, and one they
 * do not have only where it reads clawd's host at a place none of theirs does (installed with
 * --browser ahead of the browser): Google Chrome's folder or key, which many read, names no one more.
 */
export async function hostStatuses(target: HostTarget): Promise<HostStatus[]> {
  const launcher = launcherPath(target.home, target.platform);
  const statuses = await Promise.all((await everyPlace(target)).map((p) => placeStatus(p, target, launcher)));
  const seen = (s: HostStatus) => s.found || s.place.browser === 'user-data-dir';
  const theirs = new Set(statuses.filter(seen).flatMap((s) => s.registered));
  return statuses.filter((s) => seen(s) || s.registered.some((location) => !theirs.has(location)));
}

/** The places where this home's host is registered (for at least one of the folders or keys a browser reads). */
export async function installedPlaces(target: HostTarget): Promise<HostPlace[]> {
  return (await hostStatuses(target)).filter((s) => s.registered.length > 0).map((s) => s.place);
}
